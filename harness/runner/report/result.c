// SPDX-License-Identifier: GPL-2.0
#include "result.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void run_init(struct run_result *r, const struct scenario *const *plan, int n)
{
	memset(r, 0, sizeof(*r));
	r->session_exit = -1;
	r->n = n;
	r->plan_size = n;
	r->s = xcalloc((size_t)n, sizeof(*r->s));
	for (int i = 0; i < n; i++) {
		r->s[i].sc = plan[i];
		r->s[i].index = i;
		r->s[i].steps = xcalloc((size_t)plan[i]->nsteps, sizeof(struct step_result));
		r->s[i].out = xcalloc((size_t)plan[i]->nsteps, sizeof(struct step_output));
	}
}

void run_free(struct run_result *r)
{
	for (int i = 0; i < r->n; i++) {
		for (int j = 0; j < r->s[i].sc->nsteps; j++) {
			free(r->s[i].steps[j].msg);
			free(r->s[i].steps[j].decisions);
			for (int k = 0; r->s[i].out && k < r->s[i].out[j].n; k++)
				free(r->s[i].out[j].lines[k]);
			if (r->s[i].out)
				free(r->s[i].out[j].lines);
		}
		free(r->s[i].steps);
		free(r->s[i].out);
		free(r->s[i].reason);
	}
	for (int i = 0; i < r->nsuites; i++) {
		for (int j = 0; j < r->suites[i].nlines; j++)
			free(r->suites[i].lines[j]);
		free(r->suites[i].lines);
		free(r->suites[i].name);
		free(r->suites[i].lane);
		free(r->suites[i].reason);
	}
	for (int i = 0; i < r->nlogs; i++) {
		free(r->logs[i].source);
		free(r->logs[i].line);
	}
	free(r->suites);
	free(r->logs);
	free(r->s);
	free(r->id);
	free(r->shard);
	free(r->kernel);
	free(r->lsm);
	free(r->accel);
	free(r->accel_reason);
	free(r->lane);
	free(r->crash_kind);
	free(r->crash_excerpt);
	free(r->infra_error);
	memset(r, 0, sizeof(*r));
}

static bool same_lane(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

struct suite_result *run_suite(struct run_result *r, const char *name, const char *lane)
{
	struct suite_result *s;

	for (int i = 0; i < r->nsuites; i++)
		if (!strcmp(r->suites[i].name, name) && same_lane(r->suites[i].lane, lane))
			return &r->suites[i];
	r->suites = xrealloc(r->suites, sizeof(*r->suites) * (size_t)(r->nsuites + 1));
	s = &r->suites[r->nsuites++];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->lane = lane ? xstrdup(lane) : NULL;
	s->status = -1;
	return s;
}

char *suite_title(const struct suite_result *s)
{
	return s->lane ? xasprintf("%s [%s]", s->name, s->lane) : xstrdup(s->name);
}

/* "ok 3 name # SKIP why" at some indentation: 1 ok, 2 not ok, 3 skip. */
static int ktap_result_kind(const char *line, int *indent)
{
	const char *s = line;

	while (*s == ' ')
		s++;
	*indent = (int)(s - line);
	if (!strncmp(s, "not ok ", 7))
		return 2;
	if (strncmp(s, "ok ", 3))
		return 0;
	s = strchr(s, '#');
	if (s) {
		s++;
		while (*s == ' ')
			s++;
		if (!strncasecmp(s, "SKIP", 4))
			return 3;
	}
	return 1;
}

void suite_result_judge(struct suite_result *s)
{
	int top = -1;

	s->n_ok = s->n_notok = s->n_skip = 0;
	for (int i = 0; i < s->nlines; i++) {
		int indent;

		if (ktap_result_kind(s->lines[i], &indent) && (top < 0 || indent < top))
			top = indent;
	}
	for (int i = 0; i < s->nlines; i++) {
		int indent, k = ktap_result_kind(s->lines[i], &indent);

		if (!k || indent != top)
			continue;
		s->n_ok += k == 1;
		s->n_notok += k == 2;
		s->n_skip += k == 3;
	}
	free(s->reason);
	s->reason = NULL;
	/* -1: KUnit, which has no exit status; its lines decide */
	if (s->status != -1 && ksft_result(s->status) == TL_ERROR) {
		s->result = TL_ERROR;
		s->reason = xasprintf("exited with status %d", s->status);
	} else if (s->status == KSFT_FAIL || s->n_notok) {
		s->result = TL_FAIL;
		s->reason = xasprintf("%d of %d top-level tests failed", s->n_notok,
				      s->n_ok + s->n_notok + s->n_skip);
	} else if (top < 0) {
		s->result = TL_ERROR;
		s->reason = xstrdup("no KTAP result lines");
	} else if (s->status == KSFT_SKIP || !s->n_ok) {
		s->result = TL_SKIP;
	} else {
		s->result = TL_PASS;
	}
}

void scenario_result_settle(struct scenario_result *sr)
{
	enum tl_result worst = TL_PASS;

	if (sr->result != TL_NOTRUN)
		return;
	for (int i = 0; i < sr->sc->nsteps; i++) {
		enum tl_result s = sr->steps[i].result;

		if (s == TL_FAIL || s == TL_ERROR || s == TL_TIMEOUT || s == TL_CRASH) {
			worst = s;
			break;
		}
		if (s == TL_NOTRUN) {
			worst = TL_NOTRUN;
			break;
		}
	}
	sr->result = worst;
}

static int rank(enum tl_result r)
{
	switch (r) {
	case TL_CRASH:
		return 6;
	case TL_TIMEOUT:
		return 5;
	case TL_FAIL:
	case TL_NOTRUN:
		return 4;
	case TL_ERROR:
		return 3;
	case TL_SKIP:
		return 1;
	case TL_PASS:
		return 0;
	}
	return 4;
}

enum tl_exit_code run_exit_code(const struct run_result *r)
{
	int worst = r->infra_error ? rank(r->infra_result) : 0, skipped = 0;

	/* a run cut short says so first, as a shell does: 128 + the signal */
	if (r->interrupted_by)
		return (enum tl_exit_code)(TL_EXIT_SIGNAL + r->interrupted_by);
	if (r->crash_kind)
		worst = rank(TL_CRASH);
	for (int i = 0; i < r->n; i++) {
		int k = rank(r->s[i].result);

		if (k > worst)
			worst = k;
		skipped += r->s[i].result == TL_SKIP;
	}
	for (int i = 0; i < r->nsuites; i++) {
		int k = rank(r->suites[i].result);

		if (k > worst)
			worst = k;
	}
	switch (worst) {
	case 6:
		return TL_EXIT_CRASH;
	case 5:
		return TL_EXIT_TIMEOUT;
	case 4:
		return TL_EXIT_FAIL;
	case 3:
		return TL_EXIT_SETUP;
	}
	if (r->n && skipped == r->n)
		return TL_EXIT_SKIP;
	return TL_EXIT_PASS;
}

void run_counts(const struct run_result *r, int counts[TL_CRASH + 1])
{
	memset(counts, 0, sizeof(int) * (TL_CRASH + 1));
	for (int i = 0; i < r->n; i++)
		counts[r->s[i].result]++;
}
