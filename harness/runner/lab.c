// SPDX-License-Identifier: GPL-2.0
/*
 * The boot loop: each lane boots L1 with what is left of its share of the
 * plan, reads its console and results port until L1 is done, hangs or
 * crashes, judges how the boot ended, and boots a fresh L1 for the rest.
 */
#include "bochs.h"
#include "boot.h"
#include "bundle.h"
#include "qemu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/spawn.h"

/* How long Bochs may go on after a panic, for the console to show its trace */
#define PANIC_TAIL_MS 5000
/* How long a halted L1's last records may take to arrive after its halt line */
#define HALT_DRAIN_MS 5000

static volatile sig_atomic_t interrupted;
pthread_mutex_t lab_lock = PTHREAD_MUTEX_INITIALIZER;

void lab_interrupt(int sig)
{
	interrupted = sig;
}

int lab_interrupted(void)
{
	return interrupted;
}

/*
 * The initramfs for this boot: L1's, libvirt's layer when a scenario still
 * to run uses it, and the lane's scenarios still to run.
 */
static int write_initrd(struct boot *b, const char *path)
{
	const struct lane *l = b->lane;
	int *idx = xcalloc((size_t)b->r->n + 1, sizeof(int)), n = 0, ret;
	bool libvirt = false;

	for (int i = 0; i < b->r->n; i++) {
		if (l->lane_of[i] != l->lane || b->r->s[i].result != TL_NOTRUN)
			continue;
		idx[n++] = i;
		libvirt |= bundle_needs_libvirt(l->plan->scenarios[i]);
	}
	{
		const char *layers[3] = { NULL };
		int k = 0;

		if (libvirt)
			layers[k++] = b->o->libvirt_layer;
		layers[k] = b->o->extra_archive;
		ret = bundle_write_initrd(b->o->initrd, layers, l->plan, idx, n, path);
	}
	free(idx);
	return ret;
}

int listen_unix(const char *path)
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

void boot_kill(struct boot *b)
{
	int status;

	if (b->pid <= 0)
		return;
	/* a halted kernel has nothing left to write; Bochs ignores SIGTERM */
	if (b->halted_at) {
		kill(b->pid, SIGKILL);
		waitpid(b->pid, &status, 0);
		b->pid = 0;
		return;
	}
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

static void console_cb(void *ctx, char *line)
{
	console_line(ctx, line);
}

static void results_cb(void *ctx, char *line)
{
	results_record(ctx, line);
}

void boot_flush(struct boot *b)
{
	if (b->console_buf.len) {
		char *rest = xstrdup(b->console_buf.buf);

		console_line(b, rest);
		free(rest);
		b->console_buf.len = 0;
	}
}

/* The longest L1 may stay silent now: to the executor's hello, or between records. */
static double silence_limit(const struct boot *b, int *limit_s)
{
	if (!b->hello) {
		*limit_s = b->o->boot_timeout_s;
		return b->started + *limit_s * 1000.0;
	}
	*limit_s = b->o->step_timeout_s;
	if (b->inflight >= 0 && b->r->s[b->inflight].sc->timeout_s > *limit_s)
		*limit_s = b->r->s[b->inflight].sc->timeout_s;
	return b->last_record + *limit_s * 1000.0;
}

/* Whether a timeout has come: which one in @end, and why. */
static bool timed_out(const struct boot *b, char **why, enum boot_end *end)
{
	double t = now_ms();
	int limit_s;

	/* QEMU exits on a panic (-no-reboot); Bochs would boot again */
	if (b->panic_at && !strcmp(b->machine, "Bochs") && t - b->panic_at > PANIC_TAIL_MS) {
		*why = xasprintf("the kernel panicked: %s", b->scan.kind);
		*end = BOOT_PANICKED;
		return true;
	}

	if (t >= b->lane->deadline) {
		*why = xasprintf("the whole run exceeded its %d s timeout", b->o->run_timeout_s);
		*end = BOOT_RUN_TIMEOUT;
		return true;
	}
	if (t >= silence_limit(b, &limit_s)) {
		*why = b->hello ? xasprintf("no result from L1 for %d s", limit_s)
				: xasprintf("L1 did not reach the executor within %d s", limit_s);
		*end = BOOT_TIMEOUT;
		return true;
	}
	return false;
}

/* Read what @fd holds into its lines; at its end (or on an error) close it. */
static void read_lines(struct boot *b, int *fd, struct sbuf *buf,
		       void (*fn)(void *ctx, char *line))
{
	char data[8192];
	ssize_t n = read(*fd, data, sizeof(data));

	if (n > 0) {
		pthread_mutex_lock(&lab_lock);
		sbuf_feed_lines(buf, data, (size_t)n, fn, b);
		pthread_mutex_unlock(&lab_lock);
	} else if (n == 0 || errno != EINTR) {
		close(*fd);
		*fd = -1;
	}
}

/* L1 has ended: the console's last line and what the results port still holds. */
static void drain(struct boot *b)
{
	char data[8192];
	ssize_t n;

	pthread_mutex_lock(&lab_lock);
	boot_flush(b);
	while (b->results_fd >= 0 && (n = read(b->results_fd, data, sizeof(data))) > 0)
		sbuf_feed_lines(&b->results_buf, data, (size_t)n, results_cb, b);
	pthread_mutex_unlock(&lab_lock);
}

/* Open the pty Bochs named in its stderr log, once it has named it. */
static void screen_open(struct boot *b)
{
	static const char mark[] = "connected to screen \"";
	char *text = read_file(b->screen_from, NULL), *at, *end;

	at = text ? strstr(text, mark) : NULL;
	end = at ? strchr(at + strlen(mark), '"') : NULL;
	if (end) {
		*end = '\0';
		b->screen_fd = open(at + strlen(mark), O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (b->screen_fd < 0) {
			say("tunlab: cannot read Bochs' screen %s: %s\n", at + strlen(mark),
			    strerror(errno));
			free(b->screen_from);
			b->screen_from = NULL;
		}
	}
	free(text);
}

/* Throw away what Bochs drew; at its end stop looking. */
static void screen_drain(struct boot *b)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(b->screen_fd, buf, sizeof(buf))) > 0)
		;
	if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(b->screen_fd);
		b->screen_fd = -1;
		free(b->screen_from);
		b->screen_from = NULL;
	}
}

/* Poll the console, the results port (or, before it connects, its listener). */
static int poll_boot(struct boot *b, short *console, short *results, short *listener)
{
	struct pollfd pfd[3];
	int np = 0, ci = -1, ri = -1, li = -1, si = -1;

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
	if (b->screen_from && b->screen_fd < 0)
		screen_open(b);
	if (b->screen_from && b->screen_fd >= 0) {
		pfd[np] = (struct pollfd){ .fd = b->screen_fd, .events = POLLIN };
		si = np++;
	}
	if (poll(pfd, (nfds_t)np, 200) < 0)
		return errno == EINTR ? 0 : -1;
	if (si >= 0 && pfd[si].revents)
		screen_drain(b);
	*console = ci >= 0 ? pfd[ci].revents : 0;
	*results = ri >= 0 ? pfd[ri].revents : 0;
	*listener = li >= 0 ? pfd[li].revents : 0;
	return 0;
}

enum boot_end boot_wait(struct boot *b, int *status, char **why)
{
	const short ready = POLLIN | POLLHUP | POLLERR;

	for (;;) {
		short console = 0, results = 0, listener = 0;
		enum boot_end end;

		if (interrupted)
			return BOOT_INTERRUPTED;
		if (timed_out(b, why, &end))
			return end;
		if (poll_boot(b, &console, &results, &listener) < 0) {
			*why = xasprintf("poll: %s", strerror(errno));
			return BOOT_SETUP;
		}
		if (listener & POLLIN) {
			b->results_fd = accept4(b->listen_fd, NULL, NULL, SOCK_CLOEXEC);
			close(b->listen_fd);
			b->listen_fd = -1;
		}
		if (results & ready)
			read_lines(b, &b->results_fd, &b->results_buf, results_cb);
		if (console & ready)
			read_lines(b, &b->console_fd, &b->console_buf, console_cb);
		/*
		 * A kernel that cannot power off (Bochs booted acpi=off) halts:
		 * the end when L1 is done; else, once what it sent has had time
		 * to arrive, L1 is lost
		 */
		if (b->halted_at && (b->done || now_ms() - b->halted_at > HALT_DRAIN_MS)) {
			if (!b->done)
				*why = xstrdup("L1's kernel halted before its executor was done");
			return BOOT_HALTED;
		}
		if (b->console_fd < 0 && waitpid(b->pid, status, WNOHANG) == b->pid) {
			b->pid = 0;
			drain(b);
			return b->done ? BOOT_DONE : BOOT_EXITED;
		}
	}
}

char *boot_status_text(const char *machine, int status)
{
	if (WIFEXITED(status))
		return xasprintf("%s exited with status %d", machine, WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return xasprintf("%s killed by signal %d", machine, WTERMSIG(status));
	return xasprintf("%s ended", machine);
}

void boot_close(struct boot *b)
{
	if (b->console_fd >= 0)
		close(b->console_fd);
	if (b->results_fd >= 0)
		close(b->results_fd);
	if (b->listen_fd >= 0)
		close(b->listen_fd);
	if (b->screen_from && b->screen_fd >= 0)
		close(b->screen_fd);
	free(b->screen_from);
	if (b->console_log)
		fclose(b->console_log);
	sbuf_free(&b->console_buf);
	sbuf_free(&b->results_buf);
	console_scan_free(&b->scan);
	free(b->lane_name);
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

void set_infra(struct run_result *r, enum tl_result res, const char *why)
{
	if (r->infra_error)
		return;
	r->infra_result = res;
	r->infra_error = xstrdup(why);
}

/* The boot's files, its results socket, its console log; NULL, or why not. */
static char *boot_prepare(struct boot *b, int attempt, char **initrd, char **sock)
{
	const struct lab_opts *o = b->o;
	char *log_path;

	strcpy(b->tmpdir, "/tmp/tunlab.XXXXXX");
	if (!mkdtemp(b->tmpdir)) {
		b->tmpdir[0] = '\0';
		return xasprintf("mkdtemp: %s", strerror(errno));
	}
	*initrd = xasprintf("%s/initrd", b->tmpdir);
	*sock = xasprintf("%s/results.sock", b->tmpdir);
	if (write_initrd(b, *initrd) < 0)
		return xasprintf("cannot assemble the L1 initramfs from %s: %s", o->initrd,
				 strerror(errno));
	b->listen_fd = listen_unix(*sock);
	if (b->listen_fd < 0)
		return xasprintf("cannot listen on %s: %s", *sock, strerror(errno));
	log_path = b->lane->lane ? xasprintf("%s/l1-console-%d.log", o->run_dir, b->lane->lane + 1)
				 : xasprintf("%s/l1-console.log", o->run_dir);
	b->console_log = fopen(log_path, "a");
	if (!b->console_log) {
		char *why = xasprintf("cannot open %s: %s", log_path, strerror(errno));

		free(log_path);
		return why;
	}
	free(log_path);
	setvbuf(b->console_log, NULL, _IOLBF, 0);
	if (attempt > 1)
		fprintf(b->console_log, "----- tunlab: fresh L1, boot %d -----\n", attempt);
	return NULL;
}

/* QEMU with L1; NULL, or why it did not start. */
static char *boot_start(struct boot *b, int attempt, const char *initrd, const char *sock)
{
	const struct lab_opts *o = b->o;
	struct l1_config cfg = {
		.qemu = o->qemu, .bios = o->bios, .kernel = o->kernel, .initrd = initrd,
		.results_socket = sock, .accel = o->accel, .mem_mb = o->mem_mb, .cpus = o->cpus,
		.cmdline_extra = o->cmdline_extra,
	};
	char *extra = NULL, *err_path, *cmd, **argv;

	/* KUnit and the KTAP programs report once, from the first L1 */
	if (b->lane->lane > 0) {
		extra = xasprintf("%s%stunlab.ktap= tunlab.kunit=0",
				  o->cmdline_extra ? o->cmdline_extra : "",
				  o->cmdline_extra && *o->cmdline_extra ? " " : "");
		cfg.cmdline_extra = extra;
	}
	argv = l1_qemu_argv(&cfg);
	free(extra);
	cmd = argv_join(argv);
	fprintf(b->console_log, "# %s\n", cmd);
	free(cmd);
	err_path = xasprintf("%s/qemu-stderr.log", o->run_dir);
	b->started = now_ms();
	b->last_record = b->started;
	b->pid = start_qemu(argv, &b->console_fd, err_path);
	argv_free(argv);
	free(err_path);
	if (b->pid < 0)
		return xasprintf("cannot start %s: %s", o->qemu, strerror(errno));
	if (b->lane->nlanes > 1)
		say("tunlab: booting L1 %d of %d (%s, %d MiB, %d cpu)%s\n", b->lane->lane + 1,
		    b->lane->nlanes, accel_name(o->accel), o->mem_mb, o->cpus,
		    attempt > 1 ? " again for the rest of its share" : "");
	else
		say("tunlab: booting L1 (%s, %d MiB, %d cpu)%s\n", accel_name(o->accel),
		    o->mem_mb, o->cpus, attempt > 1 ? " again for the rest of the plan" : "");
	return NULL;
}

/* L1 stopped or hung: the scenario in flight takes the blame, if there was one. */
static bool boot_lost(struct boot *b, enum tl_result res, const char *why)
{
	if (b->inflight >= 0) {
		end_scenario(b, b->inflight, res, now_ms() - b->last_record, why);
		return true;
	}
	return b->completed > 0;
}

/*
 * How the boot ended, into the results (under lab_lock); @why may be
 * replaced. Returns true when a fresh L1 should take over the rest.
 */
static bool boot_judge(struct boot *b, enum boot_end end, int status, char **why)
{
	struct lane *l = b->lane;
	char *st = boot_status_text(b->machine, status);
	bool again = false;

	/* halted before it was done: as lost as a machine that exited */
	if (end == BOOT_HALTED && !b->done)
		end = BOOT_EXITED;
	switch (end) {
	case BOOT_DONE:
	case BOOT_HALTED:
		/* a plan that ends early was cut short on purpose (--fail-fast) */
		abandon_rest(b->r, l->lane, l->lane_of, TL_NOTRUN,
			     "not run: an earlier scenario did not pass (--fail-fast)");
		if (end == BOOT_HALTED || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
			break;
		*why = xasprintf("L1 finished the plan but %s", st);
		set_infra(b->r, TL_ERROR, *why);
		break;
	case BOOT_EXITED:
	case BOOT_PANICKED:
		if (!*why)
			*why = xasprintf("L1 stopped unexpectedly: %s%s%s", st,
					 b->scan.kind ? " after a kernel " : "",
					 b->scan.kind ? b->scan.kind : "");
		again = boot_lost(b, b->scan.kind ? TL_CRASH : TL_ERROR, *why);
		if (!again) {
			set_infra(b->r, b->scan.kind ? TL_CRASH : TL_ERROR, *why);
			abandon_rest(b->r, l->lane, l->lane_of, TL_NOTRUN, *why);
		}
		break;
	case BOOT_TIMEOUT:
		say("tunlab: %s; L1 killed\n", *why);
		again = boot_lost(b, TL_TIMEOUT, *why);
		if (!again)
			set_infra(b->r, TL_TIMEOUT, *why);
		break;
	case BOOT_RUN_TIMEOUT:
		say("tunlab: %s; L1 killed\n", *why);
		if (b->inflight >= 0)
			end_scenario(b, b->inflight, TL_TIMEOUT, now_ms() - b->last_record, *why);
		set_infra(b->r, TL_TIMEOUT, *why);
		break;
	case BOOT_INTERRUPTED:
		free(*why);
		*why = xstrdup("interrupted");
		if (b->inflight >= 0)
			end_scenario(b, b->inflight, TL_ERROR, now_ms() - b->last_record, *why);
		set_infra(b->r, TL_ERROR, *why);
		break;
	case BOOT_SETUP:
		set_infra(b->r, TL_ERROR, *why);
		break;
	}
	free(st);
	return again;
}

/* One L1 boot. Returns true when another boot should take over the rest. */
static bool boot_once(struct lane *l, int attempt)
{
	struct boot b = {
		.o = l->o, .lane = l, .r = l->r, .machine = "QEMU", .console_fd = -1,
		.listen_fd = -1, .results_fd = -1, .inflight = -1,
	};
	char *initrd = NULL, *sock = NULL, *why;
	enum boot_end end;
	int status = 0;
	bool again = false;

	why = boot_prepare(&b, attempt, &initrd, &sock);
	if (!why)
		why = boot_start(&b, attempt, initrd, sock);
	if (why) {
		pthread_mutex_lock(&lab_lock);
		set_infra(l->r, TL_ERROR, why);
		abandon_rest(l->r, l->lane, l->lane_of, TL_ERROR, why);
		pthread_mutex_unlock(&lab_lock);
	} else {
		end = boot_wait(&b, &status, &why);
		if (end != BOOT_DONE && end != BOOT_EXITED)
			boot_kill(&b);
		pthread_mutex_lock(&lab_lock);
		boot_flush(&b);
		again = boot_judge(&b, end, status, &why);
		pthread_mutex_unlock(&lab_lock);
	}
	boot_close(&b);
	if (initrd)
		unlink(initrd);
	if (sock)
		unlink(sock);
	if (b.tmpdir[0])
		rmdir(b.tmpdir);
	free(initrd);
	free(sock);
	free(why);
	return again;
}

/* Boots of the VMX lane under Bochs while @q has any left (vmx.c). */
static void run_vmx_boots(struct vmx_queue *q, const struct lab_opts *o, struct run_result *r,
			  double deadline)
{
	struct lane vmx = { .o = o, .r = r, .deadline = deadline };

	while (!interrupted && vmx_lane_next(q, o, r, &vmx))
		;
}

/*
 * One L1 after another until this lane's share of the plan has run; then
 * boots of the VMX lane, as long as any is left.
 */
static void *run_lane(void *arg)
{
	struct lane *l = arg;
	int attempt = 0;

	/* at least one boot: KUnit and the KTAP programs run even with no scenario */
	do {
		if (!boot_once(l, ++attempt))
			break;
	} while (lane_left(l->r, l->lane, l->lane_of));
	pthread_mutex_lock(&lab_lock);
	abandon_rest(l->r, l->lane, l->lane_of, TL_NOTRUN, NULL);
	pthread_mutex_unlock(&lab_lock);
	if (l->vmx)
		run_vmx_boots(l->vmx, l->o, l->r, l->deadline);
	return NULL;
}

void lab_run(const struct lab_opts *o, const struct plan *s, struct run_result *r)
{
	struct console_scan *l2_scans = xcalloc((size_t)r->n, sizeof(*l2_scans));
	double t0 = now_ms();
	int nlanes = o->jobs > 1 ? o->jobs : 1;
	int *lane_of = xcalloc((size_t)r->n + 1, sizeof(int));
	int groups = plan_deal(s->scenarios, r->n, nlanes, NULL, lane_of);
	struct vmx_queue vmxq = { 0 };
	struct lane *lanes;

	/* no more L1s than groups: each lane's share is one group or more */
	if (nlanes > groups && groups > 0)
		nlanes = groups;
	/*
	 * dealt again between those, the first starting with its KTAP
	 * programs. The VMX lane's boots go to the lanes as they finish, so
	 * that Bochs runs while other L1s still do, not after them all; the
	 * last lane's share is one boot smaller, to take the first of them
	 */
	if (nlanes > 1) {
		long *head = xcalloc((size_t)nlanes, sizeof(long));

		head[0] = o->ktap_ms;
		if (o->vmx_image)
			head[nlanes - 1] += o->vmx_ms / vmx_nsettings;
		plan_deal(s->scenarios, r->n, nlanes, head, lane_of);
		free(head);
	}
	if (o->vmx_only)
		nlanes = 0;
	lanes = xcalloc((size_t)nlanes, sizeof(*lanes));
	for (int i = 0; i < nlanes; i++) {
		lanes[i] = (struct lane){ .o = o, .plan = s, .r = r, .l2_scans = l2_scans,
					  .deadline = t0 + o->run_timeout_s * 1000.0,
					  .lane = i, .nlanes = nlanes, .lane_of = lane_of,
					  .vmx = o->vmx_image && nlanes > 1 ? &vmxq : NULL };
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
	/* one L1, or none (--vmx-only): the VMX lane after it */
	if (o->vmx_image && nlanes <= 1)
		run_vmx_boots(&vmxq, o, r, t0 + o->run_timeout_s * 1000.0);
	if (o->vmx_image && !interrupted)
		vmx_lane_end(&vmxq, r);
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
