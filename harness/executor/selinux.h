/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SELinux in L1, for the executor: whether the lab's policy is loaded,
 * the mode each scenario runs in, the context an actor execs into, and
 * each checked step's AVC records, read from the audit stream.
 */
#ifndef TUNLAB_SELINUX_H
#define TUNLAB_SELINUX_H

#include "executor.h"
#include "audit.h"
#include "common/verdict.h"

#define SELINUX_FS "/sys/fs/selinux"

struct se_state {
	struct audit_stream audit;
	char audit_error[256];	/* why there is no stream, or "" */
	int boot_enforce;	/* 1 enforcing, 0 permissive, -1 no SELinux */
	/* tunlab.selinux=: the lane asked for SELinux, in this mode; with
	 * permissive (the self-test) every scenario runs permissive, while
	 * under enforcing a scenario may still ask for permissive */
	char *lane_mode;
	char *lsm;		/* the active modules, /sys/kernel/security/lsm */
};

/* SELinux runs with a policy that knows TUN (the lab's). */
bool selinux_has_policy(void);
/* The mode L1 booted in and the audit stream, when @have has SELinux. */
void se_state_load(struct se_state *se, unsigned int have);
void se_state_free(struct se_state *se);

/* A scenario lacking @missing: a SKIP, or an error when SELinux was asked for. */
enum tl_result se_missing(const struct se_state *se, unsigned int missing, struct sbuf *why);
/*
 * Before a scenario's steps: its lsm order (a SKIP when L1 has another)
 * and its mode; *@changed says the mode must be restored after it.
 */
enum tl_result se_scenario_begin(const struct se_state *se, const struct scenario *sc,
				 unsigned int have, bool *changed, struct sbuf *why);
/* After a group whose scenario changed the mode: the boot mode again. */
void se_restore(const struct se_state *se, struct sbuf *why);

/* Before a step whose AVC records are checked: -1 (with @msg) if they cannot be. */
int se_step_begin(struct se_state *se, struct sbuf *msg);
/*
 * After it: its records, appended to *@records (one line each, after
 * tunguard's), against what it expects. TL_PASS, TL_FAIL (@msg says
 * what was seen), or TL_ERROR when the stream was lost.
 */
enum tl_result se_check_step(struct se_state *se, const struct scn_step *st, char **records,
			     const char *sep, struct sbuf *msg);

/*
 * The next execve() of this process enters @ctx: a type (this process's
 * user and role with that type, as runcon -t does) or a whole context.
 * -1 with @why, which names the context when the policy lacks it.
 */
int selinux_exec_context(const char *ctx, char *why, size_t size);

#endif
