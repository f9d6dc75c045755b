/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The VMX lane's L1: the lab kernel under Bochs, whose emulated CPU has
 * VMX (QEMU's TCG emulates only SVM), so that L1's kvm_intel runs.
 * Bochs boots the CD guest-image/vmx/ builds; each boot gets a copy with
 * a kernel command line of its own (the settings of kvm_intel, built in,
 * can only be given there). The console and the results leave through
 * two serial ports into FIFOs the runner reads.
 */
#ifndef TUNLAB_BOCHS_H
#define TUNLAB_BOCHS_H

#include <stdbool.h>
#include <stddef.h>

/* A kvm_intel setting the lane boots L1 with, named as it is written. */
struct vmx_setting {
	const char *name;
	const char *cmdline;
};

extern const struct vmx_setting vmx_settings[];
extern const int vmx_nsettings;

/* One boot's files, all in @tmpdir but the log; bochs_boot_free() removes them. */
struct bochs_boot {
	const char *image_dir;	/* boot.iso, bochsrc, continue.rc */
	const char *tmpdir;
	const char *log;	/* Bochs' own log */
	char *cfg;		/* /cmdline.cfg for it */
	char *cd;		/* the CD with this boot's command line */
	char *console;		/* FIFO: ttyS0 */
	char *results;		/* FIFO: ttyS1, tunlab.results= */
};

/*
 * Make @b's CD with @cmdline as the kernel command line (xorriso), and
 * its FIFOs. Returns 0, or -1 with what failed in @why.
 */
int bochs_prepare(struct bochs_boot *b, const char *cmdline, char *why, size_t size);
/* The command that runs Bochs on @b; free with argv_free(). */
char **bochs_argv(const struct bochs_boot *b);
/*
 * What Bochs said last before it ended (its last panic line, for Bochs
 * ends through a panic even when L1 powers off), or NULL.
 */
char *bochs_exit_message(const char *log);
/* L1 powered off: Bochs' ACPI saw the guest's soft power off. */
bool bochs_powered_off(const char *message);
void bochs_boot_free(struct bochs_boot *b);

#endif
