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

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * How long a program past its timeout has, after SIGTERM, to undo what it
 * changed (the kselftest programs restore policy and devices on SIGTERM)
 * before everything it started is killed
 */
#define RUN_GRACE_MS 10000

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

/*
 * Send @sig to every live process of session @sid: the program and
 * whatever it started, in process groups of their own too
 * (kselftest_harness runs each test in one). Returns how many there were.
 */
static int signal_session(pid_t sid, int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[64], *text, *end, state;
		int ppid, pgrp, session;
		long pid = strtol(e->d_name, &end, 10);

		if (pid <= 0 || *end)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		text = read_file(path, NULL);
		/* "PID (COMM) STATE PPID PGRP SESSION ...": COMM may hold ')' */
		end = text ? strrchr(text, ')') : NULL;
		if (end && sscanf(end + 1, " %c %d %d %d", &state, &ppid, &pgrp, &session) == 4 &&
		    session == sid && state != 'Z' && state != 'X') {
			kill((pid_t)pid, sig);
			n++;
		}
		free(text);
	}
	closedir(d);
	return n;
}

/* Kill what is left of session @sid until nothing is (a second at most). */
static void end_session(pid_t sid)
{
	for (int i = 0; i < 100 && signal_session(sid, SIGKILL); i++)
		usleep(10000);
}

int run_streamed(struct exec_ctx *x, char **argv, const struct scn_actor *actor, int idx,
		 int step, int timeout_s, bool *timed_out, struct run_tap *tap)
{
	struct run_lines l = { .x = x, .tap = tap };
	double deadline = now_ms() + timeout_s * 1000.0;
	struct sbuf buf = { 0 };
	bool reaped = false;
	int fd, status = 0;
	char data[4096];
	pid_t pid;

	memset(tap, 0, sizeof(*tap));
	*timed_out = false;
	snprintf(l.idx, sizeof(l.idx), idx < 0 ? "-" : "%d", idx);
	snprintf(l.step, sizeof(l.step), idx < 0 ? "-" : "%d", step);
	/*
	 * A session of its own: when the program ends or times out, nothing
	 * it started outlives it, not even what left its process group
	 */
	pid = spawn(&(struct spawn){ .argv = argv, .out = SPAWN_PIPE, .err = SPAWN_PIPE,
				     .new_session = true, .die_with_parent = true,
				     .setup = become_actor_cb, .ctx = (void *)actor }, &fd);
	if (pid < 0)
		return -1;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)(deadline - now_ms());
		ssize_t n;

		if (left <= 0 && !*timed_out) {
			/*
			 * Past the timeout: SIGTERM to the program's group,
			 * then its output while it cleans up, for a grace period
			 */
			*timed_out = true;
			kill(-pid, SIGTERM);
			deadline = now_ms() + RUN_GRACE_MS;
			continue;
		}
		if (left <= 0)
			break;
		if (*timed_out && !reaped && waitpid(pid, &status, WNOHANG) == pid)
			reaped = true;
		/* ended in its grace period: what is left in the pipe, then stop */
		if (poll(&p, 1, reaped ? 0 : *timed_out && left > 100 ? 100 : left) <= 0) {
			if (reaped)
				break;
			continue;
		}
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
	if (*timed_out)
		end_session(pid);
	if (!reaped)
		waitpid(pid, &status, 0);
	/* what it left running when it ended (its session leader is gone) */
	end_session(pid);
	return status;
}

void act_run(struct exec_ctx *x, const struct scn_step *st, int step, int scn_timeout_s,
	     struct outcome *oc)
{
	struct run_tap tap;
	bool timed_out;
	int status, code, timeout_s;

	memset(oc, 0, sizeof(*oc));
	outcome_set(oc, 0, "run %s", st->argv[0]);
	/*
	 * The step timeout, or the scenario's own when it gives a longer one
	 * (a whole selftest program is one step); a slow lab (tunlab.slow=N,
	 * the debug lane) runs programs N times slower
	 */
	timeout_s = (scn_timeout_s > x->step_timeout_s ? scn_timeout_s : x->step_timeout_s) *
		    (int)lab_slowness();
	status = run_streamed(x, st->argv, &st->actor, x->idx, step, timeout_s, &timed_out, &tap);
	if (status < 0) {
		outcome_set(oc, errno, "run %s: cannot start it", st->argv[0]);
		oc->broken = true;
		return;
	}
	code = ksft_code(status);
	snprintf(oc->not_ok, sizeof(oc->not_ok), "%s", tap.not_ok);
	if (timed_out) {
		outcome_set(oc, ETIMEDOUT, "run %s: still running after %d s; ended",
			    st->argv[0], timeout_s);
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
