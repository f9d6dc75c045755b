/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tunguard as the executor sees it: policy and mode, a step that writes
 * them, and the decision log a step's records are checked against.
 */
#ifndef TUNLAB_TUNGUARD_H
#define TUNLAB_TUNGUARD_H

#include "executor.h"

struct tg_state {
	char *boot_policy;	/* what was in force before any scenario */
	char *boot_mode;
	char *force_mode;	/* tunlab.tgmode=: every scenario runs in it */
};

void tg_state_load(struct tg_state *tg);
void tg_state_free(struct tg_state *tg);
/* Write @policy and @mode (either may be NULL); -1 with @why. */
int tg_apply(const char *policy, const char *mode, struct sbuf *why);
/* The scenario changes policy or mode itself. */
bool uses_tunguard_steps(const struct scenario *sc);

/* The decision log's position now, or -errno when it cannot be read. */
long long tg_position(void);
/*
 * The records a step made since @pos must be exactly the ones it expects,
 * in order: a missing record and an unexpected one both fail it. The
 * records go to @records (to be freed); a mismatch is explained on @msg
 * after @sep.
 */
bool tg_check_step(const struct scn_step *st, long long pos, char **records,
		   const char *sep, struct sbuf *msg);

/* tunguard policy / tunguard mode: one write, as the actor. */
void tunguard_step(const struct scn_step *st, struct outcome *oc);

#endif
