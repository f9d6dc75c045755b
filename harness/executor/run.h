/* SPDX-License-Identifier: GPL-2.0 */
/* run PROGRAM ARGS...: any program in L1, its output streamed to L0. */
#ifndef TUNLAB_RUN_H
#define TUNLAB_RUN_H

#include "executor.h"

/*
 * Run step @step (a run step) as its actor. Every line the program writes
 * goes to L0 as it comes ("out" records); the outcome is its exit status
 * (kselftest's: 0 ok, 4 skip, else failed), the names of the TAP tests it
 * reported "not ok", and its last lines.
 */
/* @scn_timeout_s: the scenario's timeout directive (0: none), which a run step may use whole */
void act_run(struct exec_ctx *x, const struct scn_step *st, int step, int scn_timeout_s,
	     struct outcome *oc);

/* What a program's output said, for the step's outcome. */
struct run_tap {
	char not_ok[512];	/* "a, b": the top-level tests that ended not ok */
	char skip[256];		/* the reason of a "# SKIP" plan or result */
	char tail[768];		/* its last lines */
};

/*
 * Run @argv as @actor, its output streamed as "out" records of plan item
 * @idx ("-" when negative: tunlab run) and step @step, within @timeout_s.
 * Returns its wait status, or -1 with errno (it did not start); at the
 * timeout its process group is killed and *@timed_out set.
 */
int run_streamed(struct exec_ctx *x, char **argv, const struct scn_actor *actor, int idx,
		 int step, int timeout_s, bool *timed_out, struct run_tap *tap);

#endif
