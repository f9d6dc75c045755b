// SPDX-License-Identifier: GPL-2.0
#include "lab.h"
#include "bundle.h"
#include "console.h"
#include "qemu.h"
#include "common/proto.h"
#include "common/spawn.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;
/* With several L1s (--jobs), one lock over the run's shared results. */
static pthread_mutex_t lab_lock = PTHREAD_MUTEX_INITIALIZER;

void lab_interrupt(void)
{
	interrupted = 1;
}

/* One L1 boot: its QEMU, its console and its results connection. */
struct boot {
	const struct lab_opts *o;
	const struct plan *plan;
	struct run_result *r;
	pid_t pid;
	int console_fd;
	int listen_fd;
	int results_fd;
	struct sbuf console_buf;
	struct sbuf results_buf;
	FILE *console_log;
	struct console_scan scan;
	struct console_scan *l2_scans;	/* one per scenario */
	int inflight;			/* scenario index, -1 when none */
	int completed;			/* scenarios ended in this boot */
	bool hello;
	bool done;
	double started;
	double last_record;
	double run_deadline;
	int lane;			/* this L1 runs scenarios with lane_of[i] == lane */
	int nlanes;
	const int *lane_of;
	char tmpdir[64];
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static int file_index(const struct plan *s, const struct scenario *sc)
{
	for (int i = 0; i < s->nfiles; i++)
		if (sc >= s->files[i].scenarios &&
		    sc < s->files[i].scenarios + s->files[i].nscenarios)
			return i;
	return -1;
}

/* The bundle for what is still to run: scenario files plus the plan. */
static int write_initrd(struct boot *b, const char *path)
{
	struct cpio_writer w = { 0 };
	struct sbuf plan = { 0 };
	size_t len;
	char *base;
	int ret;

	base = read_file(b->o->initrd, &len);
	if (!base)
		return -1;
	cpio_add_dir(&w, BUNDLE_DIR);
	cpio_add_dir(&w, BUNDLE_DIR "/scn");
	for (int i = 0; i < b->plan->nfiles; i++) {
		size_t flen;
		char *text = read_file(b->plan->files[i].path, &flen);
		char *name = xasprintf(BUNDLE_DIR "/scn/%d.scn", i);

		if (!text) {
			int err = errno;

			free(name);
			free(base);
			sbuf_free(&w.out);
			errno = err;
			return -1;
		}
		cpio_add_file(&w, name, text, flen, 0644);
		free(name);
		free(text);
	}
	sbuf_puts(&plan, "");
	for (int i = 0; i < b->r->n; i++) {
		const struct scenario *sc = b->r->s[i].sc;

		if (b->lane_of[i] != b->lane || b->r->s[i].result != TL_NOTRUN)
			continue;
		sbuf_printf(&plan, "%d\t" BUNDLE_DIR "/scn/%d.scn\t%d\n", i,
			    file_index(b->plan, sc), sc->index);
	}
	cpio_add_file(&w, BUNDLE_PLAN, plan.buf, plan.len, 0644);
	cpio_finish(&w);
	sbuf_free(&plan);

	/* the kernel unpacks concatenated archives; keep 4-byte alignment */
	{
		struct sbuf all = { 0 };
		static const char zeros[4];

		sbuf_add(&all, base, len);
		if (all.len % 4)
			sbuf_add(&all, zeros, 4 - all.len % 4);
		sbuf_add(&all, w.out.buf, w.out.len);
		ret = write_file(path, all.buf, all.len);
		sbuf_free(&all);
	}
	free(base);
	sbuf_free(&w.out);
	return ret;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* QEMU in a process group of its own: a ^C to the runner is not one to it. */
static pid_t start_qemu(char **argv, int *console_fd, const char *stderr_path)
{
	struct spawn sp = {
		.argv = argv, .out = SPAWN_PIPE, .err = SPAWN_FILE,
		.err_file = stderr_path, .new_pgrp = true,
	};

	return spawn(&sp, console_fd);
}

static void kill_qemu(struct boot *b)
{
	int status;

	if (b->pid <= 0)
		return;
	kill(b->pid, SIGTERM);
	for (int i = 0; i < 40; i++) {
		if (waitpid(b->pid, &status, WNOHANG) == b->pid) {
			b->pid = 0;
			return;
		}
		usleep(50 * 1000);
	}
	kill(b->pid, SIGKILL);
	waitpid(b->pid, &status, 0);
	b->pid = 0;
}

static void set_reason(struct scenario_result *sr, enum tl_result res, const char *why)
{
	sr->result = res;
	free(sr->reason);
	sr->reason = why ? xstrdup(why) : NULL;
}

/* A kernel report on a console taints the scenario that was running. */
static void note_kernel_report(struct boot *b, const char *where,
			       const struct console_scan *cs, int idx)
{
	struct run_result *r = b->r;

	if (!r->crash_kind) {
		r->crash_kind = xasprintf("%s on %s console, line %d", cs->kind,
					  where, cs->line_no);
		r->crash_excerpt = xstrdup(cs->excerpt.buf ? cs->excerpt.buf : "");
	}
	if (idx >= 0) {
		char *why = xasprintf("kernel %s on the %s console (see report)",
				      cs->kind, where);

		set_reason(&r->s[idx], TL_CRASH, why);
		free(why);
	}
	say("tunlab: kernel %s on the %s console\n", cs->kind, where);
}

static void console_line(struct boot *b, const char *line)
{
	bool had = b->scan.kind != NULL;

	if (b->console_log)
		fprintf(b->console_log, "%s\n", line);
	if (b->o->show_console)
		say("| %s\n", line);
	console_scan_line(&b->scan, line);
	if (!had && b->scan.kind)
		note_kernel_report(b, "L1", &b->scan, b->inflight);
}

static void print_step(const struct scenario *sc, int step, const struct step_result *st)
{
	struct sbuf sb = { 0 };

	sbuf_printf(&sb, "  %-5s %7.2fs  %d. %s\n", tl_result_name(st->result), st->ms / 1000.0,
		    step + 1, sc->steps[step].text);
	if (st->msg && *st->msg)
		sbuf_prefix_lines(&sb, "                  # ", st->msg);
	say("%s", sb.buf);
	sbuf_free(&sb);
}

static int done_count(const struct run_result *r)
{
	int n = 0;

	for (int i = 0; i < r->n; i++)
		n += r->s[i].result != TL_NOTRUN;
	return n;
}

static void end_scenario(struct boot *b, int idx, enum tl_result res, double ms,
			 const char *reason)
{
	struct scenario_result *sr = &b->r->s[idx];

	if (sr->result == TL_NOTRUN) {
		sr->result = res;
		free(sr->reason);
		sr->reason = reason && *reason ? xstrdup(reason) : NULL;
	}
	sr->ms = ms;
	b->inflight = -1;
	b->completed++;
	say("[%d/%d] %-7s %7.2fs  %s:%d %s%s%s\n", done_count(b->r), b->r->n,
	    tl_result_name(sr->result), ms / 1000.0, sr->sc->file, sr->sc->line,
	    sr->sc->title, sr->reason ? "  # " : "", sr->reason ? sr->reason : "");
	if (b->o->on_progress)
		b->o->on_progress(b->r, b->o->ctx);
}

static bool valid_idx(const struct boot *b, const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end || v < 0 || v >= b->r->n)
		return false;
	*out = (int)v;
	return true;
}

static void results_record(struct boot *b, char *line)
{
	struct run_result *r = b->r;
	char *f[PROTO_MAX_FIELDS];
	int n = proto_split(line, f, PROTO_MAX_FIELDS), idx;

	b->last_record = now_ms();
	if (!strcmp(f[0], "hello") && n >= 3) {
		b->hello = true;
		free(r->kernel);
		r->kernel = xstrdup(f[2]);
		free(r->lsm);
		r->lsm = n > 4 && *f[4] ? xstrdup(f[4]) : NULL;
		say("tunlab: L1 ready after %.1f s: kernel %s%s%s%s%s\n",
		    (now_ms() - b->started) / 1000.0, f[2], n > 3 ? ", " : "",
		    n > 3 ? f[3] : "", r->lsm ? ", lsm " : "", r->lsm ? r->lsm : "");
	} else if (!strcmp(f[0], "begin") && n >= 2 && valid_idx(b, f[1], &idx)) {
		b->inflight = idx;
		say("       %s:%d %s\n", r->s[idx].sc->file, r->s[idx].sc->line,
		    r->s[idx].sc->title);
	} else if (!strcmp(f[0], "step") && n >= 6 && valid_idx(b, f[1], &idx)) {
		struct scenario_result *sr = &r->s[idx];
		int st = atoi(f[2]);

		if (st < 0 || st >= sr->sc->nsteps)
			return;
		sr->steps[st].result = tl_result_from_name(f[3]);
		sr->steps[st].ms = atof(f[4]);
		free(sr->steps[st].msg);
		sr->steps[st].msg = xstrdup(f[5]);
		free(sr->steps[st].decisions);
		sr->steps[st].decisions = n > 6 && strcmp(f[6], "-") ? xstrdup(f[6]) : NULL;
		print_step(sr->sc, st, &sr->steps[st]);
	} else if (!strcmp(f[0], "end") && n >= 4 && valid_idx(b, f[1], &idx)) {
		end_scenario(b, idx, tl_result_from_name(f[2]), atof(f[3]),
			     n > 4 ? f[4] : NULL);
	} else if (!strcmp(f[0], "log") && n >= 4 && valid_idx(b, f[1], &idx)) {
		struct console_scan *cs = &b->l2_scans[idx];
		bool had = cs->kind != NULL;

		r->logs = xrealloc(r->logs, sizeof(*r->logs) * (size_t)(r->nlogs + 1));
		r->logs[r->nlogs].idx = idx;
		r->logs[r->nlogs].source = xstrdup(f[2]);
		r->logs[r->nlogs].line = xstrdup(f[3]);
		r->nlogs++;
		console_scan_line(cs, f[3]);
		if (!had && cs->kind) {
			char *where = xasprintf("L2 %s", f[2]);

			note_kernel_report(b, where, cs, idx);
			free(where);
		}
	} else if (!strcmp(f[0], "ktap") && n >= 3) {
		struct suite_result *su = run_suite(r, f[1]);

		su->lines = xrealloc(su->lines, sizeof(char *) * (size_t)(su->nlines + 1));
		su->lines[su->nlines++] = xstrdup(f[2]);
	} else if (!strcmp(f[0], "suite") && n >= 4) {
		struct suite_result *su = run_suite(r, f[1]);

		su->status = atoi(f[2]);
		su->ms = atof(f[3]);
		suite_result_judge(su);
		say("[ktap] %-7s %7.2fs  %s: %d ok, %d not ok, %d skipped%s%s\n",
		    tl_result_name(su->result), su->ms / 1000.0, su->name, su->n_ok,
		    su->n_notok, su->n_skip, su->reason ? "  # " : "",
		    su->reason ? su->reason : "");
		if (b->o->on_progress)
			b->o->on_progress(r, b->o->ctx);
	} else if (!strcmp(f[0], "done")) {
		b->done = true;
	} else {
		say("tunlab: ignoring malformed record from L1: %s\n", f[0]);
	}
}

static void console_cb(void *ctx, char *line)
{
	console_line(ctx, line);
}

static void results_cb(void *ctx, char *line)
{
	results_record(ctx, line);
}

static void flush_partial(struct boot *b)
{
	if (b->console_buf.len) {
		char *rest = xstrdup(b->console_buf.buf);

		console_line(b, rest);
		free(rest);
		b->console_buf.len = 0;
	}
}

enum boot_end {
	BOOT_DONE,
	BOOT_EXITED,
	BOOT_TIMEOUT,
	BOOT_RUN_TIMEOUT,
	BOOT_INTERRUPTED,
	BOOT_SETUP,
};

static enum boot_end event_loop(struct boot *b, int *status, char **why)
{
	char data[8192];

	for (;;) {
		struct pollfd pfd[3];
		int np = 0, limit_s, ci = -1, ri = -1, li = -1;
		double t = now_ms(), limit_at;

		if (interrupted)
			return BOOT_INTERRUPTED;
		if (b->console_fd >= 0) {
			pfd[np] = (struct pollfd){ .fd = b->console_fd, .events = POLLIN };
			ci = np++;
		}
		if (b->results_fd >= 0) {
			pfd[np] = (struct pollfd){ .fd = b->results_fd, .events = POLLIN };
			ri = np++;
		} else if (b->listen_fd >= 0) {
			pfd[np] = (struct pollfd){ .fd = b->listen_fd, .events = POLLIN };
			li = np++;
		}
		if (!b->hello) {
			limit_s = b->o->boot_timeout_s;
			limit_at = b->started + limit_s * 1000.0;
		} else {
			limit_s = b->o->step_timeout_s;
			if (b->inflight >= 0 && b->r->s[b->inflight].sc->timeout_s > limit_s)
				limit_s = b->r->s[b->inflight].sc->timeout_s;
			limit_at = b->last_record + limit_s * 1000.0;
		}
		if (t >= b->run_deadline) {
			*why = xasprintf("the whole run exceeded its %d s timeout",
					 b->o->run_timeout_s);
			return BOOT_RUN_TIMEOUT;
		}
		if (t >= limit_at) {
			*why = b->hello
				? xasprintf("no result from L1 for %d s", limit_s)
				: xasprintf("L1 did not reach the executor within %d s", limit_s);
			return BOOT_TIMEOUT;
		}
		if (poll(pfd, (nfds_t)np, 200) < 0 && errno != EINTR) {
			*why = xasprintf("poll: %s", strerror(errno));
			return BOOT_SETUP;
		}
		if (li >= 0 && (pfd[li].revents & POLLIN)) {
			b->results_fd = accept4(b->listen_fd, NULL, NULL, SOCK_CLOEXEC);
			close(b->listen_fd);
			b->listen_fd = -1;
		}
		if (ri >= 0 && (pfd[ri].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t n = read(b->results_fd, data, sizeof(data));

			if (n > 0) {
				pthread_mutex_lock(&lab_lock);
				sbuf_feed_lines(&b->results_buf, data, (size_t)n, results_cb, b);
				pthread_mutex_unlock(&lab_lock);
			} else if (n == 0 || errno != EINTR) {
				close(b->results_fd);
				b->results_fd = -1;
			}
		}
		if (ci >= 0 && (pfd[ci].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t n = read(b->console_fd, data, sizeof(data));

			if (n > 0) {
				pthread_mutex_lock(&lab_lock);
				sbuf_feed_lines(&b->console_buf, data, (size_t)n, console_cb, b);
				pthread_mutex_unlock(&lab_lock);
			} else if (n == 0 || errno != EINTR) {
				close(b->console_fd);
				b->console_fd = -1;
			}
		}
		if (b->console_fd < 0 && waitpid(b->pid, status, WNOHANG) == b->pid) {
			b->pid = 0;
			pthread_mutex_lock(&lab_lock);
			flush_partial(b);
			/* drain what the results port still holds */
			while (b->results_fd >= 0) {
				ssize_t n = read(b->results_fd, data, sizeof(data));

				if (n <= 0)
					break;
				sbuf_feed_lines(&b->results_buf, data, (size_t)n, results_cb, b);
			}
			pthread_mutex_unlock(&lab_lock);
			return b->done ? BOOT_DONE : BOOT_EXITED;
		}
	}
}

static char *status_text(int status)
{
	if (WIFEXITED(status))
		return xasprintf("QEMU exited with status %d", WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return xasprintf("QEMU killed by signal %d", WTERMSIG(status));
	return xstrdup("QEMU ended");
}

static void close_boot(struct boot *b)
{
	if (b->console_fd >= 0)
		close(b->console_fd);
	if (b->results_fd >= 0)
		close(b->results_fd);
	if (b->listen_fd >= 0)
		close(b->listen_fd);
	if (b->console_log)
		fclose(b->console_log);
	sbuf_free(&b->console_buf);
	sbuf_free(&b->results_buf);
	console_scan_free(&b->scan);
}

/* Mark everything of this lane not yet run, e.g. after the run timeout. */
static void abandon_rest(struct run_result *r, int lane, const int *lane_of,
			 enum tl_result res, const char *why)
{
	for (int i = 0; i < r->n; i++)
		if (lane_of[i] == lane && r->s[i].result == TL_NOTRUN)
			set_reason(&r->s[i], res, why);
}

static int lane_left(const struct run_result *r, int lane, const int *lane_of)
{
	int n = 0;

	for (int i = 0; i < r->n; i++)
		n += lane_of[i] == lane && r->s[i].result == TL_NOTRUN;
	return n;
}

static void set_infra(struct run_result *r, enum tl_result res, const char *why)
{
	if (r->infra_error)
		return;
	r->infra_result = res;
	r->infra_error = xstrdup(why);
}

/* Returns true when another boot should take over the rest of the plan. */
static bool boot_once(const struct lab_opts *o, const struct plan *s,
		      struct run_result *r, struct console_scan *l2_scans,
		      double deadline, int attempt, int lane, int nlanes, const int *lane_of)
{
	struct boot b = {
		.o = o, .plan = s, .r = r, .console_fd = -1, .listen_fd = -1,
		.results_fd = -1, .inflight = -1, .run_deadline = deadline,
		.lane = lane, .nlanes = nlanes, .lane_of = lane_of,
		.l2_scans = l2_scans,
	};
	struct l1_config cfg = {
		.qemu = o->qemu, .bios = o->bios, .kernel = o->kernel,
		.accel = o->accel, .mem_mb = o->mem_mb, .cpus = o->cpus,
		.cmdline_extra = o->cmdline_extra,
	};
	char *extra = NULL;
	char *initrd, *sock, *log_path, *err_path, **argv, *why = NULL, *st;
	enum boot_end end;
	int status = 0;
	bool again = false;

	strcpy(b.tmpdir, "/tmp/tunlab.XXXXXX");
	if (!mkdtemp(b.tmpdir)) {
		char *msg = xasprintf("mkdtemp: %s", strerror(errno));

		pthread_mutex_lock(&lab_lock);
		set_infra(r, TL_ERROR, msg);
		abandon_rest(r, lane, lane_of, TL_ERROR, msg);
		pthread_mutex_unlock(&lab_lock);
		free(msg);
		return false;
	}
	initrd = xasprintf("%s/initrd", b.tmpdir);
	sock = xasprintf("%s/results.sock", b.tmpdir);
	/* KUnit and the KTAP programs report once, from the first L1 */
	if (lane > 0) {
		extra = xasprintf("%s%stunlab.ktap= tunlab.kunit=0",
				  o->cmdline_extra ? o->cmdline_extra : "",
				  o->cmdline_extra && *o->cmdline_extra ? " " : "");
		cfg.cmdline_extra = extra;
	}
	log_path = lane ? xasprintf("%s/l1-console-%d.log", o->run_dir, lane + 1)
			: xasprintf("%s/l1-console.log", o->run_dir);
	err_path = xasprintf("%s/qemu-stderr.log", o->run_dir);
	if (write_initrd(&b, initrd) < 0) {
		why = xasprintf("cannot assemble the L1 initramfs from %s: %s",
				o->initrd, strerror(errno));
		goto setup_failed;
	}
	b.listen_fd = listen_unix(sock);
	if (b.listen_fd < 0) {
		why = xasprintf("cannot listen on %s: %s", sock, strerror(errno));
		goto setup_failed;
	}
	b.console_log = fopen(log_path, "a");
	if (!b.console_log) {
		why = xasprintf("cannot open %s: %s", log_path, strerror(errno));
		goto setup_failed;
	}
	setvbuf(b.console_log, NULL, _IOLBF, 0);
	if (attempt > 1)
		fprintf(b.console_log, "----- tunlab: fresh L1, boot %d -----\n", attempt);
	cfg.initrd = initrd;
	cfg.results_socket = sock;
	argv = l1_qemu_argv(&cfg);
	{
		char *cmd = argv_join(argv);

		fprintf(b.console_log, "# %s\n", cmd);
		free(cmd);
	}
	b.started = now_ms();
	b.last_record = b.started;
	b.pid = start_qemu(argv, &b.console_fd, err_path);
	argv_free(argv);
	if (b.pid < 0) {
		why = xasprintf("cannot start %s: %s", o->qemu, strerror(errno));
		goto setup_failed;
	}
	say("tunlab: booting L1 (%s, %d MiB, %d cpu)%s\n", accel_name(o->accel),
	    o->mem_mb, o->cpus, attempt > 1 ? " again for the rest of the plan" : "");

	end = event_loop(&b, &status, &why);
	if (end != BOOT_DONE && end != BOOT_EXITED)
		kill_qemu(&b);
	pthread_mutex_lock(&lab_lock);
	flush_partial(&b);
	pthread_mutex_unlock(&lab_lock);
	st = status_text(status);
	pthread_mutex_lock(&lab_lock);
	switch (end) {
	case BOOT_DONE:
		/* a plan that ends early was cut short on purpose (--fail-fast) */
		abandon_rest(r, lane, lane_of, TL_NOTRUN, "not run: an earlier scenario did not pass (--fail-fast)");
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			break;
		why = xasprintf("L1 finished the plan but %s", st);
		set_infra(r, TL_ERROR, why);
		break;
	case BOOT_EXITED:
		if (!why)
			why = xasprintf("L1 stopped unexpectedly: %s%s%s", st,
					b.scan.kind ? " after a kernel " : "",
					b.scan.kind ? b.scan.kind : "");
		if (b.inflight >= 0) {
			end_scenario(&b, b.inflight, b.scan.kind ? TL_CRASH : TL_ERROR,
				     now_ms() - b.last_record, why);
			again = true;
		} else if (b.completed) {
			again = true;
		} else {
			set_infra(r, b.scan.kind ? TL_CRASH : TL_ERROR, why);
			abandon_rest(r, lane, lane_of, TL_NOTRUN, why);
		}
		break;
	case BOOT_TIMEOUT:
		say("tunlab: %s; L1 killed\n", why);
		if (b.inflight >= 0) {
			end_scenario(&b, b.inflight, TL_TIMEOUT, now_ms() - b.last_record, why);
			again = true;
		} else if (b.completed) {
			again = true;
		} else {
			set_infra(r, TL_TIMEOUT, why);
		}
		break;
	case BOOT_RUN_TIMEOUT:
		say("tunlab: %s; L1 killed\n", why);
		if (b.inflight >= 0)
			end_scenario(&b, b.inflight, TL_TIMEOUT, now_ms() - b.last_record, why);
		set_infra(r, TL_TIMEOUT, why);
		break;
	case BOOT_INTERRUPTED:
		free(why);
		why = xstrdup("interrupted");
		if (b.inflight >= 0)
			end_scenario(&b, b.inflight, TL_ERROR, now_ms() - b.last_record, why);
		set_infra(r, TL_ERROR, why);
		break;
	case BOOT_SETUP:
		set_infra(r, TL_ERROR, why);
		break;
	}
	pthread_mutex_unlock(&lab_lock);
	free(st);
	goto out;

setup_failed:
	pthread_mutex_lock(&lab_lock);
	set_infra(r, TL_ERROR, why);
	abandon_rest(r, lane, lane_of, TL_ERROR, why);
	pthread_mutex_unlock(&lab_lock);
out:
	close_boot(&b);
	unlink(initrd);
	unlink(sock);
	rmdir(b.tmpdir);
	free(initrd);
	free(sock);
	free(log_path);
	free(err_path);
	free(extra);
	free(why);
	return again;
}

struct lane {
	const struct lab_opts *o;
	const struct plan *s;
	struct run_result *r;
	struct console_scan *l2_scans;
	double deadline;
	int lane, nlanes;
	const int *lane_of;
	pthread_t thread;
};

/* One L1 after another until this lane's share of the plan has run. */
static void *run_lane(void *arg)
{
	struct lane *l = arg;
	int attempt = 0;

	/* at least one boot: KUnit and the KTAP programs run even with no scenario */
	do {
		if (!boot_once(l->o, l->s, l->r, l->l2_scans, l->deadline, ++attempt,
			       l->lane, l->nlanes, l->lane_of))
			break;
	} while (lane_left(l->r, l->lane, l->lane_of));
	pthread_mutex_lock(&lab_lock);
	abandon_rest(l->r, l->lane, l->lane_of, TL_NOTRUN, NULL);
	pthread_mutex_unlock(&lab_lock);
	return NULL;
}

void lab_run(const struct lab_opts *o, const struct plan *s, struct run_result *r)
{
	struct console_scan *l2_scans = xcalloc((size_t)r->n, sizeof(*l2_scans));
	double t0 = now_ms();
	int nlanes = o->jobs > 1 ? o->jobs : 1;
	struct lane *lanes;

	int *lane_of = xcalloc((size_t)r->n + 1, sizeof(int)), groups = 0;

	/* deal out groups (a scenario and those that continue it), not scenarios */
	for (int i = 0; i < r->n; i++) {
		if (!r->s[i].sc->continues || i == 0)
			groups++;
		lane_of[i] = (groups - 1) % nlanes;
	}
	if (nlanes > groups && groups > 0)
		nlanes = groups;
	for (int i = 0; i < r->n; i++)
		lane_of[i] %= nlanes;
	lanes = xcalloc((size_t)nlanes, sizeof(*lanes));
	for (int i = 0; i < nlanes; i++) {
		lanes[i] = (struct lane){ .o = o, .s = s, .r = r, .l2_scans = l2_scans,
					  .deadline = t0 + o->run_timeout_s * 1000.0,
					  .lane = i, .nlanes = nlanes, .lane_of = lane_of };
		if (nlanes > 1 && pthread_create(&lanes[i].thread, NULL, run_lane, &lanes[i])) {
			say("tunlab: cannot start L1 number %d; running its share after the others\n",
			    i + 1);
			lanes[i].thread = 0;
		}
	}
	for (int i = 0; i < nlanes; i++) {
		if (nlanes > 1 && lanes[i].thread)
			pthread_join(lanes[i].thread, NULL);
		else
			run_lane(&lanes[i]);
	}
	free(lanes);
	free(lane_of);
	for (int i = 0; i < r->n; i++) {
		scenario_result_settle(&r->s[i]);
		console_scan_free(&l2_scans[i]);
	}
	free(l2_scans);
	r->ms = now_ms() - t0;
}

int lab_smoke(const struct lab_opts *o, int timeout_s)
{
	struct l1_config cfg = {
		.qemu = o->qemu, .bios = o->bios, .kernel = o->kernel,
		.initrd = o->initrd, .accel = o->accel, .mem_mb = 256, .cpus = 1,
		.smoke = true,
	};
	char **argv = l1_qemu_argv(&cfg);
	double deadline = now_ms() + timeout_s * 1000.0;
	struct sbuf out = { 0 };
	char data[4096];
	int fd, status = 0, ok;
	pid_t pid = start_qemu(argv, &fd, "/dev/null");

	argv_free(argv);
	if (pid < 0)
		return -1;
	sbuf_puts(&out, "");
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (now_ms() > deadline) {
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		n = read(fd, data, sizeof(data));
		if (n <= 0)
			break;
		sbuf_add(&out, data, (size_t)n);
	}
	close(fd);
	waitpid(pid, &status, 0);
	ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	     strstr(out.buf, "tunlab-smoke: ok");
	sbuf_free(&out);
	return ok ? 0 : -1;
}
