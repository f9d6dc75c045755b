// SPDX-License-Identifier: GPL-2.0
/*
 * summary.txt: the run as a table a person reads, one line per scenario
 * and per step, messages below them; also printed at the end of a run.
 */
#include "report.h"

#include <string.h>

static const char *step_cell(const struct scenario_result *sr, int i)
{
	if (sr->steps[i].result == TL_NOTRUN && sr->result != TL_NOTRUN)
		return "-";
	return tl_result_name(sr->steps[i].result);
}

char *report_summary_text(const struct run_result *r)
{
	struct sbuf sb = { 0 };
	int counts[TL_CRASH + 1], lane_width = 4;

	sbuf_printf(&sb, "tunlab run %s\n", r->id ? r->id : "?");
	sbuf_printf(&sb, "kernel  %s\n", r->kernel ? r->kernel : "(L1 did not report)");
	sbuf_printf(&sb, "lsm     %s\n", r->lsm ? r->lsm : "(none reported)");
	sbuf_printf(&sb, "accel   %s (%s)\n\n", r->accel ? r->accel : "?",
		    r->accel_reason ? r->accel_reason : "");
	sbuf_printf(&sb, "%-8s %9s  %s%s%s\n", "RESULT", "TIME", "SCENARIO / STEP",
		    r->lane ? ", in lane " : "", r->lane ? r->lane : "");
	for (int i = 0; i < r->n; i++) {
		const struct scenario_result *sr = &r->s[i];

		sbuf_printf(&sb, "%-8s %8.2fs  %s:%d %s\n", tl_result_name(sr->result),
			    sr->ms / 1000.0, sr->sc->file, sr->sc->line, sr->sc->title);
		if (sr->reason && *sr->reason)
			sbuf_prefix_lines(&sb, "                      # ", sr->reason);
		for (int j = 0; j < sr->sc->nsteps; j++) {
			const struct step_result *st = &sr->steps[j];

			sbuf_printf(&sb, "  %-6s %8.2fs    %d. %s\n", step_cell(sr, j),
				    st->ms / 1000.0, j + 1, sr->sc->steps[j].text);
			if (st->msg && *st->msg)
				sbuf_prefix_lines(&sb, "                         # ", st->msg);
		}
	}
	for (int i = 0; i < r->nsuites; i++)
		if (r->suites[i].lane && (int)strlen(r->suites[i].lane) > lane_width)
			lane_width = (int)strlen(r->suites[i].lane);
	for (int i = 0; i < r->nsuites; i++) {
		const struct suite_result *su = &r->suites[i];

		if (!i)
			sbuf_printf(&sb, "\n%-8s %9s  %-*s  %s\n", "RESULT", "TIME", lane_width,
				    "LANE", "KTAP SUITE RUN INSIDE L1");
		sbuf_printf(&sb, "%-8s %8.2fs  %-*s  %s: %d ok, %d not ok, %d skipped%s%s\n",
			    tl_result_name(su->result), su->ms / 1000.0, lane_width,
			    su->lane ? su->lane : "?", su->name, su->n_ok, su->n_notok,
			    su->n_skip, su->reason ? "  # " : "", su->reason ? su->reason : "");
	}
	run_counts(r, counts);
	sbuf_printf(&sb, "\n%d scenarios: %d passed, %d failed, %d skipped, %d error, %d timeout, %d crash, %d not run; %.1f s\n",
		    r->n, counts[TL_PASS], counts[TL_FAIL], counts[TL_SKIP],
		    counts[TL_ERROR], counts[TL_TIMEOUT], counts[TL_CRASH],
		    counts[TL_NOTRUN], r->ms / 1000.0);
	if (r->infra_error)
		sbuf_printf(&sb, "lab: %s: %s\n", tl_result_name(r->infra_result),
			    r->infra_error);
	if (r->interrupted_by)
		sbuf_printf(&sb, "interrupted by SIG%s: this report is partial; the guests were stopped\n",
			    sigabbrev_np(r->interrupted_by) ? sigabbrev_np(r->interrupted_by) : "?");
	if (r->crash_kind)
		sbuf_printf(&sb, "kernel report (%s):\n%s", r->crash_kind,
			    r->crash_excerpt ? r->crash_excerpt : "");
	return sb.buf;
}
