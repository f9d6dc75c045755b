/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suite: which scenario files a run takes, all of them parsed before
 * anything boots. A folder is searched recursively for *.scn in sorted
 * order; a sub-folder called "selftest" (scenarios that are meant to fail,
 * used by `make test`) is searched only when it is named itself.
 */
#ifndef TUNLAB_SUITE_H
#define TUNLAB_SUITE_H

#include "common/scenario.h"

struct suite {
	int nfiles;
	struct scn_file *files;
	int n;				/* scenarios, in run order */
	const struct scenario **plan;
};

/*
 * Collect and parse @paths. Returns 0 when everything is valid; otherwise
 * -1 with the problems in @diags (unreadable paths included).
 */
int suite_load(struct suite *s, char *const *paths, int npaths,
	       struct scn_diags *diags);
void suite_free(struct suite *s);

#endif
