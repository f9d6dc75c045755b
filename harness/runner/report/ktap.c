// SPDX-License-Identifier: GPL-2.0
/*
 * report.ktap: the run in KTAP v1 so kernel tooling can read it: one
 * subtest per scenario with one result line per step, then each KTAP
 * suite L1 ran, its own lines nested one level down, named with the lane
 * (the L1's machine and CPU vendor) it ran in.
 */
#include "report.h"
#include "common/ktap.h"

#include <stdlib.h>
#include <string.h>

static void result_line(struct sbuf *sb, int depth, int n, enum tl_result r,
			const char *name, const char *reason)
{
	const char *directive = NULL;

	if (r == TL_SKIP)
		directive = "SKIP";
	else if (r == TL_TIMEOUT)
		directive = "TIMEOUT";
	else if (r == TL_CRASH || r == TL_ERROR || r == TL_NOTRUN)
		directive = "ERROR";
	ktap_result(sb, depth, r == TL_PASS || r == TL_SKIP, n, name, directive, reason);
}

/*
 * What a run step's program wrote, before the step's result line: its own
 * TAP or KTAP nested as the step's subtests, anything else as diagnostics.
 */
static void step_output(struct sbuf *sb, const struct step_output *out)
{
	bool tap = false;

	for (int k = 0; k < out->n; k++) {
		if (!out->lines[k][0])
			continue;
		tap = !strncmp(out->lines[k], "TAP version ", 12) ||
		      !strncmp(out->lines[k], "KTAP version ", 13);
		break;
	}
	for (int k = 0; k < out->n; k++) {
		if (tap)
			ktap_nest(sb, 2, out->lines[k]);
		else
			ktap_diag(sb, 1, out->lines[k]);
	}
}

static void scenario_subtest(struct sbuf *sb, const struct scenario_result *sr, int n)
{
	char *name = xasprintf("%s:%d %s", sr->sc->file, sr->sc->line, sr->sc->title);

	ktap_subtest(sb, 1, name, sr->sc->nsteps);
	for (int j = 0; j < sr->sc->nsteps; j++) {
		const struct step_result *st = &sr->steps[j];
		enum tl_result res = st->result;
		const char *why = st->msg;

		if (res == TL_NOTRUN && sr->result != TL_NOTRUN) {
			res = TL_SKIP;
			why = "not run: an earlier step failed";
		}
		ktap_diagf(sb, 1, "step %d took %.0f ms", j + 1, st->ms);
		if (st->msg && *st->msg && res != TL_SKIP)
			ktap_diag(sb, 1, st->msg);
		if (sr->out)
			step_output(sb, &sr->out[j]);
		result_line(sb, 1, j + 1, res, sr->sc->steps[j].text, why);
	}
	ktap_diagf(sb, 0, "%s took %.0f ms", name, sr->ms);
	result_line(sb, 0, n, sr->result, name, sr->reason);
	free(name);
}

static void l1_suite(struct sbuf *sb, const struct suite_result *su, int n)
{
	char *title = suite_title(su);

	for (int j = 0; j < su->nlines; j++)
		ktap_nest(sb, 1, su->lines[j]);
	ktap_diagf(sb, 0, "%s took %.0f ms", title, su->ms);
	result_line(sb, 0, n, su->result, title, su->reason);
	free(title);
}

char *report_ktap_text(const struct run_result *r)
{
	struct sbuf sb = { 0 };

	ktap_version(&sb, 0);
	ktap_diagf(&sb, 0, "tunlab run %s kernel %s accel %s", r->id ? r->id : "?",
		   r->kernel ? r->kernel : "?", r->accel ? r->accel : "?");
	ktap_plan(&sb, 0, r->n + r->nsuites);
	for (int i = 0; i < r->n; i++)
		scenario_subtest(&sb, &r->s[i], i + 1);
	for (int i = 0; i < r->nsuites; i++)
		l1_suite(&sb, &r->suites[i], r->n + i + 1);
	if (r->infra_error)
		ktap_diag(&sb, 0, r->infra_error);
	if (r->crash_kind) {
		ktap_diagf(&sb, 0, "kernel report (%s):", r->crash_kind);
		ktap_diag(&sb, 0, r->crash_excerpt);
	}
	return sb.buf;
}
