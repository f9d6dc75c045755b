// SPDX-License-Identifier: GPL-2.0
/*
 * run PROGRAM ARGS...: any program in L1 as a scenario step, the kernel's
 * own selftests among them, and tunlab run's program. Its output goes to
 * L0 line by line as it comes, so L0 can show it and nest its TAP into
 * the report; the step's outcome is its exit status as kselftest means it.
 */
#include "run.h"
#include "actors.h"
#include "outcome.h"
#include "common/proto.h"
#include "common/spawn.h"
#include "common/verdict.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct run_lines {
	struct exec_ctx *x;
	char idx[16], step[16];
	struct run_tap *tap;
};

static void append(char *buf, size_t size, const char *sep, const char *text)
{
	size_t len = strlen(buf);

	if (len + strlen(sep) + strlen(text) + 1 < size)
		snprintf(buf + len, size - len, "%s%s", len ? sep : "", text);
}

/*
 * A top-level TAP result ("not ok 4 tun.reattach_delete_close # ...") or
 * a skipped plan ("1..0 # SKIP reason"): what the step's outcome needs.
 */
static void note_tap(struct run_tap *tap, const char *line)
{
	const char *skip = strstr(line, "# SKIP");
	size_t keep = strlen(tap->tail);

	if (!strncmp(line, "not ok ", 7)) {
		const char *name = line + 7;
		char buf[256];

		name += strspn(name, "0123456789");
		name += strspn(name, " ");
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(name, "#"), name);
		for (size_t n = strlen(buf); n && buf[n - 1] == ' '; n--)
			buf[n - 1] = '\0';
		append(tap->not_ok, sizeof(tap->not_ok), ", ", buf);
	}
	if (skip && !tap->skip[0])
		snprintf(tap->skip, sizeof(tap->skip), "%s", skip + 6 + strspn(skip + 6, " -"));
	/* the last lines: drop the oldest until this one fits */
	while (keep && keep + strlen(line) + 2 >= sizeof(tap->tail)) {
		char *nl = strchr(tap->tail, '\n');

		if (!nl) {
			tap->tail[0] = '\0';
			break;
		}
		memmove(tap->tail, nl + 1, strlen(nl + 1) + 1);
		keep = strlen(tap->tail);
	}
	append(tap->tail, sizeof(tap->tail), "\n", line);
}

static void on_line(void *ctx, char *line)
{
	struct run_lines *l = ctx;

	proto_emit(l->x->out, "out", 3, l->idx, l->step, line);
	note_tap(l->tap, line);
}

static int become_actor_cb(void *actor, char *why, size_t size)
{
	return become_actor(actor, why, size);
}

int run_streamed(struct exec_ctx *x, char **argv, const struct scn_actor *actor, int idx,
		 int step, int timeout_s, bool *timed_out, struct run_tap *tap)
{
	struct run_lines l = { .x = x, .tap = tap };
	double deadline = now_ms() + timeout_s * 1000.0;
	struct sbuf buf = { 0 };
	int fd, status;
	char data[4096];
	pid_t pid;

	memset(tap, 0, sizeof(*tap));
	*timed_out = false;
	snprintf(l.idx, sizeof(l.idx), idx < 0 ? "-" : "%d", idx);
	snprintf(l.step, sizeof(l.step), idx < 0 ? "-" : "%d", step);
	/* a group of its own: a timeout ends whatever it started too */
	pid = spawn(&(struct spawn){ .argv = argv, .out = SPAWN_PIPE, .err = SPAWN_PIPE,
				     .new_pgrp = true, .die_with_parent = true,
				     .setup = become_actor_cb, .ctx = (void *)actor }, &fd);
	if (pid < 0)
		return -1;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)(deadline - now_ms());
		ssize_t n;

		if (left <= 0) {
			*timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		if (poll(&p, 1, left) <= 0)
			continue;
		n = read(fd, data, sizeof(data));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sbuf_feed_lines(&buf, data, (size_t)n, on_line, &l);
	}
	if (buf.len)
		on_line(&l, buf.buf);
	close(fd);
	sbuf_free(&buf);
	waitpid(pid, &status, 0);
	return status;
}

void act_run(struct exec_ctx *x, const struct scn_step *st, int step, struct outcome *oc)
{
	struct run_tap tap;
	bool timed_out;
	int status, code;

	memset(oc, 0, sizeof(*oc));
	outcome_set(oc, 0, "run %s", st->argv[0]);
	status = run_streamed(x, st->argv, &st->actor, x->idx, step, x->step_timeout_s,
			      &timed_out, &tap);
	if (status < 0) {
		outcome_set(oc, errno, "run %s: cannot start it", st->argv[0]);
		oc->broken = true;
		return;
	}
	code = ksft_code(status);
	snprintf(oc->not_ok, sizeof(oc->not_ok), "%s", tap.not_ok);
	if (timed_out) {
		outcome_set(oc, ETIMEDOUT, "run %s: still running after %d s; killed",
			    st->argv[0], x->step_timeout_s);
	} else if (code == KSFT_SKIP) {
		/* the program says it cannot run here: its reason is the step's */
		oc->skipped = true;
		snprintf(oc->detail, sizeof(oc->detail), "%s", tap.skip[0] ? tap.skip :
			 "exit status 4 (KSFT_SKIP)");
		return;
	} else if (code == KSFT_NOT_STARTED) {
		outcome_set(oc, ENOENT, "run %s: the program did not start", st->argv[0]);
	} else if (code != KSFT_PASS) {
		outcome_set(oc, -1, "run %s: exit status %d", st->argv[0], code);
	}
	if (tap.not_ok[0])
		snprintf(oc->detail, sizeof(oc->detail), "not ok: %s", tap.not_ok);
	else if (code != KSFT_PASS)
		snprintf(oc->detail, sizeof(oc->detail), "%s", tap.tail);
}
