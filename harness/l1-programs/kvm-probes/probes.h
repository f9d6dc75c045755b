/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probes kvm-probes runs, each in its own file. A probe reports its
 * checks through @t and never exits the program.
 */
#ifndef KVM_PROBES_PROBES_H
#define KVM_PROBES_PROBES_H

#include <stdbool.h>

#include "common/util.h"
#include "l1-programs/lib/ktest.h"

struct probe_opts {
	bool bench;	/* print benchmark figures as diagnostics */
	bool wrong;	/* run against a guest that skips its write: must fail */
};

void probe_ioeventfd(struct ktest *t, const struct probe_opts *o);
void probe_irqfd(struct ktest *t, const struct probe_opts *o);
void probe_realmode(struct ktest *t, const struct probe_opts *o);

#endif
