/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The L1 executor's pieces: how a step is carried out (actors, TUN
 * ioctls, iproute2, nested guests) and what it produced.
 */
#ifndef TUNLAB_EXEC_H
#define TUNLAB_EXEC_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/scenario.h"
#include "common/util.h"

#define EXEC_MAX_GUESTS 8
#define IP_PATH "/sbin/ip"
#define LAB_DIR "/lab"
#define RUN_DIR "/run/tunlab"
#define TG_DIR "/sys/kernel/security/tunguard"
#define PROBES_PATH "/usr/lib/tunlab/ktap/kvm-probes"

/* What one step did. err: 0 success, an errno, or -1 (failed, no errno). */
struct outcome {
	int err;
	bool broken;		/* the lab itself failed (fork, exec, ...) */
	char what[256];		/* what was attempted, e.g. ioctl(TUNSETIFF, lab0) */
	char detail[1024];	/* output worth showing: stderr, ping summary */
};

/*
 * A nested L2 guest: its QEMU under L1's KVM. (A "vm" is a bare KVM VM,
 * as kvm-probes makes them.)
 */
struct guest {
	char name[16];
	pid_t pid;		/* its QEMU */
	int ctl;		/* control socket to the guest's agent */
	char dir[64];
	bool used;
};

#define EXEC_MAX_PROCS 16

/* A named actor process (as NAME=ACTOR) of the running scenario. */
struct actor_proc {
	char name[SCN_NAME_MAX];
	pid_t pid;
	int sock;
};

struct exec_ctx {
	FILE *out;		/* results port */
	int idx;		/* plan index of the running scenario */
	struct guest guests[EXEC_MAX_GUESTS];
	struct actor_proc procs[EXEC_MAX_PROCS];
	int step_timeout_s;
	char *step_records;	/* decision records the last step produced, if checked */
};

void outcome_set(struct outcome *oc, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Run step @step of @sc (TUN, iproute2, handles) in its actor's process. */
void act_in_process(struct exec_ctx *x, const struct scenario *sc, int step,
		    struct outcome *oc);
/* End every named process of the scenario, closing what it holds. */
void procs_teardown(struct exec_ctx *x);
/* Take on @a's namespaces, ids and capabilities; -1 with @why. */
int become_actor(const struct scn_actor *a, char *why, size_t size);
/* Nested guests. */
void act_l2_boot(struct exec_ctx *x, const struct scenario *sc, const struct scn_step *st,
		 struct outcome *oc);
/* A duplicate of the descriptor @proc keeps as @handle, or -1 (@oc says why). */
int proc_fetch_fd(struct exec_ctx *x, const struct scenario *sc, const char *proc,
		  const char *handle, struct outcome *oc);
void act_l2_ping(struct exec_ctx *x, const struct scn_step *st, struct outcome *oc);
void act_l2_stop(struct exec_ctx *x, const struct scn_step *st, struct outcome *oc);
/* Stop every guest still running, forwarding its console to L0. */
void guests_teardown(struct exec_ctx *x);

/*
 * Run @path with @argv, its stdout and stderr collected in @out. Returns
 * its wait status, or -1 with errno when it could not be started.
 */
int run_captured(const char *path, char **argv, struct sbuf *out);

#endif
