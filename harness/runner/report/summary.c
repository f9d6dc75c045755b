// SPDX-License-Identifier: GPL-2.0
/*
 * Report writers over the one result model: summary.txt (a table a person
 * reads) and report.ktap (KTAP v1, one subtest per scenario, one line per
 * step, so kernel tooling can read it).
 */
#include "result.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int report_write_text(const char *dir, const char *file, char *text)
{
	char *path = xasprintf("%s/%s", dir, file);
	int ret = write_file(path, text, strlen(text));
	int err = errno;

	free(path);
	free(text);
	errno = err;
	return ret;
}

static const char *step_cell(const struct scenario_result *sr, int i)
{
	if (sr->steps[i].result == TL_NOTRUN && sr->result != TL_NOTRUN)
		return "-";
	return tl_result_name(sr->steps[i].result);
}

/* Every line of @text behind @prefix, so a message never breaks the table. */
void comment_lines(struct sbuf *sb, const char *prefix, const char *text)
{
	for (const char *s = text; s && *s; ) {
		size_t len = strcspn(s, "\n");

		sbuf_printf(sb, "%s%.*s\n", prefix, (int)len, s);
		s += len;
		s += *s == '\n';
	}
}

char *report_summary_text(const struct run_result *r)
{
	struct sbuf sb = { 0 };
	int counts[TL_CRASH + 1];

	sbuf_printf(&sb, "tunlab run %s\n", r->id ? r->id : "?");
	sbuf_printf(&sb, "kernel  %s\n", r->kernel ? r->kernel : "(L1 did not report)");
	sbuf_printf(&sb, "lsm     %s\n", r->lsm ? r->lsm : "(none reported)");
	sbuf_printf(&sb, "accel   %s (%s)\n\n", r->accel ? r->accel : "?",
		    r->accel_reason ? r->accel_reason : "");
	sbuf_printf(&sb, "%-8s %9s  %s\n", "RESULT", "TIME", "SCENARIO / STEP");
	for (int i = 0; i < r->n; i++) {
		const struct scenario_result *sr = &r->s[i];

		sbuf_printf(&sb, "%-8s %8.2fs  %s:%d %s\n", tl_result_name(sr->result),
			    sr->ms / 1000.0, sr->sc->file, sr->sc->line, sr->sc->title);
		if (sr->reason && *sr->reason)
			comment_lines(&sb, "                      # ", sr->reason);
		for (int j = 0; j < sr->sc->nsteps; j++) {
			const struct step_result *st = &sr->steps[j];

			sbuf_printf(&sb, "  %-6s %8.2fs    %d. %s\n", step_cell(sr, j),
				    st->ms / 1000.0, j + 1, sr->sc->steps[j].text);
			if (st->msg && *st->msg)
				comment_lines(&sb, "                         # ", st->msg);
		}
	}
	for (int i = 0; i < r->nsuites; i++) {
		const struct suite_result *su = &r->suites[i];

		if (!i)
			sbuf_puts(&sb, "\nKTAP suites run inside L1:\n");
		sbuf_printf(&sb, "%-8s %8.2fs  %s: %d ok, %d not ok, %d skipped%s%s\n",
			    tl_result_name(su->result), su->ms / 1000.0, su->name,
			    su->n_ok, su->n_notok, su->n_skip, su->reason ? "  # " : "",
			    su->reason ? su->reason : "");
	}
	run_counts(r, counts);
	sbuf_printf(&sb, "\n%d scenarios: %d passed, %d failed, %d skipped, %d error, %d timeout, %d crash, %d not run; %.1f s\n",
		    r->n, counts[TL_PASS], counts[TL_FAIL], counts[TL_SKIP],
		    counts[TL_ERROR], counts[TL_TIMEOUT], counts[TL_CRASH],
		    counts[TL_NOTRUN], r->ms / 1000.0);
	if (r->infra_error)
		sbuf_printf(&sb, "lab: %s: %s\n", tl_result_name(r->infra_result),
			    r->infra_error);
	if (r->crash_kind)
		sbuf_printf(&sb, "kernel report (%s):\n%s", r->crash_kind,
			    r->crash_excerpt ? r->crash_excerpt : "");
	return sb.buf;
}

/* KTAP test names end at '#' and at a newline. */
static void ktap_name(struct sbuf *sb, const char *s)
{
	for (; *s; s++)
		sbuf_add(sb, *s == '#' ? "_" : *s == '\n' ? " " : s, 1);
}

static void ktap_result(struct sbuf *sb, const char *indent, int n,
			enum tl_result r, const char *name, const char *reason)
{
	const char *directive = NULL;
	bool ok = r == TL_PASS || r == TL_SKIP;

	if (r == TL_SKIP)
		directive = "SKIP";
	else if (r == TL_TIMEOUT)
		directive = "TIMEOUT";
	else if (r == TL_CRASH || r == TL_ERROR || r == TL_NOTRUN)
		directive = "ERROR";
	sbuf_printf(sb, "%s%s %d ", indent, ok ? "ok" : "not ok", n);
	ktap_name(sb, name);
	if (directive) {
		sbuf_printf(sb, " # %s", directive);
		if (reason && *reason) {
			sbuf_puts(sb, " ");
			ktap_name(sb, reason);
		}
	}
	sbuf_puts(sb, "\n");
}

char *report_ktap_text(const struct run_result *r)
{
	struct sbuf sb = { 0 };

	sbuf_puts(&sb, "KTAP version 1\n");
	sbuf_printf(&sb, "# tunlab run %s kernel %s accel %s\n", r->id ? r->id : "?",
		    r->kernel ? r->kernel : "?", r->accel ? r->accel : "?");
	sbuf_printf(&sb, "1..%d\n", r->n + r->nsuites);
	for (int i = 0; i < r->n; i++) {
		const struct scenario_result *sr = &r->s[i];
		char *name = xasprintf("%s:%d %s", sr->sc->file, sr->sc->line, sr->sc->title);

		sbuf_puts(&sb, "    KTAP version 1\n    # Subtest: ");
		ktap_name(&sb, name);
		sbuf_printf(&sb, "\n    1..%d\n", sr->sc->nsteps);
		for (int j = 0; j < sr->sc->nsteps; j++) {
			const struct step_result *st = &sr->steps[j];
			enum tl_result res = st->result;
			const char *why = st->msg;

			if (res == TL_NOTRUN && sr->result != TL_NOTRUN) {
				res = TL_SKIP;
				why = "not run: an earlier step failed";
			}
			sbuf_printf(&sb, "    # step %d took %.0f ms\n", j + 1, st->ms);
			if (st->msg && *st->msg && res != TL_SKIP)
				comment_lines(&sb, "    # ", st->msg);
			ktap_result(&sb, "    ", j + 1, res, sr->sc->steps[j].text, why);
		}
		sbuf_printf(&sb, "# %s took %.0f ms\n", name, sr->ms);
		ktap_result(&sb, "", i + 1, sr->result, name, sr->reason);
		free(name);
	}
	for (int i = 0; i < r->nsuites; i++) {
		const struct suite_result *su = &r->suites[i];

		/* the suite's own KTAP, nested one level down */
		for (int j = 0; j < su->nlines; j++)
			sbuf_printf(&sb, "    %s\n", su->lines[j]);
		sbuf_printf(&sb, "# %s took %.0f ms\n", su->name, su->ms);
		ktap_result(&sb, "", r->n + i + 1, su->result, su->name, su->reason);
	}
	if (r->infra_error)
		comment_lines(&sb, "# ", r->infra_error);
	if (r->crash_kind) {
		sbuf_printf(&sb, "# kernel report (%s):\n", r->crash_kind);
		comment_lines(&sb, "# ", r->crash_excerpt);
	}
	return sb.buf;
}

int report_write_summary(const struct run_result *r, const char *dir)
{
	return report_write_text(dir, "summary.txt", report_summary_text(r));
}

int report_write_ktap(const struct run_result *r, const char *dir)
{
	return report_write_text(dir, "report.ktap", report_ktap_text(r));
}
