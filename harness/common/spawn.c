// SPDX-License-Identifier: GPL-2.0
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Where the child's stdin, stdout and stderr go; -1 when one cannot be opened. */
static int child_streams(const struct spawn *s, int pipe_w)
{
	int null, err = -1;

	if (s->inherit_stdio)
		return 0;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0)
		return -1;
	if (dup2(s->out == SPAWN_PIPE ? pipe_w : null, 1) < 0)
		return -1;
	if (s->err == SPAWN_FILE)
		err = open(s->err_file, O_WRONLY | O_CREAT | O_CLOEXEC |
			   (s->err_truncate ? O_TRUNC : O_APPEND), 0644);
	else
		err = s->err == SPAWN_PIPE ? pipe_w : null;
	return err < 0 || dup2(err, 2) < 0 ? -1 : 0;
}

static void __attribute__((noreturn)) child(const struct spawn *s, int pipe_w)
{
	const char *prog = s->path ? s->path : s->argv[0];
	char why[256] = "";

	if (child_streams(s, pipe_w) < 0)
		_exit(127);
	if (s->new_session)
		setsid();
	else if (s->new_pgrp)
		setpgid(0, 0);
	if (s->die_with_parent)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (s->inherit_fd)
		fcntl(*s->inherit_fd, F_SETFD, 0);
	if (s->setup && s->setup(s->ctx, why, sizeof(why)) < 0) {
		fprintf(stderr, "before exec %s: %s\n", prog, why);
		_exit(127);
	}
	if (s->path)
		execv(s->path, s->argv);
	else
		execvp(s->argv[0], s->argv);
	fprintf(stderr, "exec %s: %s\n", prog, strerror(errno));
	_exit(127);
}

pid_t spawn(const struct spawn *s, int *pipe_fd)
{
	bool piped = s->out == SPAWN_PIPE || s->err == SPAWN_PIPE;
	int p[2] = { -1, -1 }, err;
	pid_t pid;

	if (piped && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0)
		child(s, p[1]);
	err = errno;
	if (piped)
		close(p[1]);
	if (pid < 0) {
		if (piped)
			close(p[0]);
		errno = err;
		return -1;
	}
	if (piped)
		*pipe_fd = p[0];
	return pid;
}

int spawn_capture(const struct spawn *s, struct sbuf *out)
{
	char buf[4096];
	int fd = -1, status;
	ssize_t n;
	pid_t pid;

	sbuf_puts(out, "");
	pid = spawn(s, &fd);
	if (pid < 0)
		return -1;
	while (fd >= 0 && ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			sbuf_add(out, buf, (size_t)n);
	if (fd >= 0)
		close(fd);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return status;
}
