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

/* The run step's failing TAP tests are exactly the ones it names. */
static bool not_ok_met(const struct scn_step *st, const struct outcome *oc)
{
	int seen = 0;

	for (const char *p = oc->not_ok; *p; seen++) {
		size_t len = strcspn(p, ",");
		bool named = false;

		for (int k = 0; k < st->nnot_ok && !named; k++)
			named = strlen(st->not_ok[k]) == len && !strncmp(st->not_ok[k], p, len);
		if (!named)
			return false;
		p += len;
		p += strspn(p, ", ");
	}
	return seen == st->nnot_ok;
}

bool outcome_met(const struct scn_step *st, const struct outcome *oc)
{
	if (st->nnot_ok && !not_ok_met(st, oc))
		return false;
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
	if (st->nnot_ok) {
		sbuf_puts(msg, ", with not ok:");
		for (int k = 0; k < st->nnot_ok; k++)
			sbuf_printf(msg, "%s %s", k ? "," : "", st->not_ok[k]);
		sbuf_printf(msg, "; not ok were: %s", oc->not_ok[0] ? oc->not_ok : "none");
	}
	if (oc->detail[0])
		sbuf_printf(msg, "\n%s", oc->detail);
}
