/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The QEMU command line that boots L1: qboot, no NIC (-nic none), no
 * reboot, the console on stdio for the runner to log and scan, results on
 * a named virtio-serial port connected to the runner's socket.
 */
#ifndef TUNLAB_QEMU_H
#define TUNLAB_QEMU_H

#include <stdbool.h>

#include "accel.h"

#define RESULTS_PORT_NAME "tunlab.results"

/*
 * How every L1's kernel command line starts: the console on the first
 * serial port, a reboot (QEMU: an exit) on panic, and warnings (level 4)
 * on the console, so that the scanner sees them. no_timer_check: under TCG
 * on a loaded host the IO-APIC timer check can miss its ticks and panic
 * ("IO-APIC + timer doesn't work!", seen at load 11 on 2 cores); the timer
 * works, only the check's timing assumption does not hold in an emulator.
 */
#define L1_CMDLINE "console=ttyS0 panic=-1 loglevel=5 no_timer_check"

struct l1_config {
	const char *qemu;		/* qemu-system-x86_64 */
	const char *bios;		/* qboot.rom */
	const char *kernel;
	const char *initrd;
	const char *results_socket;	/* unix socket the runner listens on */
	const char *cmdline_extra;	/* appended to the kernel command line */
	enum accel accel;
	int mem_mb;
	int cpus;
	bool smoke;			/* boot, report, power off */
};

/* A NULL-terminated argv; free with argv_free(). */
char **l1_qemu_argv(const struct l1_config *c);
/*
 * The lane an L1 under QEMU is, e.g. "qemu-tcg svm": the accelerator and
 * the virtualization flag of the CPU L1 saw, from the executor's
 * comma-separated @features.
 */
char *qemu_lane(enum accel accel, const char *features);

#endif
