/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one result model every report writer reads: a run holds one result
 * per planned scenario, each with one result per step. Filled by the L0
 * runner from the results-port records and from what it saw on the
 * console.
 */
#ifndef TUNLAB_RESULT_H
#define TUNLAB_RESULT_H

#include "common/scenario.h"
#include "common/util.h"
#include "common/verdict.h"

struct step_result {
	enum tl_result result;
	double ms;
	char *msg;
	char *decisions;	/* the records the step made, when it checked them */
};

/* What a run step's program wrote, line by line. */
struct step_output {
	int n;
	char **lines;
};

struct scenario_result {
	const struct scenario *sc;
	enum tl_result result;
	double ms;
	char *reason;
	struct step_result *steps;	/* sc->nsteps entries */
	struct step_output *out;	/* sc->nsteps entries; NULL: not kept (merged runs) */
	int index;		/* position in the whole plan (a shard runs part of it) */
};

/*
 * A KTAP suite from inside L1: the kernel's KUnit suites and every program
 * in L1's /usr/lib/tunlab/ktap/ (probes, module checks). Judged by its
 * exit status (0 pass, 1 fail, 4 skip; -1 for KUnit, which has none) and
 * by its top-level result lines.
 */
struct suite_result {
	char *name;
	char *lane;		/* the L1 it ran in, e.g. "qemu-tcg svm"; NULL: unknown */
	enum tl_result result;
	char *reason;
	double ms;
	int status;
	int nlines;
	char **lines;
	int n_ok, n_notok, n_skip;
};

struct log_line {
	int idx;
	char *source;
	char *line;
};

/* Fatal-to-the-run events: hang, crash, QEMU failing to start. */
enum tl_exit_code {
	TL_EXIT_PASS = 0,
	TL_EXIT_FAIL = 1,
	TL_EXIT_USAGE = 2,
	TL_EXIT_SETUP = 3,
	TL_EXIT_SKIP = 4,
	TL_EXIT_TIMEOUT = 124,
	TL_EXIT_CRASH = 125,
	TL_EXIT_SIGNAL = 128,	/* + the signal that interrupted the run: 130 for Ctrl-C */
};

struct run_result {
	char *id;
	char *kernel;		/* release reported by L1 */
	char *lsm;		/* L1's active security modules, in order */
	char *accel;
	char *accel_reason;
	char *lane;		/* the L1 the scenarios ran in, e.g. "qemu-tcg svm" */
	double ms;
	int n;
	struct scenario_result *s;
	int plan_size;		/* scenarios in the whole plan: n unless sharded */
	char *shard;		/* "K/N" for a shard run (tunlab --shard), else NULL */
	int interrupted_by;	/* the signal that stopped the run (SIGINT: Ctrl-C), or 0 */
	int nsuites;
	struct suite_result *suites;
	int nlogs;
	struct log_line *logs;
	/* L1-level problems, outside any one scenario */
	char *crash_kind;	/* first kernel report seen on a console */
	char *crash_excerpt;
	char *infra_error;	/* e.g. QEMU did not start, L1 hung at boot */
	enum tl_result infra_result;
	int session_exit;	/* tunlab run, tunlab shell: the status L1 sent; -1 none */
	int gcov_sets;		/* boots whose gcov counters are in RUN/gcov/boot-N */
};

void run_init(struct run_result *r, const struct scenario *const *plan, int n);
void run_free(struct run_result *r);

/* The suite called @name from the L1 of @lane (may be NULL), created if new. */
struct suite_result *run_suite(struct run_result *r, const char *name, const char *lane);
/* "NAME [LANE]", or NAME where the lane is unknown; free it. */
char *suite_title(const struct suite_result *s);
/* Judge a suite once all its lines and its exit status are in. */
void suite_result_judge(struct suite_result *s);

/* Derive the scenario's result from its steps (if not set explicitly). */
void scenario_result_settle(struct scenario_result *sr);

/*
 * The exit code contract (README "Exit status"):
 * crash 125 > timeout 124 > fail 1 > setup error 3 > all skipped 4 > pass 0.
 * A scenario that never ran counts as a failure.
 */
enum tl_exit_code run_exit_code(const struct run_result *r);

/* Counts by result, for summaries. */
void run_counts(const struct run_result *r, int counts[TL_CRASH + 1]);

#endif
