// SPDX-License-Identifier: GPL-2.0
#include "accel.h"
#include "common/cpuinfo.h"

#include <stdio.h>
#include <string.h>

const char *accel_name(enum accel a)
{
	return a == ACCEL_KVM ? "kvm" : "tcg";
}

int accel_choose(const char *override, const char *cpuinfo,
		 accel_smoke_fn smoke, void *ctx, struct accel_choice *out)
{
	const char *flag;

	if (override && *override) {
		if (!strcmp(override, "tcg") || !strcmp(override, "kvm")) {
			out->accel = strcmp(override, "kvm") ? ACCEL_TCG : ACCEL_KVM;
			snprintf(out->reason, sizeof(out->reason),
				 "ACCEL=%s requested", override);
			return 0;
		}
		out->accel = ACCEL_TCG;
		snprintf(out->reason, sizeof(out->reason),
			 "invalid ACCEL='%s': expected 'tcg' or 'kvm'", override);
		return -1;
	}
	flag = cpuinfo_virt_flag(cpuinfo);
	out->accel = ACCEL_TCG;
	if (!flag) {
		snprintf(out->reason, sizeof(out->reason),
			 "no vmx/svm in /proc/cpuinfo");
		return 0;
	}
	if (smoke(ctx)) {
		snprintf(out->reason, sizeof(out->reason),
			 "cpu has %s but a KVM smoke boot failed", flag);
		return 0;
	}
	out->accel = ACCEL_KVM;
	snprintf(out->reason, sizeof(out->reason),
		 "cpu has %s and a KVM smoke boot succeeded", flag);
	return 0;
}
