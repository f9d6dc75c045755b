// SPDX-License-Identifier: GPL-2.0
#include "accel.h"

#include <stdio.h>
#include <string.h>

const char *accel_name(enum accel a)
{
	return a == ACCEL_KVM ? "kvm" : "tcg";
}

bool cpuinfo_has_flag(const char *cpuinfo, const char *flag)
{
	const char *line = cpuinfo;
	size_t fl = strlen(flag);

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		if (!strncmp(line, "flags", 5)) {
			const char *colon = memchr(line, ':', len);

			for (const char *p = colon; p && p < line + len; p++) {
				if (*p == ' ' && !strncmp(p + 1, flag, fl) &&
				    (p + 1 + fl == line + len || p[1 + fl] == ' '))
					return true;
			}
			return false;	/* the first CPU speaks for all */
		}
		line = eol ? eol + 1 : NULL;
	}
	return false;
}

const char *cpuinfo_virt_flag(const char *cpuinfo)
{
	if (!cpuinfo)
		return NULL;
	if (cpuinfo_has_flag(cpuinfo, "vmx"))
		return "vmx";
	if (cpuinfo_has_flag(cpuinfo, "svm"))
		return "svm";
	return NULL;
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
