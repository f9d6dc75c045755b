// SPDX-License-Identifier: GPL-2.0
/*
 * tunlab-exec --hold PGID SECONDS: hang process group PGID as a test that
 * never returns would be hung, for the checks that cut a program short
 * (guest-image/l1/kselftest-cut-short).
 *
 * A group stopped by SIGSTOP is no such test: once its parent exits, the
 * group is orphaned with a stopped member and the kernel sends it SIGHUP
 * and SIGCONT, which ends it whether or not the program killed it. Held
 * in a ptrace-stop instead (PTRACE_SEIZE, PTRACE_INTERRUPT), no signal but
 * SIGKILL ends it, and the kernel hangs up nothing: only whoever is meant
 * to kill the group can end it.
 *
 * A child of this process becomes the tracer and stays behind; this
 * process returns once every task of the group is held, printing how
 * many, so the caller knows the hold is in place when the command ends.
 * The tracer reaps the tracees' deaths (until then their parent cannot
 * reap them) and exits when none is left, or after SECONDS, which lets
 * the survivors go on.
 */
#include "hold.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOLD_MAX 64

/*
 * The process group of task @pid (a process, or a thread with @tgid), or
 * -1 when it is gone or has exited: a zombie cannot be seized, and needs
 * no hold.
 */
static pid_t live_pgrp_of(pid_t tgid, pid_t pid)
{
	char path[64], line[512], state, *p;
	int ppid, pgrp;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tgid, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	/* pid (comm) state ppid pgrp: comm may hold spaces and parentheses */
	if (!p || !(p = strrchr(line, ')')) ||
	    sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) != 3 ||
	    state == 'Z' || state == 'X')
		return -1;
	return pgrp;
}

/* Seize and trap every thread of process @pid; the count held, or -1. */
static int hold_process(pid_t pid, pid_t *held, int n)
{
	char path[64];
	struct dirent *d;
	pid_t tid;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return n;
	while ((d = readdir(dir))) {
		tid = atoi(d->d_name);
		if (tid <= 0)
			continue;
		if (n == HOLD_MAX) {
			fprintf(stderr, "tunlab-exec --hold: more than %d tasks\n",
				HOLD_MAX);
			n = -1;
			break;
		}
		if (live_pgrp_of(pid, tid) < 0)
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0, 0)) {
			/* a task that exited meanwhile needs no hold */
			if (errno == ESRCH || live_pgrp_of(pid, tid) < 0)
				continue;
			fprintf(stderr, "tunlab-exec --hold: seize %d: %s\n",
				(int)tid, strerror(errno));
			n = -1;
			break;
		}
		/* seized: it is ours to wait for, even if it dies now (ESRCH) */
		held[n++] = tid;
		if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) && errno != ESRCH) {
			fprintf(stderr, "tunlab-exec --hold: interrupt %d: %s\n",
				(int)tid, strerror(errno));
			n = -1;
			break;
		}
	}
	closedir(dir);
	return n;
}

/*
 * Wait for each of @n seized tasks to stop: how many are held, or -1. One
 * that died first (a SIGKILL raced us) is reaped here and not counted.
 * Whichever reports first is taken first: a dying thread group leader
 * reports only after its threads, which are later in the list.
 */
static int wait_trapped(const pid_t *held, int n)
{
	int i, st, alive = 0, reported = 0;
	bool seen[HOLD_MAX] = { false };
	pid_t pid;

	while (reported < n) {
		pid = waitpid(-1, &st, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "tunlab-exec --hold: wait: %s\n", strerror(errno));
			return -1;
		}
		for (i = 0; i < n && (held[i] != pid || seen[i]); i++)
			;
		if (i == n)
			continue;
		seen[i] = true;
		reported++;
		if (!WIFEXITED(st) && !WIFSIGNALED(st))
			alive++;
	}
	return alive;
}

/* The tracer: reap the tracees as they die, never let one run. */
static int tracer(pid_t pgid, unsigned int seconds, int report)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	pid_t held[HOLD_MAX];
	int n = 0, st, left, fd;
	struct dirent *d;
	sigset_t alrm;
	pid_t pid;
	DIR *proc;

	/*
	 * Past SECONDS, SIGALRM ends us and the kernel lets the rest go; from
	 * the start, so that a task that never stops (a vfork parent waits
	 * for its child uninterruptibly) fails the hold instead of hanging it
	 */
	sigaction(SIGALRM, &dfl, NULL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &alrm, NULL);
	alarm(seconds);
	proc = opendir("/proc");
	if (!proc)
		return 1;
	while ((d = readdir(proc))) {
		pid = atoi(d->d_name);
		if (pid <= 0 || live_pgrp_of(pid, pid) != pgid)
			continue;
		n = hold_process(pid, held, n);
		if (n < 0)
			break;
	}
	closedir(proc);
	if (n > 0)
		n = wait_trapped(held, n);
	if (n <= 0) {
		if (n == 0)
			fprintf(stderr, "tunlab-exec --hold: no live process in group %d\n",
				(int)pgid);
		return 1;
	}
	/*
	 * From here on nothing is said: the caller's stderr, a step's
	 * output, must not stay open as long as the hold does.
	 */
	fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	dprintf(report, "%d\n", n);
	close(report);
	left = n;
	while (left > 0) {
		pid = waitpid(-1, &st, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			left--;
		/* any stop is left as it is: the task stays held */
	}
	return 0;
}

int hold_main(const char *pgid_arg, const char *seconds_arg)
{
	pid_t pgid = atoi(pgid_arg), child;
	int seconds = atoi(seconds_arg);
	int fds[2], n = 0;
	char buf[16];
	ssize_t len;

	if (pgid <= 1 || seconds <= 0) {
		fprintf(stderr, "usage: tunlab-exec --hold PGID SECONDS\n");
		return 2;
	}
	if (pipe(fds))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		close(fds[0]);
		/* the caller's output must not wait for the tracer's end */
		close(STDOUT_FILENO);
		_exit(tracer(pgid, seconds, fds[1]));
	}
	close(fds[1]);
	len = read(fds[0], buf, sizeof(buf) - 1);
	if (len > 0) {
		buf[len] = '\0';
		n = atoi(buf);
	}
	if (n <= 0) {
		waitpid(child, NULL, 0);
		fprintf(stderr, "tunlab-exec --hold: group %d not held\n", (int)pgid);
		return 1;
	}
	printf("held %d task%s of group %d\n", n, n == 1 ? "" : "s", (int)pgid);
	return 0;
}
