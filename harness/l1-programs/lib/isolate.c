// SPDX-License-Identifier: GPL-2.0
#include "isolate.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Kill what is left of group @pgid and wait until it is gone: orphans of
 * the group come to us (we are their subreaper), so none can still hold a
 * device or a descriptor when the teardown starts.
 */
static void kill_group(pid_t pgid)
{
	int status;

	kill(-pgid, SIGKILL);
	while (waitpid(-pgid, &status, 0) > 0 || errno == EINTR)
		;
}

int isolate_run(int (*fn)(void *ctx), void *ctx, unsigned int timeout_s)
{
	int status;
	pid_t pid;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		alarm(timeout_s);
		exit(fn(ctx));
	}
	/* both sides set the group: neither may act before it exists */
	setpgid(pid, pid);
	waitpid(pid, &status, 0);
	kill_group(pid);
	return status;
}
