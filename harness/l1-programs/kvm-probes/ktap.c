// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP v1 writer for kvm-probes (see ktap.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"

static char *ktap_vfmt(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	return s;
}

void ktap_begin(struct ktap *t)
{
	memset(t, 0, sizeof(*t));
	t->out = open_memstream(&t->buf, &t->len);
	if (!t->out)
		abort();
}

static void ktap_vresult(struct ktap *t, bool ok, const char *directive, const char *fmt,
			 va_list ap)
{
	char *desc = ktap_vfmt(fmt, ap);

	fprintf(t->out, "%s %d %s%s\n", ok ? "ok" : "not ok", ++t->n, desc,
		directive ? directive : "");
	free(desc);
}

bool ktap_check(struct ktap *t, bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vresult(t, ok, NULL, fmt, ap);
	va_end(ap);
	t->n_fail += !ok;
	return ok;
}

void ktap_skip(struct ktap *t, const char *reason, const char *fmt, ...)
{
	char *directive;
	va_list ap;

	if (asprintf(&directive, " # SKIP %s", reason) < 0)
		abort();
	va_start(ap, fmt);
	ktap_vresult(t, true, directive, fmt, ap);
	va_end(ap);
	free(directive);
	t->n_skip++;
}

void ktap_diag(struct ktap *t, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = ktap_vfmt(fmt, ap);
	va_end(ap);
	fprintf(t->out, "# %s\n", msg);
	free(msg);
}

void ktap_skip_all(struct ktap *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(t->skip_reason);
	t->skip_reason = ktap_vfmt(fmt, ap);
	va_end(ap);
}

void ktap_broken(struct ktap *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(t->broken);
	t->broken = ktap_vfmt(fmt, ap);
	va_end(ap);
	fprintf(t->out, "# broken: %s\n", t->broken);
}

bool ktap_expect_errno(struct ktap *t, int err, int want, const char *fmt, ...)
{
	bool ok = err == want;
	char *what;
	va_list ap;

	va_start(ap, fmt);
	what = ktap_vfmt(fmt, ap);
	va_end(ap);
	ktap_check(t, ok, "%s -> %s", what, strerrorname_np(want));
	if (!ok)
		ktap_diag(t, "expected %s, seen %s", strerrorname_np(want),
			  err ? strerrorname_np(err) : "success");
	free(what);
	return ok;
}

enum ktap_result ktap_end(struct ktap *t, int index, const char *name)
{
	enum ktap_result r;
	char *line, *next;

	fclose(t->out);
	if (t->broken)
		r = KTAP_BROKEN;
	else if (t->n_fail)
		r = KTAP_FAIL;
	else if (t->skip_reason || (t->n && t->n == t->n_skip))
		r = KTAP_SKIP;
	else
		r = KTAP_PASS;

	printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", name, t->n);
	for (line = t->buf; line && *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		printf("    %s\n", line);
	}
	switch (r) {
	case KTAP_PASS:
		printf("ok %d %s\n", index, name);
		break;
	case KTAP_SKIP:
		printf("ok %d %s # SKIP %s\n", index, name,
		       t->skip_reason ? t->skip_reason : "every check was skipped");
		break;
	case KTAP_FAIL:
		printf("not ok %d %s\n", index, name);
		break;
	case KTAP_BROKEN:
		printf("not ok %d %s # ERROR %s\n", index, name, t->broken);
		break;
	}
	fflush(stdout);
	free(t->buf);
	free(t->skip_reason);
	free(t->broken);
	return r;
}
