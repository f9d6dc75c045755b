/* SPDX-License-Identifier: GPL-2.0 */
/* Nested L2 guests: QEMU under L1's KVM on a tap, with the L2 agent. */
#ifndef TUNLAB_GUESTS_H
#define TUNLAB_GUESTS_H

#include "executor.h"

void act_l2_boot(struct exec_ctx *x, const struct scenario *sc, const struct scn_step *st,
		 struct outcome *oc);
void act_l2_ping(struct exec_ctx *x, const struct scn_step *st, struct outcome *oc);
void act_l2_stop(struct exec_ctx *x, const struct scn_step *st, struct outcome *oc);
/* Stop every guest still running, forwarding its console to L0. */
void guests_teardown(struct exec_ctx *x);

#endif
