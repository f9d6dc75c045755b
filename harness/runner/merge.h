/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tunlab merge: the runs of a sharded plan (tunlab --shard K/N) joined into
 * one run whose report files say what the unsharded run's say, times and
 * run id apart. Each shard's report.json carries every scenario it ran with
 * its position in the whole plan and the plan's size, so the merge reads
 * no scenario file and can run on a machine that has none of them.
 */
#ifndef TUNLAB_MERGE_H
#define TUNLAB_MERGE_H

#include "runner/report/result.h"

struct merged_run {
	struct run_result r;
	struct scenario *scenarios;	/* r.s[i].sc points here */
	int nscenarios;
};

/*
 * Read the report.json of each run folder in @dirs into @m. Returns 0, or
 * -1 with what is wrong in @err (a file that is not a tunlab report, shards
 * of different plans, a plan position given twice or by no shard).
 */
int merge_runs(char *const *dirs, int ndirs, struct merged_run *m, struct sbuf *err);

/* Read one report.json text into @m, appending to what it holds. */
int merge_add_report(struct merged_run *m, const char *text, const char *what,
		     struct sbuf *err);
/* Check that every plan position came from exactly one shard. */
int merge_finish(struct merged_run *m, struct sbuf *err);
void merged_run_free(struct merged_run *m);

#endif
