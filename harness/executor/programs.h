/* SPDX-License-Identifier: GPL-2.0 */
/* The KTAP suites L1 runs before the plan, and kvm-probes as a step. */
#ifndef TUNLAB_PROGRAMS_H
#define TUNLAB_PROGRAMS_H

#include "executor.h"

/*
 * KUnit's results from the kernel log (unless tunlab.kunit=0), then every KTAP
 * program in KTAP_DIR or those tunlab.ktap= names, each forwarded to L0
 * as a suite.
 */
void l1_suites_run(struct exec_ctx *x);

/* probe NAME [--bench] [--wrong]: kvm-probes, its output kept when it fails. */
void probe_step(const struct scn_step *st, struct outcome *oc);

#endif
