/* SPDX-License-Identifier: GPL-2.0 */
/* The plan L1 runs, group by group. */
#ifndef TUNLAB_GROUPS_H
#define TUNLAB_GROUPS_H

#include "executor.h"
#include "tunguard.h"

/* One scenario of the plan, as the runner bundled it. */
struct plan_item {
	int idx;			/* its index in the runner's plan */
	struct scn_file file;
	const struct scenario *sc;	/* NULL: the file did not parse */
	char *error;
};

/*
 * Run @items (a group at a time: a scenario and those right after it that
 * continue it) with the features in @have. With @fail_fast, stop after
 * the first group that does not pass.
 */
void plan_run(struct exec_ctx *x, struct plan_item *items, int n, unsigned int have,
	      const struct tg_state *tg, bool fail_fast);

#endif
