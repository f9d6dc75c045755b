// SPDX-License-Identifier: GPL-2.0
/*
 * The VMX lane: L1 under Bochs (bochs.c), once per kvm_intel setting,
 * running kvm-probes. Each boot goes through the same wait as an L1 under
 * QEMU (lab.c): its records and console lines fill the same result model
 * under a lane name of its own, and the same timeouts and exit codes
 * apply. It runs no scenarios, so what went wrong is its suite's result.
 */
#include "boot.h"
#include "bochs.h"
#include "qemu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/spawn.h"

/*
 * kvm-probes in @lane_name did not end: it takes the boot's outcome, so
 * the report names what happened under each setting.
 */
static void vmx_suite_failed(struct run_result *r, const char *lane_name, enum tl_result res,
			     const char *why)
{
	struct suite_result *su = run_suite(r, VMX_PROGRAM, lane_name);

	if (su->status != -1)
		return;
	su->result = res;
	free(su->reason);
	su->reason = xstrdup(why);
}

static char *vmx_lane_name(int n)
{
	return xasprintf("bochs vmx %s", vmx_settings[n].name);
}

/*
 * The kernel command line of the boot under setting @n. clearcpuid=ht:
 * Bochs's one-processor Haswell (every Intel model of Bochs 2.7 alike)
 * sets HT with one logical processor in CPUID leaf 1 but four cores in
 * leaf 4, and 6.12's topology parser WARNs at that (parse_legacy);
 * without HT it takes the one CPU as it is. One CPU has no sibling to
 * lose.
 *
 * The lane runs kvm-probes and nothing else: it leaves out KUnit's suites
 * (kunit.enable=0; the QEMU lanes report them). A kernel with kmemleak
 * scans in the first setting's boot only, kvm_intel's default
 * (tunlab.kmemleak=0 after it): under Bochs the debug kernel's scans take
 * two and a half minutes a boot. --vmx-append's words come after
 * --append's, before the setting's.
 */
char *vmx_cmdline(const struct lab_opts *o, int n)
{
	/* the last tunlab.ktap= is the one L1 reads */
	char *ktap = o->vmx_ktap ? xasprintf(" tunlab.ktap=%s", o->vmx_ktap) : xstrdup("");
	const char *leaks = n == 0 ? "" : " tunlab.kmemleak=0";
	struct sbuf extra = { 0 };
	char *line;

	if (o->cmdline_extra && *o->cmdline_extra)
		sbuf_printf(&extra, " %s", o->cmdline_extra);
	if (o->vmx_cmdline_extra && *o->vmx_cmdline_extra)
		sbuf_printf(&extra, " %s", o->vmx_cmdline_extra);
	line = xasprintf(L1_CMDLINE " tunlab.results=/dev/ttyS1 tunlab.kunit=0 kunit.enable=0"
			 " clearcpuid=ht%s%s %s%s", leaks, extra.len ? extra.buf : "",
			 vmx_settings[n].cmdline, ktap);
	sbuf_free(&extra);

	free(ktap);
	return line;
}

/* This boot's CD and FIFOs, its console log, Bochs started; NULL, or why not. */
static char *vmx_start(struct boot *b, struct bochs_boot *bx, int n)
{
	const struct lab_opts *o = b->o;
	char why[1024], *cmdline = vmx_cmdline(o, n), *path, *cmd, **argv;

	strcpy(b->tmpdir, "/tmp/tunlab.XXXXXX");
	if (!mkdtemp(b->tmpdir)) {
		b->tmpdir[0] = '\0';
		free(cmdline);
		return xasprintf("mkdtemp: %s", strerror(errno));
	}
	bx->tmpdir = b->tmpdir;
	if (bochs_prepare(bx, cmdline, why, sizeof(why)) < 0) {
		free(cmdline);
		return xstrdup(why);
	}
	/* open before Bochs does: a FIFO's writer waits for its reader */
	b->console_fd = open(bx->console, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	b->results_fd = open(bx->results, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	path = xasprintf("%s/l1-vmx-%d-console.log", o->run_dir, n + 1);
	b->console_log = fopen(path, "w");
	if (b->console_fd < 0 || b->results_fd < 0 || !b->console_log) {
		char *err = xasprintf("cannot open %s, %s or %s: %s", bx->console, bx->results,
				      path, strerror(errno));

		free(path);
		free(cmdline);
		return err;
	}
	free(path);
	setvbuf(b->console_log, NULL, _IOLBF, 0);
	argv = bochs_argv(bx);
	cmd = argv_join(argv);
	fprintf(b->console_log, "# %s\n# kernel command line: %s\n", cmd, cmdline);
	free(cmd);
	free(cmdline);
	path = xasprintf("%s/l1-vmx-%d-bochs-stderr.log", o->run_dir, n + 1);
	b->started = now_ms();
	b->last_record = b->started;
	/* Bochs' own display (term) goes to /dev/null; a group of its own, like QEMU */
	b->pid = spawn(&(struct spawn){ .argv = argv, .out = SPAWN_NULL, .err = SPAWN_FILE,
					.err_file = path, .err_truncate = true, .new_pgrp = true },
		       NULL);
	argv_free(argv);
	if (b->pid < 0) {
		free(path);
		return xasprintf("cannot start bochs: %s", strerror(errno));
	}
	b->screen_from = path;
	say("tunlab: booting L1 under Bochs (vmx, %s)\n", vmx_settings[n].name);
	return NULL;
}

/*
 * How the boot ended, as a reason (NULL: it went well) and a result.
 * Bochs ends through a panic of its own even when L1 powers off, so its
 * log says which end it was.
 */
static char *vmx_judge(struct boot *b, const char *bochs_log, enum boot_end end, int status,
		       char *why, enum tl_result *res)
{
	char *msg = bochs_exit_message(bochs_log), *st, *out = NULL;

	st = msg ? xasprintf("Bochs ended: %s", msg) : boot_status_text(b->machine, status);
	*res = TL_ERROR;
	switch (end) {
	case BOOT_DONE:
		out = bochs_powered_off(msg) ? NULL : xasprintf("finished, but %s", st);
		break;
	case BOOT_HALTED:
		/* acpi=off: no power off; the kernel halts once L1 is done */
		if (b->done)
			break;
		*res = b->scan.kind ? TL_CRASH : TL_ERROR;
		out = xstrdup(why);
		break;
	case BOOT_EXITED:
		*res = b->scan.kind ? TL_CRASH : TL_ERROR;
		out = xasprintf("stopped before it finished: %s", st);
		break;
	case BOOT_PANICKED:
		*res = TL_CRASH;
		out = xstrdup(why);
		break;
	case BOOT_TIMEOUT:
	case BOOT_RUN_TIMEOUT:
		say("tunlab: %s; L1 (%s) killed\n", why, b->lane_name);
		*res = TL_TIMEOUT;
		out = xstrdup(why);
		break;
	case BOOT_INTERRUPTED:
		out = xstrdup("interrupted");
		break;
	case BOOT_SETUP:
		out = xstrdup(why);
		break;
	}
	free(st);
	free(msg);
	return out;
}

/*
 * One boot under setting @n. Returns whether the lane goes on: not after
 * an interruption or the run's timeout, nor when L1 never reached its
 * executor, which another setting would not change.
 */
static bool vmx_boot(const struct lab_opts *o, struct run_result *r, struct lane *l, int n)
{
	struct boot b = {
		.o = o, .lane = l, .r = r, .machine = "Bochs", .console_fd = -1,
		.listen_fd = -1, .results_fd = -1, .inflight = -1, .screen_fd = -1,
	};
	struct bochs_boot bx = { .image_dir = o->vmx_image };
	enum boot_end end = BOOT_SETUP;
	enum tl_result res = TL_ERROR;
	char *why, *reason;
	int status = 0;

	b.lane_name = vmx_lane_name(n);
	bx.log = xasprintf("%s/l1-vmx-%d-bochs.log", o->run_dir, n + 1);
	why = vmx_start(&b, &bx, n);
	if (!why) {
		end = boot_wait(&b, &status, &why);
		if (end != BOOT_DONE && end != BOOT_EXITED)
			boot_kill(&b);
	}
	pthread_mutex_lock(&lab_lock);
	boot_flush(&b);
	reason = end == BOOT_SETUP ? xstrdup(why) : vmx_judge(&b, bx.log, end, status, why, &res);
	/* a boot that ran no probes tested nothing: not a pass */
	if (!reason && run_suite(r, VMX_PROGRAM, b.lane_name)->status == -1)
		reason = xstrdup("powered off without running " VMX_PROGRAM " to its end");
	if (reason) {
		char *full = xasprintf("L1 (%s): %s", b.lane_name, reason);

		set_infra(r, res, full);
		vmx_suite_failed(r, b.lane_name, res, full);
		free(full);
	}
	pthread_mutex_unlock(&lab_lock);
	boot_close(&b);
	bochs_boot_free(&bx);
	if (b.tmpdir[0])
		rmdir(b.tmpdir);
	free((char *)bx.log);
	free(reason);
	free(why);
	return b.hello && end != BOOT_INTERRUPTED && end != BOOT_RUN_TIMEOUT;
}

bool vmx_lane_next(struct vmx_queue *q, const struct lab_opts *o, struct run_result *r,
		   struct lane *l)
{
	int n;

	pthread_mutex_lock(&lab_lock);
	n = q->stop || q->next >= vmx_nsettings ? -1 : q->next++;
	pthread_mutex_unlock(&lab_lock);
	if (n < 0)
		return false;
	if (!vmx_boot(o, r, l, n)) {
		pthread_mutex_lock(&lab_lock);
		q->stop = true;
		pthread_mutex_unlock(&lab_lock);
	}
	return true;
}

void vmx_lane_end(struct vmx_queue *q, struct run_result *r)
{
	for (int n = q->next; n < vmx_nsettings; n++) {
		char *lane_name = vmx_lane_name(n);

		pthread_mutex_lock(&lab_lock);
		vmx_suite_failed(r, lane_name, TL_NOTRUN,
				 "not run: an earlier boot of L1 under Bochs did not get through");
		pthread_mutex_unlock(&lab_lock);
		free(lane_name);
	}
}
