// SPDX-License-Identifier: GPL-2.0
/* What a step did, held against what the scenario expects of it. */
#include "outcome.h"
#include "common/errnames.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void outcome_set(struct outcome *oc, int err, const char *fmt, ...)
{
	va_list ap;

	oc->err = err;
	va_start(ap, fmt);
	vsnprintf(oc->what, sizeof(oc->what), fmt, ap);
	va_end(ap);
}

bool outcome_met(const struct scn_step *st, const struct outcome *oc)
{
	switch (st->expect) {
	case SCN_EXPECT_OK:
		return oc->err == 0;
	case SCN_EXPECT_FAIL:
		return oc->err != 0;
	case SCN_EXPECT_ERRNO:
		return oc->err == st->expect_errno;
	}
	return false;
}

static const char *err_text(int err, char *buf, size_t size)
{
	const char *name;

	if (err == 0)
		return "succeeded";
	if (err < 0)
		return "failed";
	name = errno_name(err);
	snprintf(buf, size, "%s (%s)", strerror(err), name ? name : "?");
	return buf;
}

void outcome_describe(const struct scn_step *st, const struct outcome *oc, bool ok,
		      struct sbuf *msg)
{
	char got[96];

	if (ok) {
		sbuf_puts(msg, oc->detail);
		return;
	}
	sbuf_printf(msg, "%s: %s; expected %s", oc->what, err_text(oc->err, got, sizeof(got)),
		    st->expect == SCN_EXPECT_OK ? "ok" :
		    st->expect == SCN_EXPECT_FAIL ? "a failure" :
		    errno_name(st->expect_errno));
	if (oc->detail[0])
		sbuf_printf(msg, "\n%s", oc->detail);
}
