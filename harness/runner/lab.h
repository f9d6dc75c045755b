/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Booting L1 and running a plan in it. A hung L1 is killed at its timeout,
 * a crashed one is reported with the console excerpt, and what is left of
 * the plan goes on in a fresh L1: nothing already reported is lost.
 */
#ifndef TUNLAB_LAB_H
#define TUNLAB_LAB_H

#include <stdbool.h>

#include "accel.h"
#include "runner/report/result.h"
#include "plan.h"

/* The one program the VMX lane's image carries (guest-image/vmx/). */
#define VMX_PROGRAM "kvm-probes"

struct lab_opts {
	const char *qemu;
	const char *bios;
	const char *kernel;
	const char *initrd;
	const char *libvirt_layer;	/* appended for the boots that use libvirt */
	const char *extra_archive;	/* appended to every boot, e.g. tunlab run's program */
	enum accel accel;
	int mem_mb;
	int cpus;
	int boot_timeout_s;	/* L1 start to the executor's hello */
	int step_timeout_s;	/* longest silence from L1 during a scenario */
	int run_timeout_s;	/* the whole run */
	bool show_console;
	const char *cmdline_extra;	/* added to L1's kernel command line */
	int jobs;		/* L1s side by side, each with its share of the plan */
	/* what the first L1 runs besides scenarios (KUnit, KTAP programs), estimated:
	 * its share is that much smaller (ms) */
	long ktap_ms;
	/* the VMX lane's boots, estimated (ms): with several L1s, the last
	 * one's share is dealt one boot's worth of it smaller */
	long vmx_ms;
	const char *run_dir;
	/* the VMX lane's image (guest-image/vmx/ built), or NULL: no VMX lane */
	const char *vmx_image;
	bool vmx_only;		/* the VMX lane alone: no L1 under QEMU */
	/* the plan's tunlab.ktap= for the VMX lane's boots, where it differs
	 * from cmdline_extra's: a later shard runs no KTAP program under QEMU,
	 * but its VMX lane runs the plan's kvm-probes; NULL: cmdline_extra's */
	const char *vmx_ktap;
	/* added to the VMX lane's command line after cmdline_extra, or NULL */
	const char *vmx_cmdline_extra;
	/* called after each scenario ends, e.g. to rewrite the reports */
	void (*on_progress)(const struct run_result *r, void *ctx);
	void *ctx;
};

void lab_run(const struct lab_opts *o, const struct plan *s, struct run_result *r);
/* 0 if L1 boots to its init under o->accel and powers off cleanly. */
int lab_smoke(const struct lab_opts *o, int timeout_s);
/* Ask a running lab_run() to stop (signal handlers): @sig stopped the run. */
void lab_interrupt(int sig);
/* The signal that interrupted the run, or 0. */
int lab_interrupted(void);

#endif
