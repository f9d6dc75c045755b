// SPDX-License-Identifier: GPL-2.0
/*
 * tunlab-exec: the L1 executor. Says hello to the runner over the results
 * port, reports L1's KTAP suites, then reads the plan the runner bundled
 * into the initramfs, parses the scenario files with the same parser the
 * runner validated them with, and runs them (groups.c). With tunlab.gcov=1
 * the kernel's coverage counters follow (gcov.c).
 */
#include "executor.h"
#include "actors.h"
#include "gcov.h"
#include "groups.h"
#include "hold.h"
#include "kmemleak.h"
#include "programs.h"
#include "selinux.h"
#include "session.h"
#include "tunguard.h"
#include "common/cpuinfo.h"
#include "common/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#define STEP_TIMEOUT_S 60

struct exec_args {
	const char *plan;
	const char *port;
};

static unsigned int detect_features(char *text, size_t size)
{
	unsigned int have = 0;
	struct utsname uts;
	char *cpuinfo = read_file("/proc/cpuinfo", NULL);
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		if (ioctl(fd, KVM_GET_API_VERSION, 0) == KVM_API_VERSION)
			have |= SCN_REQ_KVM;
		close(fd);
	}
	if (access("/dev/vhost-net", R_OK | W_OK) == 0)
		have |= SCN_REQ_VHOST;
	if (access("/dev/net/tun", R_OK | W_OK) == 0)
		have |= SCN_REQ_TUN;
	if (cpuinfo_has_flag(cpuinfo, "svm"))
		have |= SCN_REQ_SVM;
	if (cpuinfo_has_flag(cpuinfo, "vmx"))
		have |= SCN_REQ_VMX;
	if (access(TG_DIR "/policy", W_OK) == 0)
		have |= SCN_REQ_TUNGUARD;
	if (selinux_has_policy())
		have |= SCN_REQ_SELINUX;
	/* "6.1.192+", "6.12.57+": the version the lab kernel was built from */
	if (uname(&uts) == 0 && !strncmp(uts.release, "6.1.", 4))
		have |= SCN_REQ_LINUX_6_1;
	if (uname(&uts) == 0 && !strncmp(uts.release, "6.12.", 5))
		have |= SCN_REQ_LINUX_6_12;
	free(cpuinfo);
	text[0] = '\0';
	for (unsigned int bit = 1; bit <= SCN_REQ_LAST; bit <<= 1)
		if (have & bit)
			snprintf(text + strlen(text), size - strlen(text), "%s%s",
				 text[0] ? "," : "", scn_feature_name(bit));
	return have;
}

static int parse_args(int argc, char **argv, struct exec_args *a)
{
	a->plan = "/tunlab/plan";
	a->port = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--plan") && i + 1 < argc) {
			a->plan = argv[++i];
		} else if (!strcmp(argv[i], "--results") && i + 1 < argc) {
			a->port = argv[++i];
		} else {
			fprintf(stderr, "usage: tunlab-exec --results PORT [--plan FILE]\n");
			return -1;
		}
	}
	if (!a->port) {
		fprintf(stderr, "tunlab-exec: --results PORT is required\n");
		return -1;
	}
	return 0;
}

/* The first record: who is here, and what L1 can do. */
static unsigned int say_hello(struct exec_ctx *x)
{
	struct utsname uts;
	char features[128], *lsm;
	unsigned int have;

	uname(&uts);
	have = detect_features(features, sizeof(features));
	lsm = read_file("/sys/kernel/security/lsm", NULL);
	proto_emit(x->out, "hello", 4, PROTO_VERSION, uts.release, features, lsm ? lsm : "");
	free(lsm);
	return have;
}

/* The plan: "INDEX<TAB>FILE<TAB>SCENARIO" lines; a file that does not parse is an item in error. */
static struct plan_item *plan_read(char *text, int *n)
{
	struct plan_item *items = NULL;
	char *line, *save;

	*n = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct scn_diags diags = { 0 };
		struct plan_item *it;
		char *f[3];
		int sidx;

		if (proto_split(line, f, 3) != 3)
			continue;
		items = xrealloc(items, sizeof(*items) * (size_t)(*n + 1));
		it = &items[(*n)++];
		memset(it, 0, sizeof(*it));
		it->idx = atoi(f[0]);
		sidx = atoi(f[2]);
		if (scn_parse_file(f[1], &it->file, &diags) || sidx >= it->file.nscenarios)
			it->error = xstrdup(diags.n ? diags.v[0].msg : "scenario not in file");
		else
			it->sc = &it->file.scenarios[sidx];
		scn_diags_free(&diags);
	}
	return items;
}

static void plan_items_free(struct plan_item *items, int n)
{
	for (int k = 0; k < n; k++) {
		scn_file_free(&items[k].file);
		free(items[k].error);
	}
	free(items);
}

/*
 * tunlab.shell= on the command line, or a program in the bundle: that
 * session instead of the plan, then "done". False when neither is asked.
 */
static bool run_session_wanted(struct exec_ctx *x)
{
	char *shell = kernel_cmdline_value("tunlab.shell");

	if (!shell && access(SESSION_RUN_DIR "/argv", R_OK) != 0)
		return false;
	if (shell)
		shell_session(x, shell);
	else
		run_session(x);
	free(shell);
	proto_emit(x->out, "done", 0);
	fclose(x->out);
	return true;
}

static bool cmdline_value_is(const char *key, const char *value)
{
	char *v = kernel_cmdline_value(key);
	bool is = v && !strcmp(v, value);

	free(v);
	return is;
}

static bool cmdline_flag(const char *key)
{
	return cmdline_value_is(key, "1");
}

int main(int argc, char **argv)
{
	struct exec_ctx x = { .step_timeout_s = STEP_TIMEOUT_S };
	struct tg_state tg = { 0 };
	struct se_state se;
	struct plan_item *items;
	struct sbuf leaks = { 0 };
	struct exec_args a;
	unsigned int have;
	char *plan;
	bool kmemleak;
	int fd, n;

	/* an actor that exec'd into its SELinux context comes back here */
	if (argc == 4 && !strcmp(argv[1], "--actor"))
		return actor_main(atoi(argv[2]), argv[3]);
	/* a check's tool: hang a test's process group (hold.c) */
	if (argc == 4 && !strcmp(argv[1], "--hold"))
		return hold_main(argv[2], argv[3]);
	if (parse_args(argc, argv, &a) < 0)
		return 2;
	fd = open(a.port, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || !(x.out = fdopen(fd, "w"))) {
		fprintf(stderr, "tunlab-exec: open %s: %s\n", a.port, strerror(errno));
		return 3;
	}
	/* a guest that dies under us must fail its step, not kill us */
	signal(SIGPIPE, SIG_IGN);
	have = say_hello(&x);
	/* tunlab shell and tunlab run: one session instead of the plan */
	if (run_session_wanted(&x))
		return 0;
	/*
	 * tunlab.kmemleak=0: no scan in this boot (the VMX lane scans in its
	 * first setting's boot only: under Bochs a scan of the debug kernel
	 * takes minutes)
	 */
	kmemleak = !cmdline_value_is("tunlab.kmemleak", "0") && kmemleak_begin(&leaks);
	tg_state_load(&tg);
	l1_suites_run(&x);
	se_state_load(&se, have);
	x.selinux = &se;

	plan = read_file(a.plan, NULL);
	if (!plan) {
		fprintf(stderr, "tunlab-exec: read %s: %s\n", a.plan, strerror(errno));
		return 3;
	}
	items = plan_read(plan, &n);
	plan_run(&x, items, n, have, &tg, cmdline_flag("tunlab.failfast"));
	plan_items_free(items, n);
	free(plan);
	if (kmemleak)
		kmemleak_end(&x, &leaks);
	/* last: the counters then hold everything the run did */
	if (cmdline_flag("tunlab.gcov"))
		gcov_send(x.out, GCOV_DIR);
	sbuf_free(&leaks);
	tg_state_free(&tg);
	se_state_free(&se);
	proto_emit(x.out, "done", 0);
	fclose(x.out);
	return 0;
}
