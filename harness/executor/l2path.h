/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which way a nested guest's packets went (`l2 ping ... path=`), judged on
 * counters L1 takes around the ping: KVM's exits, the guest's interrupts,
 * the wakeups of vhost's worker and of QEMU's main thread. Text in, a
 * verdict out: the executor reads the counters, this file judges them.
 */
#ifndef TUNLAB_L2PATH_H
#define TUNLAB_L2PATH_H

#include <stdbool.h>

#include "common/util.h"

enum l2_path {
	L2_PATH_VHOST,		/* kicks through ioeventfd to vhost, interrupts through irqfd */
	L2_PATH_USERSPACE,	/* QEMU moves the packets itself */
};

/* What one ping did; each count is the difference across the ping. */
struct l2path_evidence {
	unsigned int sent, replies;	/* S and R, from ping's summary */
	bool ioeventfd;			/* the guest was booted with ioeventfd on */
	bool kvm_found;			/* KVM's statistics for the guest's VM were read */
	unsigned long long mmio_exits;	/* the L2's MMIO exits to QEMU */
	bool irqs_found;		/* L2's virtio-net input vector was seen */
	unsigned long long input_irqs;	/* interrupts on that vector */
	bool vhost_worker;		/* a vhost-<QEMU pid> worker exists */
	unsigned long long vhost_wakeups;	/* its voluntary context switches */
	unsigned long long qemu_wakeups;	/* those of QEMU's main thread */
};

enum l2path_verdict {
	L2PATH_HOLDS,
	L2PATH_CHANGED,		/* the counters say another path */
	L2PATH_UNMEASURED,	/* a counter could not be read: the lab's failure */
};

/* "vhost" or "userspace" as a path; false for another word. */
bool l2path_parse(const char *word, enum l2_path *path);
const char *l2path_name(enum l2_path path);

/* busybox ping's "S packets transmitted, R packets received, ..." line. */
bool l2path_ping_counts(const char *line, unsigned int *sent, unsigned int *replies);
/* The interrupts of one line of /proc/interrupts, summed over CPUs. */
unsigned long long l2path_line_irqs(const char *line);
/*
 * The interrupts of L2's virtio-net input vector ("virtioN-input.0"),
 * summed over CPUs, from the virtio lines of L2's /proc/interrupts.
 */
bool l2path_input_irqs(const char *interrupts, unsigned long long *n);
/* voluntary_ctxt_switches from the text of /proc/PID/task/TID/status. */
bool l2path_voluntary_switches(const char *status, unsigned long long *n);

/*
 * Whether @ev shows @want. Unless it holds, @why gets
 * "path=P: what broke, expected ..." naming every piece of evidence that
 * broke (or the one that could not be read).
 */
enum l2path_verdict l2path_judge(enum l2_path want, const struct l2path_evidence *ev,
				 struct sbuf *why);
/* The counters, for the step's report. */
void l2path_describe(const struct l2path_evidence *ev, struct sbuf *out);

/*
 * Why an L2 was not ready by its deadline, from the agent's answer to the
 * "interrupts" command sent after it (NULL: no control connection; ""
 * no answer): appended to @why.
 */
void l2path_unready(const char *answer, struct sbuf *why);

#endif
