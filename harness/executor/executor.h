/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every part of the L1 executor shares: where things are in L1, what
 * a step did (struct outcome), and the executor's running state. The
 * parts have a header each; this one includes none of them.
 */
#ifndef TUNLAB_EXECUTOR_H
#define TUNLAB_EXECUTOR_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/scenario.h"
#include "common/util.h"

#define IP_PATH "/sbin/ip"
#define LAB_DIR "/lab"
#define RUN_DIR "/run/tunlab"
#define TG_DIR "/sys/kernel/security/tunguard"
#define KTAP_DIR "/usr/lib/tunlab/ktap"
#define PROBES_PATH KTAP_DIR "/kvm-probes"
/* this program: an actor with an SELinux context execs it again */
#define EXEC_SELF "/usr/bin/tunlab-exec"

/* What one step did. err: 0 success, an errno, or -1 (failed, no errno). */
struct outcome {
	int err;
	bool broken;		/* the lab itself failed (fork, exec, ...) */
	char what[256];		/* what was attempted, e.g. ioctl(TUNSETIFF, lab0) */
	char detail[1024];	/* output worth showing: stderr, ping summary */
	bool skipped;		/* the program said it cannot run here (KSFT_SKIP) */
	char not_ok[512];	/* run: the TAP tests it reported not ok, "a, b" */
};

/*
 * A nested L2 guest: its QEMU under L1's KVM. (A "vm" is a bare KVM VM,
 * as kvm-probes makes them.)
 */
struct guest {
	char name[16];
	pid_t pid;		/* its QEMU, or the libvirt launcher that started it */
	pid_t qemu;		/* its QEMU */
	int ctl;		/* control socket to the guest's agent */
	char dir[64];
	bool used;
	bool no_ioeventfd;	/* booted with ioeventfd=off on its virtio-net */
};

#define EXEC_MAX_GUESTS 8
#define EXEC_MAX_PROCS 16

/* A named actor process (as NAME=ACTOR) of the running scenario. */
struct actor_proc {
	char name[SCN_NAME_MAX];
	pid_t pid;
	int sock;
};

struct se_state;

struct exec_ctx {
	FILE *out;		/* results port */
	int idx;		/* plan index of the running scenario */
	struct guest guests[EXEC_MAX_GUESTS];
	struct actor_proc procs[EXEC_MAX_PROCS];
	int step_timeout_s;
	char *step_records;	/* decision records the last step produced, if checked */
	struct se_state *selinux;	/* SELinux's boot mode and audit stream (selinux.h) */
	/*
	 * Shared with the parent of a scenario's process, which reports for it
	 * if it dies: the scenario begun and not ended (-1: none), and how many
	 * of its group have begun.
	 */
	struct group_progress *progress;
};

struct group_progress {
	int open_idx;
	int begun;
};

#endif
