// SPDX-License-Identifier: GPL-2.0
/*
 * The runner's pieces: QEMU and Bochs arguments, accelerator choice, console
 * scanning on recorded logs, the results protocol, the scenario bundle,
 * exit-code mapping and report writing.
 */
#include "check.h"
#include "common/cpuinfo.h"
#include "runner/accel.h"
#include "runner/bochs.h"
#include "runner/boot.h"
#include "runner/bundle.h"
#include "runner/console.h"
#include "common/proto.h"
#include "runner/qemu.h"
#include "runner/report/report.h"
#include "common/util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool argv_has(char **argv, const char *a, const char *b)
{
	for (char **p = argv; *p; p++)
		if (!strcmp(*p, a) && (!b || (p[1] && !strcmp(p[1], b))))
			return true;
	return false;
}

static const char *argv_after(char **argv, const char *a)
{
	for (char **p = argv; *p; p++)
		if (!strcmp(*p, a))
			return p[1];
	return NULL;
}

void test_qemu_argv_tcg_has_no_nic_no_reboot_and_panics_out(void)
{
	struct l1_config c = {
		.qemu = "qemu-system-x86_64", .bios = "/q/qboot.rom", .kernel = "bz",
		.initrd = "ird", .results_socket = "/tmp/r.sock", .accel = ACCEL_TCG,
		.mem_mb = 2048, .cpus = 2, .cmdline_extra = "tunlab.ktap=x",
	};
	char **v = l1_qemu_argv(&c);

	CHECK(argv_has(v, "-nic", "none"));
	CHECK(argv_has(v, "-no-reboot", NULL));
	CHECK(argv_has(v, "-accel", "tcg,thread=multi"));
	CHECK(argv_has(v, "-cpu", "max"));
	CHECK(argv_has(v, "-bios", "/q/qboot.rom"));
	CHECK(argv_has(v, "-m", "2048"));
	CHECK(argv_has(v, "-smp", "2"));
	CHECK_CONTAINS(argv_after(v, "-append"), "panic=-1");
	CHECK_CONTAINS(argv_after(v, "-append"), "console=ttyS0");
	CHECK_CONTAINS(argv_after(v, "-append"), " tunlab.ktap=x");
	CHECK(argv_has(v, "-chardev", "socket,id=results,path=/tmp/r.sock"));
	CHECK(argv_has(v, "-device", "virtserialport,chardev=results,name=tunlab.results"));
	argv_free(v);
}

void test_qemu_argv_kvm_uses_host_cpu_and_smoke_flag(void)
{
	struct l1_config c = {
		.qemu = "q", .bios = "b", .kernel = "k", .initrd = "i",
		.accel = ACCEL_KVM, .mem_mb = 256, .cpus = 1, .smoke = true,
	};
	char **v = l1_qemu_argv(&c);
	char *joined = argv_join(v);

	CHECK(argv_has(v, "-accel", "kvm"));
	CHECK(argv_has(v, "-cpu", "host"));
	CHECK(!argv_has(v, "-device", "virtio-serial-pci"));
	CHECK_CONTAINS(argv_after(v, "-append"), "tunlab.smoke=1");
	CHECK_CONTAINS(joined, "-append 'console=ttyS0 panic=-1");
	free(joined);
	argv_free(v);
}

static int smoke_calls;

static int smoke_ok(void *ctx)
{
	(void)ctx;
	smoke_calls++;
	return 0;
}

static int smoke_fails(void *ctx)
{
	(void)ctx;
	smoke_calls++;
	return -1;
}

void test_bochs_argv_gives_the_machine_its_files(void)
{
	struct bochs_boot b = {
		.image_dir = "build/images/vmx", .log = "/r/l1-vmx-1-bochs.log",
		.cd = (char *)"/t/boot.iso", .console = (char *)"/t/console",
		.results = (char *)"/t/results",
	};
	char **argv = bochs_argv(&b);

	/* bochsrc takes its paths from the environment */
	CHECK_STR(argv[0], "env");
	CHECK(argv_has(argv, "TUNLAB_CD=/t/boot.iso", NULL));
	CHECK(argv_has(argv, "TUNLAB_CONSOLE=/t/console", NULL));
	CHECK(argv_has(argv, "TUNLAB_RESULTS=/t/results", NULL));
	CHECK(argv_has(argv, "TUNLAB_BOCHS_LOG=/r/l1-vmx-1-bochs.log", NULL));
	CHECK(argv_has(argv, "-f", "build/images/vmx/bochsrc"));
	/* without it the debugger Debian builds in waits at the first instruction */
	CHECK(argv_has(argv, "-rc", "build/images/vmx/continue.rc"));
	argv_free(argv);
}

void test_vmx_cmdline_scans_for_leaks_in_the_default_setting(void)
{
	struct lab_opts o = { .cmdline_extra = "tunlab.slow=4", .vmx_cmdline_extra = "acpi=off" };

	for (int n = 0; n < vmx_nsettings; n++) {
		char *line = vmx_cmdline(&o, n);
		bool first = n == 0;

		CHECK_CONTAINS(line, vmx_settings[n].cmdline);
		CHECK_CONTAINS(line, " kunit.enable=0");
		/* --vmx-append's words after --append's */
		CHECK_CONTAINS(line, " tunlab.slow=4 acpi=off ");
		CHECK(!strstr(line, "tunlab.kmemleak=0") == first);
		free(line);
	}
	o = (struct lab_opts){ 0 };
	{
		char *line = vmx_cmdline(&o, 0);

		CHECK(!strstr(line, "acpi=off") && !strstr(line, "  "));
		free(line);
	}
}

void test_a_halted_kernel_is_seen_on_the_console(void)
{
	struct lab_opts o = { 0 };
	struct lane l = { 0 };
	struct boot b = { .o = &o, .lane = &l, .inflight = -1 };

	console_line(&b, "tunlab-init: power_off");
	console_line(&b, "[   14.2] reboot: Power down");
	console_line(&b, "echo 'reboot: System halted'");
	CHECK(!b.halted_at);
	/* 6.12 without ACPI, then 6.1's kernel_halt(), then without printk time */
	console_line(&b, "[   15.495448] reboot: Power off not available: System halted instead");
	CHECK(b.halted_at > 0);
	b.halted_at = 0;
	console_line(&b, "[   15.331542] reboot: System halted");
	CHECK(b.halted_at > 0);
	b.halted_at = 0;
	console_line(&b, "reboot: System halted");
	CHECK(b.halted_at > 0);
	console_scan_free(&b.scan);
}

void test_bochs_exit_message_is_its_last_panic(void)
{
	char path[] = "/tmp/tunlab-bochs-XXXXXX";
	int fd = mkstemp(path);
	char *msg;

	CHECK(fd >= 0);
	CHECK(dprintf(fd, "00000000000i[      ] reading configuration\n"
		      "00123456789e[CPU0  ] RDMSR: Unknown register 0xe7\n"
		      "00779150644p[ACPI  ] >>PANIC<< ACPI control: soft power off\n") > 0);
	close(fd);
	msg = bochs_exit_message(path);
	CHECK_STR(msg, "ACPI control: soft power off");
	CHECK(bochs_powered_off(msg));
	free(msg);
	fd = open(path, O_WRONLY | O_APPEND);
	CHECK(dprintf(fd, "00779150699p[CPU0  ] >>PANIC<< exception(): 3rd (13) exception with no resolution\n") > 0);
	close(fd);
	msg = bochs_exit_message(path);
	CHECK_STR(msg, "exception(): 3rd (13) exception with no resolution");
	CHECK(!bochs_powered_off(msg));
	free(msg);
	unlink(path);
	CHECK(bochs_exit_message(path) == NULL);
	CHECK(!bochs_powered_off(NULL));
}

void test_accel_without_vmx_svm_is_tcg_without_a_smoke_boot(void)
{
	struct accel_choice ac;

	smoke_calls = 0;
	CHECK_INT(accel_choose(NULL, "processor\t: 0\nflags\t\t: fpu vme sse2 hypervisor\n",
			       smoke_ok, NULL, &ac), 0);
	CHECK_INT(ac.accel, ACCEL_TCG);
	CHECK_INT(smoke_calls, 0);
	CHECK_CONTAINS(ac.reason, "no vmx/svm");
}

void test_accel_svm_with_working_kvm_is_kvm(void)
{
	struct accel_choice ac;

	smoke_calls = 0;
	CHECK_INT(accel_choose("", "flags\t\t: fpu svm npt\n", smoke_ok, NULL, &ac), 0);
	CHECK_INT(ac.accel, ACCEL_KVM);
	CHECK_INT(smoke_calls, 1);
}

void test_accel_vmx_with_broken_kvm_falls_back_to_tcg(void)
{
	struct accel_choice ac;

	smoke_calls = 0;
	CHECK_INT(accel_choose(NULL, "flags\t\t: fpu vmx ept\n", smoke_fails, NULL, &ac), 0);
	CHECK_INT(ac.accel, ACCEL_TCG);
	CHECK_INT(smoke_calls, 1);
	CHECK_CONTAINS(ac.reason, "smoke boot failed");
}

void test_accel_flag_must_be_a_whole_word(void)
{
	CHECK(!cpuinfo_virt_flag("flags\t\t: fpu svmx vmxe\n"));
	CHECK_STR(cpuinfo_virt_flag("flags\t\t: vmx\n"), "vmx");
}

void test_accel_override(void)
{
	struct accel_choice ac;

	smoke_calls = 0;
	CHECK_INT(accel_choose("kvm", "flags : fpu\n", smoke_fails, NULL, &ac), 0);
	CHECK_INT(ac.accel, ACCEL_KVM);
	CHECK_INT(accel_choose("tcg", "flags : svm\n", smoke_ok, NULL, &ac), 0);
	CHECK_INT(ac.accel, ACCEL_TCG);
	CHECK_INT(smoke_calls, 0);
	CHECK_INT(accel_choose("hvf", NULL, smoke_ok, NULL, &ac), -1);
	CHECK_CONTAINS(ac.reason, "invalid ACCEL='hvf'");
}

/* Scan a recorded console log; returns the scanner for inspection. */
static void scan_log(const char *name, struct console_scan *cs)
{
	char *path = xasprintf("%s/consoles/%s", check_data_dir, name);
	char *text = read_file(path, NULL), *save, *line;

	memset(cs, 0, sizeof(*cs));
	if (!text) {
		check_fail(__FILE__, __LINE__, "cannot read %s", path);
		free(path);
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		console_scan_line(cs, line);
	free(text);
	free(path);
}

void test_console_scan_recorded_reports(void)
{
	static const struct {
		const char *log, *kind;
		int line;
		bool panic;
		const char *quoted;
	} cases[] = {
		{ "warning-xsave.log", "WARNING", 3, false, "fpu__init_system_xstate" },
		{ "panic-init-killed.log", "panic", 3, true, "Attempted to kill init" },
		{ "oops-null-deref.log", "BUG", 2, false, "Oops: 0000 [#1]" },
		{ "kasan-uaf.log", "KASAN", 2, false, "tun_detach" },
		{ "oops-then-panic.log", "general protection fault", 1, true, "Fatal exception" },
		/* what the debug kernel's checkers print (kernel/config/debug.extra) */
		{ "lockdep-circular.log", "WARNING", 3, false, "tg_policy_replace" },
		{ "suspicious-rcu.log", "WARNING", 4, false, "suspicious rcu_dereference_check" },
		{ "ubsan-shift.log", "UBSAN", 3, false, "security/tunguard/policy.c:301" },
		{ "kfence-uaf.log", "BUG", 3, false, "tg_policy_match" },
		{ "atomic-sleep.log", "BUG", 2, false, "in_atomic(): 1" },
		{ "list-corruption.log", "WARNING", 3, false, "lib/list_debug.c:30" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct console_scan cs;

		scan_log(cases[i].log, &cs);
		CHECK_STR(cs.kind, cases[i].kind);
		CHECK_INT(cs.line_no, cases[i].line);
		CHECK_INT(cs.panic, cases[i].panic);
		CHECK_CONTAINS(cs.excerpt.buf, cases[i].quoted);
		console_scan_free(&cs);
	}
}

void test_console_scan_ignores_clean_logs_and_user_space(void)
{
	static const char *const logs[] = { "clean-l1-boot.log", "userspace-words.log",
					    "clean-debug-boot.log" };

	for (size_t i = 0; i < ARRAY_SIZE(logs); i++) {
		struct console_scan cs;

		scan_log(logs[i], &cs);
		CHECK(cs.lines_seen > 5);
		CHECK(!cs.kind);
		CHECK(!cs.panic);
		console_scan_free(&cs);
	}
}

void test_proto_round_trip_escapes_tabs_newlines_backslashes(void)
{
	char *buf = NULL, *f[PROTO_MAX_FIELDS];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	CHECK_INT(proto_emit(m, "step", 3, "1", "a\tb\nc\\d", ""), 0);
	fclose(m);
	CHECK_STR(buf, "step\t1\ta\\tb\\nc\\\\d\t\n");
	buf[len - 1] = '\0';
	CHECK_INT(proto_split(buf, f, PROTO_MAX_FIELDS), 4);
	CHECK_STR(f[0], "step");
	CHECK_STR(f[2], "a\tb\nc\\d");
	CHECK_STR(f[3], "");
	free(buf);
}

void test_bundle_is_a_cpio_the_system_tool_lists(void)
{
	struct cpio_writer w = { 0 };
	char path[] = "/tmp/tunlab-unit-XXXXXX";
	int fd = mkstemp(path);
	char *cmd, line[256];
	FILE *p;
	int n = 0;

	cpio_add_dir(&w, "tunlab");
	cpio_add_file(&w, "tunlab/plan", "0\tx\t0\n", 6, 0644);
	cpio_add_file(&w, "tunlab/odd", "abc", 3, 0600);
	cpio_finish(&w);
	CHECK_INT(w.out.len % 4, 0);
	CHECK(write(fd, w.out.buf, w.out.len) == (ssize_t)w.out.len);
	close(fd);
	cmd = xasprintf("cpio -it --quiet < %s", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		CHECK_STR(line, n == 0 ? "tunlab" : n == 1 ? "tunlab/plan" : "tunlab/odd");
		n++;
	}
	CHECK_INT(p ? pclose(p) : -1, 0);
	CHECK_INT(n, 3);
	unlink(path);
	free(cmd);
	sbuf_free(&w.out);
}

/* A run with two scenarios of @steps steps each, for the result tests. */
static void make_run(struct run_result *r, struct scenario *sc, struct scn_step *steps)
{
	static char *texts[] = { "as root create tap lab0 => ok", "as 1000 attach tap lab0 => EPERM" };
	const struct scenario *plan[2] = { &sc[0], &sc[1] };

	for (int i = 0; i < 2; i++) {
		steps[i] = (struct scn_step){ .line = 3 + i, .text = texts[i] };
		sc[i] = (struct scenario){ .file = "host-scenarios/x.scn", .line = 1 + i * 10,
					   .title = i ? "second # hash" : "first",
					   .nsteps = 2, .steps = steps };
	}
	run_init(r, plan, 2);
	r->id = xstrdup("20261203-000000");
	r->kernel = xstrdup("6.1.192+");
	r->accel = xstrdup("tcg");
}

void test_interrupted_run_exits_128_plus_its_signal_and_says_so(void)
{
	struct scenario sc[2];
	struct scn_step steps[2];
	struct run_result r;
	char *text;

	make_run(&r, sc, steps);
	r.s[0].result = TL_PASS;
	r.s[1].result = TL_ERROR;
	r.interrupted_by = SIGINT;
	CHECK_INT(run_exit_code(&r), 130);
	text = report_json_text(&r);
	CHECK_CONTAINS(text, "\"exit_status\": 130");
	CHECK_CONTAINS(text, "\"interrupted\": true");
	free(text);
	text = report_summary_text(&r);
	CHECK_CONTAINS(text, "interrupted by SIGINT: this report is partial");
	free(text);
	r.interrupted_by = 0;
	CHECK_INT(run_exit_code(&r), TL_EXIT_SETUP);
	run_free(&r);
}

void test_exit_code_contract(void)
{
	struct scenario sc[2];
	struct scn_step steps[2];
	struct run_result r;

	make_run(&r, sc, steps);
	r.s[0].result = TL_PASS;
	r.s[1].result = TL_PASS;
	CHECK_INT(run_exit_code(&r), TL_EXIT_PASS);
	r.s[1].result = TL_SKIP;
	CHECK_INT(run_exit_code(&r), TL_EXIT_PASS);
	r.s[0].result = TL_SKIP;
	CHECK_INT(run_exit_code(&r), TL_EXIT_SKIP);
	r.s[0].result = TL_ERROR;
	CHECK_INT(run_exit_code(&r), TL_EXIT_SETUP);
	r.s[1].result = TL_FAIL;
	CHECK_INT(run_exit_code(&r), TL_EXIT_FAIL);
	r.s[1].result = TL_NOTRUN;
	CHECK_INT(run_exit_code(&r), TL_EXIT_FAIL);
	r.s[0].result = TL_TIMEOUT;
	CHECK_INT(run_exit_code(&r), TL_EXIT_TIMEOUT);
	r.s[1].result = TL_CRASH;
	CHECK_INT(run_exit_code(&r), TL_EXIT_CRASH);
	r.s[0].result = r.s[1].result = TL_PASS;
	r.crash_kind = xstrdup("WARNING on L1 console, line 3");
	CHECK_INT(run_exit_code(&r), TL_EXIT_CRASH);
	run_free(&r);
}

void test_failed_suite_fails_the_run(void)
{
	struct scenario sc[2];
	struct scn_step steps[2];
	struct run_result r;
	struct suite_result *su;

	make_run(&r, sc, steps);
	r.s[0].result = r.s[1].result = TL_PASS;
	su = run_suite(&r, "kvm-probes", "qemu-tcg svm");
	su->lines = xcalloc(4, sizeof(char *));
	su->lines[su->nlines++] = xstrdup("KTAP version 1");
	su->lines[su->nlines++] = xstrdup("    ok 1 pio datamatch");
	su->lines[su->nlines++] = xstrdup("    not ok 2 mmio exit");
	su->lines[su->nlines++] = xstrdup("ok 1 ioeventfd");
	su->status = 0;
	suite_result_judge(su);
	CHECK_INT(su->result, TL_PASS);
	CHECK_INT(su->n_ok, 1);
	CHECK_INT(run_exit_code(&r), TL_EXIT_PASS);
	free(su->lines[3]);
	su->lines[3] = xstrdup("not ok 1 ioeventfd");
	suite_result_judge(su);
	CHECK_INT(su->result, TL_FAIL);
	CHECK_INT(run_exit_code(&r), TL_EXIT_FAIL);
	su->status = 139;
	suite_result_judge(su);
	CHECK_INT(su->result, TL_ERROR);
	CHECK_CONTAINS(su->reason, "status 139");
	free(su->lines[3]);
	su->lines[3] = xstrdup("ok 1 ioeventfd # SKIP no KVM_CAP_IOEVENTFD");
	su->status = 4;
	suite_result_judge(su);
	CHECK_INT(su->result, TL_SKIP);
	CHECK_INT(su->n_skip, 1);
	run_free(&r);
}

void test_suites_of_two_lanes_stay_apart_in_every_report(void)
{
	struct scenario sc[2];
	struct scn_step steps[2];
	struct run_result r;
	struct suite_result *svm, *vmx;
	char *text;

	make_run(&r, sc, steps);
	r.s[0].result = r.s[1].result = TL_PASS;
	run_suite(&r, "kvm-probes", "qemu-tcg svm");
	vmx = run_suite(&r, "kvm-probes", "bochs vmx unrestricted_guest=0");
	/* the same name in another lane is another suite; the first is found again */
	svm = run_suite(&r, "kvm-probes", "qemu-tcg svm");
	CHECK_INT(r.nsuites, 2);
	if (svm == vmx) {
		check_fail(__FILE__, __LINE__, "two lanes' kvm-probes are one suite");
		run_free(&r);
		return;
	}
	svm->lines = xcalloc(1, sizeof(char *));
	svm->lines[svm->nlines++] = xstrdup("ok 1 realmode");
	vmx->lines = xcalloc(1, sizeof(char *));
	vmx->lines[vmx->nlines++] = xstrdup("not ok 1 realmode");
	svm->status = 0;
	vmx->status = 1;
	suite_result_judge(svm);
	suite_result_judge(vmx);
	CHECK_INT(run_exit_code(&r), TL_EXIT_FAIL);

	text = report_ktap_text(&r);
	CHECK_CONTAINS(text, "\nok 3 kvm-probes [qemu-tcg svm]\n");
	CHECK_CONTAINS(text, "\nnot ok 4 kvm-probes [bochs vmx unrestricted_guest=0]");
	free(text);
	text = report_summary_text(&r);
	CHECK_CONTAINS(text, "qemu-tcg svm                    kvm-probes: ");
	CHECK_CONTAINS(text, "bochs vmx unrestricted_guest=0  kvm-probes: ");
	free(text);
	text = report_json_text(&r);
	CHECK_CONTAINS(text, "{\"name\": \"kvm-probes\", \"lane\": \"bochs vmx unrestricted_guest=0\"");
	free(text);
	run_free(&r);
}

void test_qemu_lane_is_its_accelerator_and_the_vendor_l1_saw(void)
{
	char *lane = qemu_lane(ACCEL_TCG, "kvm,vhost,tun,svm,tunguard");

	CHECK_STR(lane, "qemu-tcg svm");
	free(lane);
	lane = qemu_lane(ACCEL_KVM, "vmx");
	CHECK_STR(lane, "qemu-kvm vmx");
	free(lane);
	/* a flag that merely contains "svm" is not one */
	lane = qemu_lane(ACCEL_TCG, "kvm,svmx");
	CHECK_STR(lane, "qemu-tcg");
	free(lane);
}

void test_reports_name_the_failing_step(void)
{
	struct scenario sc[2];
	struct scn_step steps[2];
	struct run_result r;
	char dir[] = "/tmp/tunlab-report-XXXXXX", *text, *path;
	const char *failed;

	make_run(&r, sc, steps);
	r.s[0].steps[0] = (struct step_result){ TL_PASS, 12, xstrdup("create tap lab0"), NULL };
	r.s[0].steps[1] = (struct step_result){ TL_FAIL, 3,
		xstrdup("ioctl(TUNSETIFF, lab0): succeeded; expected EPERM"),
		xstrdup("seq=7 op=create verdict=allow mode=enforce rule=default\n") };
	r.s[1].result = TL_SKIP;
	r.s[1].reason = xstrdup("requires vmx: not available in L1");
	scenario_result_settle(&r.s[0]);
	CHECK_INT(r.s[0].result, TL_FAIL);
	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(report_write_all(&r, dir, &failed), 0);

	path = xasprintf("%s/summary.txt", dir);
	text = read_file(path, NULL);
	CHECK_CONTAINS(text, "fail  ");
	CHECK_CONTAINS(text, "2. as 1000 attach tap lab0 => EPERM");
	CHECK_CONTAINS(text, "# ioctl(TUNSETIFF, lab0): succeeded; expected EPERM");
	CHECK_CONTAINS(text, "2 scenarios: 0 passed, 1 failed, 1 skipped");
	free(text);
	unlink(path);
	free(path);

	path = xasprintf("%s/report.ktap", dir);
	text = read_file(path, NULL);
	CHECK(text && !strncmp(text, "KTAP version 1\n", 15));
	CHECK_CONTAINS(text, "\n1..2\n");
	CHECK_CONTAINS(text, "    # Subtest: host-scenarios/x.scn:1 first\n    1..2\n");
	CHECK_CONTAINS(text, "    ok 1 as root create tap lab0 => ok\n");
	CHECK_CONTAINS(text, "    not ok 2 as 1000 attach tap lab0 => EPERM\n");
	CHECK_CONTAINS(text, "not ok 1 host-scenarios/x.scn:1 first\n");
	/* '#' would start a KTAP directive inside a name */
	CHECK_CONTAINS(text, "ok 2 host-scenarios/x.scn:11 second _ hash # SKIP requires vmx");
	free(text);
	unlink(path);
	free(path);
	for (const char *const *f = (const char *const[]){ "junit.xml", "report.json", NULL }; *f; f++) {
		path = xasprintf("%s/%s", dir, *f);
		CHECK_INT(unlink(path), 0);
		free(path);
	}
	CHECK_INT(rmdir(dir), 0);
	run_free(&r);
}

void test_machine_reports_escape_what_they_quote(void)
{
	struct scenario sc[2];
	struct scn_step steps[2];
	struct run_result r;
	char *x, *j;

	make_run(&r, sc, steps);
	r.s[0].steps[0] = (struct step_result){ TL_FAIL, 1, xstrdup("a <b> & \"c\"\n\001d\\"),
						 xstrdup("seq=1 op=open\nseq=2 op=attach\n") };
	r.s[0].result = TL_FAIL;
	r.s[1].result = TL_PASS;
	x = report_junit_text(&r);
	j = report_json_text(&r);
	CHECK_CONTAINS(x, "<failure message=\"step 1 (line 3): as root create tap lab0 =&gt; ok\" type=\"fail\">a &lt;b&gt; &amp; &quot;c&quot;\n\\x01d\\</failure>");
	CHECK_CONTAINS(x, "tests=\"2\" failures=\"1\"");
	CHECK_CONTAINS(j, "\"message\": \"a <b> & \\\"c\\\"\\n\\u0001d\\\\\"");
	CHECK_CONTAINS(j, "\"schema\": \"tunlab-report/1\"");
	CHECK_CONTAINS(j, "\"exit_status\": 1");
	CHECK_CONTAINS(j, "\"decisions\": [\"seq=1 op=open\", \"seq=2 op=attach\"]");
	CHECK_CONTAINS(j, "\"decisions\": null");
	free(x);
	free(j);
	run_free(&r);
}
