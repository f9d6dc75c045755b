/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What /proc/cpuinfo says about hardware virtualization: the runner reads
 * it on L0 to pick L1's accelerator, the executor in L1 to tell which
 * scenarios can run there.
 */
#ifndef TUNLAB_CPUINFO_H
#define TUNLAB_CPUINFO_H

#include <stdbool.h>

/* @flag is a whole word of the first "flags" line of @cpuinfo (may be NULL). */
bool cpuinfo_has_flag(const char *cpuinfo, const char *flag);
/* "vmx", "svm" or NULL: the virtualization flag in @cpuinfo. */
const char *cpuinfo_virt_flag(const char *cpuinfo);

#endif
