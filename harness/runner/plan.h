/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plan: which scenario files a run takes, all of them parsed before
 * anything boots. A folder is searched recursively for *.scn in sorted
 * order; a sub-folder called "selftest" (scenarios that are meant to fail,
 * used by `make test`) is searched only when it is named itself.
 */
#ifndef TUNLAB_PLAN_H
#define TUNLAB_PLAN_H

#include "common/scenario.h"

struct plan {
	int nfiles;
	struct scn_file *files;
	int n;				/* scenarios, in run order */
	const struct scenario **scenarios;
};

/*
 * Collect and parse @paths. Returns 0 when everything is valid; otherwise
 * -1 with the problems in @diags (unreadable paths included).
 */
int plan_load(struct plan *p, char *const *paths, int npaths,
	      struct scn_diags *diags);
void plan_free(struct plan *p);

/* Keep the scenarios with any of @tags, in order; how many are kept. */
int plan_keep_tags(struct plan *p, char **tags, int ntags);
/*
 * A scenario that continues another needs it right before it: -1, with
 * file:line: error on stderr, when the plan leaves one out.
 */
int plan_check_continues(const struct plan *p);

/*
 * What running @sc is expected to take, in milliseconds of the lab's L1
 * under TCG: a model of its steps (an L2's boot and its pings cost most)
 * fitted to a whole run, for dealing shares of about equal length. An
 * estimate, not a limit.
 */
long plan_cost(const struct scenario *sc);

/*
 * Deal @n scenarios into @nparts shares, the same way on every machine:
 * whole groups (a scenario and those that continue it), each in plan order
 * to the share whose estimated cost (plan_cost()) is least so far, the
 * lowest-numbered on a tie. Share p starts at @head_ms[p], what it runs
 * besides scenarios (NULL: nothing). Sets part_of[i] in 0..nparts-1;
 * returns the number of groups. Both the L1s of one run (-j) and the
 * shards of a plan (--shard) are dealt this way.
 */
int plan_deal(const struct scenario *const *scenarios, int n, int nparts, const long *head_ms,
	      int *part_of);

#endif
