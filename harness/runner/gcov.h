/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's gcov counters L1 sends with tunlab.gcov=1 ("gcov" records,
 * executor/gcov.c), written under the run's folder for
 * harness/runner/coverage.sh: RUN/gcov/boot-N/PATH, one set per L1 boot
 * that sent them (a fresh L1 after a crash starts its counters at zero,
 * so the sets are added up, not replaced).
 */
#ifndef TUNLAB_RUNNER_GCOV_H
#define TUNLAB_RUNNER_GCOV_H

/*
 * Write counter file @rel (its path under the kernel's gcov folder) of
 * boot set @set, @b64 its bytes in base64, to @run_dir/gcov/boot-@set/@rel.
 * NULL, or why not (a path that would leave the folder or is no .gcda,
 * bytes that are not base64, a write that failed); free it.
 */
char *gcov_store(const char *run_dir, int set, const char *rel, const char *b64);

#endif
