/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Starting a program: the one fork and exec of the harness (L1's QEMU on
 * L0; iproute2, the KTAP programs and L2's QEMU in L1). The child's stdin
 * is /dev/null; its stdout, and its stderr with it, can come back through
 * a pipe; its stderr can go to a file instead; or it keeps ours, all
 * three (a QEMU whose console is the user's terminal).
 */
#ifndef TUNLAB_SPAWN_H
#define TUNLAB_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util.h"

enum spawn_stream {
	SPAWN_NULL,	/* /dev/null */
	SPAWN_PIPE,	/* the pipe whose read end spawn() returns */
	SPAWN_FILE,	/* stderr only: @err_file */
};

struct spawn {
	char *const *argv;
	const char *path;	/* the program; NULL: argv[0], looked up in PATH */
	enum spawn_stream out;
	enum spawn_stream err;
	const char *err_file;
	bool err_truncate;	/* start @err_file afresh, else append to it */
	bool inherit_stdio;	/* stdin, stdout and stderr are ours: no redirection */
	bool new_pgrp;		/* a process group of its own */
	bool new_session;	/* a session of its own (and so a group): what it
				 * starts in groups of their own stays in it */
	bool die_with_parent;	/* SIGKILL when the parent dies */
	const int *inherit_fd;	/* a descriptor it keeps across exec, or NULL */
	/* runs in the child right before exec; -1 ends it with status 127 */
	int (*setup)(void *ctx, char *why, size_t size);
	void *ctx;
};

/*
 * Start @s. Returns the child's pid, with the read end of its pipe in
 * @pipe_fd when it has one; -1 with errno when it could not be started.
 * A child that cannot exec says why on its stderr and exits with 127.
 */
pid_t spawn(const struct spawn *s, int *pipe_fd);

/*
 * Run @s to its end, what it wrote to the pipe collected in @out. Returns
 * its wait status, or -1 with errno when it could not be started.
 */
int spawn_capture(const struct spawn *s, struct sbuf *out);

#endif
