/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which accelerator runs L1: KVM only where the CPU advertises vmx or svm
 * *and* a smoke boot under KVM works (some hosts expose a /dev/kvm that
 * cannot run ordinary guests); TCG otherwise. ACCEL=tcg|kvm overrides.
 */
#ifndef TUNLAB_ACCEL_H
#define TUNLAB_ACCEL_H


enum accel {
	ACCEL_TCG,
	ACCEL_KVM,
};

struct accel_choice {
	enum accel accel;
	char reason[160];
};

/* Returns 0 when the smoke boot under KVM succeeded. */
typedef int (*accel_smoke_fn)(void *ctx);

/*
 * @override: NULL/"" for automatic, else "tcg" or "kvm".
 * @cpuinfo: text of /proc/cpuinfo (may be NULL if unreadable).
 * Returns -1 (with @out->reason set) for an invalid override.
 */
int accel_choose(const char *override, const char *cpuinfo,
		 accel_smoke_fn smoke, void *ctx, struct accel_choice *out);
const char *accel_name(enum accel a);

#endif
