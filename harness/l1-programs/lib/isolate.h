/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A test run in a child of its own with a timeout, so that a crash or a
 * hang ends that test and not the program. The child leads a process
 * group of its own: whatever it started (workers, processes acting as
 * other users) is killed with it before the caller's teardown runs.
 */
#ifndef TUNLAB_ISOLATE_H
#define TUNLAB_ISOLATE_H

/*
 * Run @fn(@ctx) in a child, its return value the child's exit status,
 * killed by SIGALRM after @timeout_s seconds. When it has ended, every
 * process left in its group is killed and reaped. Returns the child's wait
 * status, or -1 with errno when it could not be started.
 */
int isolate_run(int (*fn)(void *ctx), void *ctx, unsigned int timeout_s);

#endif
