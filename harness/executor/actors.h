/* SPDX-License-Identifier: GPL-2.0 */
/* Actor processes: a step run as the actor the scenario names. */
#ifndef TUNLAB_ACTORS_H
#define TUNLAB_ACTORS_H

#include "executor.h"

/* Take on @a's namespaces, ids and capabilities; -1 with @why. */
int become_actor(const struct scn_actor *a, char *why, size_t size);
/* Run step @step of @sc (TUN, iproute2, tunguard, probes) in its actor's process. */
void act_in_process(struct exec_ctx *x, const struct scenario *sc, int step,
		    struct outcome *oc);
/* A duplicate of the descriptor @proc keeps as @handle, or -1 (@oc says why). */
int proc_fetch_fd(struct exec_ctx *x, const struct scenario *sc, const char *proc,
		  const char *handle, struct outcome *oc);
/* End every named process of the scenario, closing what it holds. */
void procs_teardown(struct exec_ctx *x);
/*
 * tunlab-exec --actor FD FILE: an actor process back after its exec into
 * its SELinux context; it reads FILE again and obeys on socket FD.
 */
int actor_main(int sock, const char *file);

#endif
