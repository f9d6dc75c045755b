// SPDX-License-Identifier: GPL-2.0
#include "ktest.h"
#include "common/ktap.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char *vformat(const char *fmt, va_list ap)
{
	struct sbuf sb = { 0 };

	sbuf_vprintf(&sb, fmt, ap);
	return sb.buf ? sb.buf : xstrdup("");
}

void ktest_begin(struct ktest *t)
{
	memset(t, 0, sizeof(*t));
}

static void vresult(struct ktest *t, bool ok, const char *directive, const char *reason,
		    const char *fmt, va_list ap)
{
	char *desc = vformat(fmt, ap);

	ktap_result(&t->lines, 1, ok, ++t->n, desc, directive, reason);
	free(desc);
}

bool ktest_check(struct ktest *t, bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vresult(t, ok, NULL, NULL, fmt, ap);
	va_end(ap);
	t->n_fail += !ok;
	return ok;
}

void ktest_skip(struct ktest *t, const char *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vresult(t, true, "SKIP", reason, fmt, ap);
	va_end(ap);
	t->n_skip++;
}

void ktest_diag(struct ktest *t, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = vformat(fmt, ap);
	va_end(ap);
	ktap_diag(&t->lines, 1, msg);
	free(msg);
}

void ktest_skip_all(struct ktest *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(t->skip_reason);
	t->skip_reason = vformat(fmt, ap);
	va_end(ap);
}

void ktest_broken(struct ktest *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(t->broken);
	t->broken = vformat(fmt, ap);
	va_end(ap);
	ktap_diagf(&t->lines, 1, "broken: %s", t->broken);
}

bool ktest_expect_errno(struct ktest *t, int err, int want, const char *fmt, ...)
{
	bool ok = err == want;
	char *what;
	va_list ap;

	va_start(ap, fmt);
	what = vformat(fmt, ap);
	va_end(ap);
	ktest_check(t, ok, "%s -> %s", what, strerrorname_np(want));
	if (!ok)
		ktest_diag(t, "expected %s, seen %s", strerrorname_np(want),
			   err ? strerrorname_np(err) : "success");
	free(what);
	return ok;
}

enum ktest_result ktest_end(struct ktest *t, int index, const char *name)
{
	struct sbuf out = { 0 };
	enum ktest_result r;

	if (t->broken)
		r = KTEST_BROKEN;
	else if (t->n_fail)
		r = KTEST_FAIL;
	else if (t->skip_reason || (t->n && t->n == t->n_skip))
		r = KTEST_SKIP;
	else
		r = KTEST_PASS;
	ktap_subtest(&out, 1, name, t->n);
	if (t->lines.len)
		sbuf_puts(&out, t->lines.buf);
	switch (r) {
	case KTEST_PASS:
		ktap_result(&out, 0, true, index, name, NULL, NULL);
		break;
	case KTEST_SKIP:
		ktap_result(&out, 0, true, index, name, "SKIP",
			    t->skip_reason ? t->skip_reason : "every check was skipped");
		break;
	case KTEST_FAIL:
		ktap_result(&out, 0, false, index, name, NULL, NULL);
		break;
	case KTEST_BROKEN:
		ktap_result(&out, 0, false, index, name, "ERROR", t->broken);
		break;
	}
	ktap_put(stdout, &out);
	sbuf_free(&out);
	sbuf_free(&t->lines);
	free(t->skip_reason);
	free(t->broken);
	return r;
}
