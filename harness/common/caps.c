// SPDX-License-Identifier: GPL-2.0
#include "caps.h"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int caps_keep_only(uint64_t keep, bool raise)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		uint32_t k = (uint32_t)(keep >> (32 * i));

		d[i].permitted &= k;
		d[i].inheritable &= k;
		d[i].effective = raise ? d[i].permitted : d[i].effective & k;
	}
	return (int)syscall(SYS_capset, &h, d);
}

int caps_keep_across_exec(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	d[cap / 32].inheritable |= 1u << (cap % 32);
	if (syscall(SYS_capset, &h, d) < 0)
		return -1;
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0);
}
