/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel coverage (make coverage): with tunlab.gcov=1 on L1's command
 * line, the gcov counters of the files the debug kernel profiles
 * (kernel/kernel.mk, KERNEL_GCOV_PROFILE), read once the plan has run and
 * sent to L0, where harness/runner/coverage.sh turns them into a report.
 */
#ifndef TUNLAB_EXEC_GCOV_H
#define TUNLAB_EXEC_GCOV_H

#include <stdio.h>

/* where the kernel's gcov files are (kernel/gcov/fs.c) */
#define GCOV_DIR "/sys/kernel/debug/gcov"

/*
 * Send every .gcda file under @root to @out as a "gcov" record (its path
 * below @root, its bytes in base64), then the "gcov" suite: not ok when
 * @root is missing or holds no counters, or a file could not be read.
 */
void gcov_send(FILE *out, const char *root);

#endif
