/* SPDX-License-Identifier: GPL-2.0 */
/* What a step did, held against what the scenario expects of it. */
#ifndef TUNLAB_OUTCOME_H
#define TUNLAB_OUTCOME_H

#include "executor.h"

/* Set @oc's errno (0: success) and what was attempted. */
void outcome_set(struct outcome *oc, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The step ended as @st expects: ok, a failure, or that errno. */
bool outcome_met(const struct scn_step *st, const struct outcome *oc);
/* The step's message: its detail when @ok, else what happened against what was expected. */
void outcome_describe(const struct scn_step *st, const struct outcome *oc, bool ok,
		      struct sbuf *msg);

#endif
