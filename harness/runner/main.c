// SPDX-License-Identifier: GPL-2.0
/*
 * tunlab: the L0 runner. Validates every scenario file, picks the
 * accelerator, boots L1 with the scenarios, shows progress as results
 * arrive, and writes results/<run-id>/. The exit status is a contract:
 * see usage() and README.md.
 */
#include "bundle.h"
#include "lab.h"
#include "session.h"
#include "merge.h"
#include "plan.h"
#include "qemu.h"
#include "common/proto.h"
#include "common/util.h"
#include "runner/report/report.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct opts {
	const char *results_root;
	bool check;
	bool list;
	bool no_scenarios;
	bool fail_fast;
	bool no_ktap;
	bool cpus_set;
	bool vmx;
	int ntags;
	char **tags;
	struct sbuf append;	/* L1's command line, as --append and other options give it */
	struct sbuf vmx_append;	/* --vmx-append: the VMX lane's boots only */
	struct sbuf ktap;	/* tunlab.ktap=, from --ktap */
	const char *lsm;	/* lsm=, from --lsm */
	const char *selinux;	/* tunlab.selinux=, from --selinux */
	int shard_k, shard_n;	/* --shard K/N, or 0/0 */
	int plan_size;		/* scenarios in the whole plan, before sharding */
	/* the plan's KTAP programs and VMX lane, estimated (ms), as every shard sees them */
	long ktap_ms, vmx_ms;
	int *index_of;		/* where each scenario of the share stands in it */
	struct lab_opts lab;
};

static void usage(FILE *out)
{
	fputs("usage: tunlab [options] [PATH...]\n"
	      "       tunlab shell [options]            (tunlab shell --help)\n"
	      "       tunlab run [options] -- CMD ARGS  (tunlab run --help)\n"
	      "Run tunlab scenarios in the nested lab (L1 under QEMU, L2 under L1's KVM).\n"
	      "PATH is a scenario file or a folder searched for *.scn (default: host-scenarios);\n"
	      "a folder named selftest is searched only when named itself.\n\n"
	      "  --check              validate the scenario files, boot nothing\n"
	      "  --list               list the scenarios that would run\n"
	      "  --kernel FILE        lab kernel (default build/kernel/bzImage)\n"
	      "  --initrd FILE        L1 initramfs (default build/images/l1.cpio)\n"
	      "  --libvirt-layer FILE libvirt's L1 layer, for scenarios with launcher=libvirt\n"
	      "                       (default l1-libvirt.cpio beside the initramfs)\n"
	      "  --results DIR        where run folders go (default results)\n"
	      "  --timeout SEC        limit for the whole run (default 3600)\n"
	      "  --step-timeout SEC   longest silence from L1 during a scenario (default 300)\n"
	      "  --boot-timeout SEC   L1 start to its executor (default 120)\n"
	      "  --cpus N, --mem MB   L1's size (default 2, 2048; 1 cpu each with -j)\n"
	      "  -j, --jobs N         run N L1s side by side, the plan dealt out between them\n"
	      "  --console            show L1's console as it runs\n"
	      "  --append ARGS        add to L1's kernel command line (e.g. tunlab.l2cpu=host)\n"
	      "  --ktap NAME[:ARG,..] run only these KTAP programs in L1, with these arguments\n"
	      "                       (repeatable; default: all of them, no arguments)\n"
	      "  --no-scenarios       run no scenario, only KUnit and the KTAP programs\n"
	      "  --no-ktap            run none of the KTAP programs (KUnit results still come)\n"
	      "  --vmx                add the VMX lane: kvm-probes in L1 under Bochs, whose CPU has\n"
	      "                       VMX, once per kvm_intel setting (unrestricted_guest=1, =0,\n"
	      "                       =0 with emulate_invalid_guest_state=0); about 20 s a setting\n"
	      "  --vmx-only           the VMX lane alone, no L1 under QEMU (no scenarios)\n"
	      "  --vmx-image DIR      the VMX lane's build (default build/images/vmx)\n"
	      "  --vmx-append ARGS    add to the kernel command line of the VMX lane's boots only\n"
	      "                       (after --append's; e.g. acpi=off for the debug kernel)\n"
	      "  --tag TAG            run only scenarios with this tag (repeatable: any of them)\n"
	      "  --fail-fast          stop after the first scenario that does not pass\n"
	      "  --tunguard-mode MODE run every scenario in this tunguard mode, whatever it says\n"
	      "                       (the suite's self-test: with 'off', every deny scenario fails)\n"
	      "  --lsm LIST           L1's security modules in this order (lsm=LIST), e.g.\n"
	      "                       capability,selinux,tunguard\n"
	      "  --selinux MODE       start SELinux with the lab's policy, enforcing or permissive\n"
	      "                       (after tunguard unless --lsm says otherwise; the self-test:\n"
	      "                       with 'permissive', every selinux-deny scenario fails)\n"
	      "  --shard K/N          run the K-th of N shares of the plan, dealt the same way on\n"
	      "                       every machine (shard 1 also runs KUnit and the KTAP programs,\n"
	      "                       the last shard the VMX lane)\n"
	      "usage: tunlab merge [--results DIR] RUN_DIR...\n"
	      "  join the runs of every shard of one plan into one run folder in DIR\n"
	      "environment: ACCEL=tcg|kvm (default: automatic), QEMU, QBOOT\n\n"
	      "exit status: 0 all passed, 1 a scenario failed, 2 usage or invalid scenario,\n"
	      "3 the lab could not be set up, 4 everything skipped, 124 timeout,\n"
	      "125 a kernel panic/Oops/BUG/WARNING on a console\n", out);
}

static int parse_int(const char *s, const char *what, int lo, int hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr, "tunlab: %s must be a number in %d..%d, got '%s'\n",
			what, lo, hi, s);
		exit(TL_EXIT_USAGE);
	}
	return (int)v;
}

static void on_signal(int sig)
{
	lab_interrupt(sig);
}

static char *make_run_dir(const char *root, char **id_out)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (mkdir(root, 0755) < 0 && errno != EEXIST)
		return NULL;
	for (int n = 1; n < 100; n++) {
		char *id = n == 1 ? xstrdup(stamp) : xasprintf("%s-%d", stamp, n);
		char *dir = xasprintf("%s/%s", root, id);

		if (mkdir(dir, 0755) == 0) {
			*id_out = id;
			return dir;
		}
		free(id);
		free(dir);
		if (errno != EEXIST)
			return NULL;
	}
	errno = EEXIST;
	return NULL;
}

static void point_latest(const char *root, const char *id)
{
	char *tmp = xasprintf("%s/.latest.%d", root, (int)getpid());
	char *link = xasprintf("%s/latest", root);

	unlink(tmp);
	if (symlink(id, tmp) < 0 || rename(tmp, link) < 0) {
		fprintf(stderr, "tunlab: cannot point %s at %s: %s\n", link, id,
			strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	free(link);
}

static void write_logs(const struct run_result *r, const char *dir)
{
	/* one file per L2 console: l2-<scenario's plan position>-<vm>.log */
	for (int i = 0; i < r->nlogs; i++) {
		char *path = xasprintf("%s/l2-%03d-%s.log", dir,
				       r->s[r->logs[i].idx].index + 1, r->logs[i].source);
		FILE *f = fopen(path, "a");

		if (f) {
			fprintf(f, "%s\n", r->logs[i].line);
			fclose(f);
		}
		free(path);
	}
}

/* errno of the last report write that failed, 0 once one succeeds */
static int report_errno;

static void write_reports(const struct run_result *r, void *ctx)
{
	const char *dir = ctx, *failed;

	if (report_write_all(r, dir, &failed) < 0) {
		/* said once per cause, not after every scenario */
		if (errno != report_errno)
			fprintf(stderr, "tunlab: cannot write %s/%s: %s\n", dir, failed,
				strerror(errno));
		report_errno = errno;
	} else {
		report_errno = 0;
	}
}

static int smoke(void *ctx)
{
	struct lab_opts o = *(const struct lab_opts *)ctx;

	o.accel = ACCEL_KVM;
	return lab_smoke(&o, 30);
}

static void list_plan(const struct plan *s)
{
	for (int i = 0; i < s->n; i++) {
		const struct scenario *sc = s->scenarios[i];

		printf("%s:%d\t%s", sc->file, sc->line, sc->title);
		if (sc->ntags) {
			printf("\t[");
			for (int t = 0; t < sc->ntags; t++)
				printf("%s%s", t ? " " : "", sc->tags[t]);
			printf("]");
		}
		printf("\n");
	}
}

/* long options without a letter of their own */
enum { OPT_LIBVIRT_LAYER = 256, OPT_VMX_APPEND };

static const struct option longopts[] = {
	{ "check", no_argument, NULL, 'c' },
	{ "list", no_argument, NULL, 'l' },
	{ "kernel", required_argument, NULL, 'k' },
	{ "initrd", required_argument, NULL, 'i' },
	{ "libvirt-layer", required_argument, NULL, OPT_LIBVIRT_LAYER },
	{ "results", required_argument, NULL, 'r' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "step-timeout", required_argument, NULL, 'S' },
	{ "boot-timeout", required_argument, NULL, 'B' },
	{ "cpus", required_argument, NULL, 'p' },
	{ "mem", required_argument, NULL, 'm' },
	{ "console", no_argument, NULL, 'C' },
	{ "append", required_argument, NULL, 'a' },
	{ "ktap", required_argument, NULL, 'K' },
	{ "no-scenarios", no_argument, NULL, 'N' },
	{ "no-ktap", no_argument, NULL, 'n' },
	{ "vmx", no_argument, NULL, 'V' },
	{ "vmx-only", no_argument, NULL, 'O' },
	{ "vmx-image", required_argument, NULL, 'X' },
	{ "vmx-append", required_argument, NULL, OPT_VMX_APPEND },
	{ "tag", required_argument, NULL, 't' },
	{ "fail-fast", no_argument, NULL, 'F' },
	{ "tunguard-mode", required_argument, NULL, 'G' },
	{ "lsm", required_argument, NULL, 'L' },
	{ "selinux", required_argument, NULL, 'E' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "shard", required_argument, NULL, 'H' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* "K/N" with 1 <= K <= N */
static void parse_shard(const char *s, int *k, int *n)
{
	char *end;
	long a, b;

	errno = 0;
	a = strtol(s, &end, 10);
	if (*end == '/') {
		b = strtol(end + 1, &end, 10);
		if (!errno && !*end && a >= 1 && b >= a && b <= 1000) {
			*k = (int)a;
			*n = (int)b;
			return;
		}
	}
	fprintf(stderr, "tunlab: --shard K/N: expected 1 <= K <= N <= 1000, got '%s'\n", s);
	exit(TL_EXIT_USAGE);
}

/*
 * What shard 1 (and the first L1 of -j) runs besides scenarios, and the
 * VMX lane the last shard runs, in milliseconds as a whole warm `make lab`
 * as two shards of one vCPU each took them (2026-12-06, tgcheck as of
 * 2026-12-07): every KTAP program 16.5 s (tgstress 12.9 s, kvm-probes
 * 3.0 s, tgcheck 0.6 s), fewer named with --ktap taken as 5.5 s each;
 * the VMX lane's three Bochs boots 23 to 37 s.
 */
#define KTAP_ALL_MS 16500L
#define KTAP_EACH_MS 5500L
#define VMX_LANE_MS 30000L

static long ktap_estimate(const struct opts *o)
{
	long n = 1;

	if (o->no_ktap)
		return 0;
	if (!o->ktap.len)
		return KTAP_ALL_MS;
	for (const char *c = o->ktap.buf; *c; c++)
		n += *c == ';';
	return n * KTAP_EACH_MS < KTAP_ALL_MS ? n * KTAP_EACH_MS : KTAP_ALL_MS;
}

/*
 * Keep the K-th of N shares of @p (plan_deal: shard 1 starts with the
 * KTAP programs, the last with the VMX lane), and in @o->index_of where
 * each kept scenario stands in the whole plan.
 */
static void take_shard(const struct opts *o, struct plan *p)
{
	int *part_of = xcalloc((size_t)p->n + 1, sizeof(int)), kept = 0;
	long *head = xcalloc((size_t)o->shard_n, sizeof(long));

	head[0] = o->ktap_ms;
	head[o->shard_n - 1] += o->vmx_ms;
	plan_deal(p->scenarios, p->n, o->shard_n, head, part_of);
	for (int i = 0; i < p->n; i++) {
		if (part_of[i] != o->shard_k - 1)
			continue;
		o->index_of[kept] = i;
		p->scenarios[kept++] = p->scenarios[i];
	}
	p->n = kept;
	free(head);
	free(part_of);
}

static int merge_command(int argc, char **argv);

static void append_word(struct sbuf *sb, const char *sep, const char *word)
{
	sbuf_printf(sb, "%s%s", sb->len ? sep : "", word);
}

/* The options that take a word and check it; an exit status when it is wrong, else -1. */
static int take_word_option(struct opts *o, int c, const char *arg)
{
	switch (c) {
	case 'K':
		if (!*arg || strpbrk(arg, " ;\t")) {
			fprintf(stderr, "tunlab: --ktap NAME[:ARG,ARG...]: no spaces or ';' in '%s'\n", arg);
			return TL_EXIT_USAGE;
		}
		append_word(&o->ktap, ";", arg);
		break;
	case 'G':
		if (strcmp(arg, "enforce") && strcmp(arg, "permissive") && strcmp(arg, "off")) {
			fprintf(stderr, "tunlab: --tunguard-mode: expected enforce, permissive or off, got '%s'\n",
				arg);
			return TL_EXIT_USAGE;
		}
		sbuf_printf(&o->append, "%stunlab.tgmode=%s", o->append.len ? " " : "", arg);
		break;
	case 'L':
		if (!*arg || strpbrk(arg, " \t=")) {
			fprintf(stderr, "tunlab: --lsm: expected a comma-separated list of modules, got '%s'\n",
				arg);
			return TL_EXIT_USAGE;
		}
		o->lsm = arg;
		break;
	case 'E':
		if (strcmp(arg, "enforcing") && strcmp(arg, "permissive")) {
			fprintf(stderr, "tunlab: --selinux: expected enforcing or permissive, got '%s'\n",
				arg);
			return TL_EXIT_USAGE;
		}
		o->selinux = arg;
		break;
	case 't':
		o->tags = xrealloc(o->tags, sizeof(char *) * (size_t)(o->ntags + 1));
		o->tags[o->ntags++] = (char *)arg;
		break;
	case 'a':
		append_word(&o->append, " ", arg);
		break;
	case OPT_VMX_APPEND:
		append_word(&o->vmx_append, " ", arg);
		break;
	}
	return -1;
}

/* One option; an exit status when the run ends here, else -1. */
static int take_option(struct opts *o, int c, const char *arg)
{
	struct lab_opts *l = &o->lab;

	switch (c) {
	case 'c': o->check = true; break;
	case 'l': o->list = true; break;
	case 'k': l->kernel = arg; break;
	case 'i': l->initrd = arg; break;
	case OPT_LIBVIRT_LAYER: l->libvirt_layer = arg; break;
	case 'r': o->results_root = arg; break;
	case 'T': l->run_timeout_s = parse_int(arg, "--timeout", 1, 86400); break;
	case 'S': l->step_timeout_s = parse_int(arg, "--step-timeout", 1, 86400); break;
	case 'B': l->boot_timeout_s = parse_int(arg, "--boot-timeout", 1, 86400); break;
	case 'p': l->cpus = parse_int(arg, "--cpus", 1, 64); o->cpus_set = true; break;
	case 'j': l->jobs = parse_int(arg, "-j", 1, 16); break;
	case 'm': l->mem_mb = parse_int(arg, "--mem", 256, 65536); break;
	case 'C': l->show_console = true; break;
	case 'N': o->no_scenarios = true; break;
	case 'n': o->no_ktap = true; break;
	case 'V': o->vmx = true; break;
	case 'O': o->vmx = l->vmx_only = true; break;
	case 'X': l->vmx_image = arg; break;
	case 'F': o->fail_fast = true; break;
	case 'H': parse_shard(arg, &o->shard_k, &o->shard_n); break;
	case 'a': case 'K': case 'G': case 'L': case 'E': case 't': case OPT_VMX_APPEND:
		return take_word_option(o, c, arg);
	case 'h': usage(stdout); return TL_EXIT_PASS;
	default: usage(stderr); return TL_EXIT_USAGE;
	}
	return -1;
}

/*
 * The VMX lane runs kvm-probes, which --ktap or --no-ktap may leave out:
 * then there is no VMX lane (and --vmx-only is an error, an exit status).
 * Shards before the last leave it out too.
 */
static int choose_vmx(struct opts *o)
{
	int nargs;

	if (o->vmx && (o->no_ktap || (o->ktap.len && !proto_ktap_selects(o->ktap.buf, VMX_PROGRAM,
									  NULL, 0, &nargs)))) {
		if (o->lab.vmx_only) {
			fprintf(stderr, "tunlab: --vmx-only runs " VMX_PROGRAM
				", which --ktap or --no-ktap leaves out\n");
			return TL_EXIT_USAGE;
		}
		printf("tunlab: no VMX lane: it runs " VMX_PROGRAM
		       ", which --ktap or --no-ktap leaves out\n");
		o->vmx = false;
	}
	/* like the KTAP programs, once per plan: in the last shard, which shard 1's share evens out */
	o->vmx_ms = o->vmx && !o->lab.vmx_only ? VMX_LANE_MS : 0;
	if (o->shard_k < o->shard_n && o->vmx && !o->lab.vmx_only)
		o->vmx = false;
	o->lab.vmx_ms = o->vmx ? o->vmx_ms : 0;
	if (!o->vmx)
		o->lab.vmx_image = NULL;
	else if (!o->lab.vmx_image)
		o->lab.vmx_image = "build/images/vmx";
	if (o->lab.vmx_only)
		o->no_scenarios = true;
	return -1;
}

/* What the options imply once all are read: environment, L1's command line. */
static void finish_options(struct opts *o)
{
	if (getenv("QEMU") && *getenv("QEMU"))
		o->lab.qemu = getenv("QEMU");
	if (getenv("QBOOT") && *getenv("QBOOT"))
		o->lab.bios = getenv("QBOOT");
	/* several L1s share the host's cores: one vCPU each unless told */
	if (o->lab.jobs > 1 && !o->cpus_set)
		o->lab.cpus = 1;
	/* KUnit and the KTAP programs once per plan, in shard 1, as unsharded */
	o->ktap_ms = ktap_estimate(o);
	o->lab.ktap_ms = o->shard_k > 1 ? 0 : o->ktap_ms;
	if (o->shard_k > 1) {
		/* but the VMX lane, in the last shard, runs the plan's kvm-probes */
		if (o->vmx)
			o->lab.vmx_ktap = xstrdup(o->ktap.len ? o->ktap.buf : VMX_PROGRAM);
		sbuf_free(&o->ktap);
		o->no_ktap = true;
		append_word(&o->append, " ", "tunlab.kunit=0");
	}
	if (o->ktap.len || o->no_ktap)
		sbuf_printf(&o->append, "%stunlab.ktap=%s", o->append.len ? " " : "",
			    o->ktap.buf ? o->ktap.buf : "");
	if (o->fail_fast)
		append_word(&o->append, " ", "tunlab.failfast=1");
	/* SELinux is built into the lab kernel but started only by lsm= */
	if (o->selinux && !o->lsm)
		o->lsm = "capability,tunguard,selinux";
	if (o->lsm)
		sbuf_printf(&o->append, "%slsm=%s", o->append.len ? " " : "", o->lsm);
	if (o->selinux)
		sbuf_printf(&o->append, "%stunlab.selinux=%s", o->append.len ? " " : "", o->selinux);
	o->lab.cmdline_extra = o->append.buf;
	o->lab.vmx_cmdline_extra = o->vmx_append.buf;
	if (!o->lab.libvirt_layer) {
		char *dir = xstrdup(o->lab.initrd), *slash = strrchr(dir, '/');

		if (slash)
			slash[1] = '\0';
		o->lab.libvirt_layer = xasprintf("%sl1-libvirt.cpio", slash ? dir : "");
		free(dir);
	}
}

/* The plan of @paths, validated and narrowed by the options; an exit status or -1. */
static int load_plan(struct opts *o, char **paths, int npaths, struct plan *plan)
{
	struct scn_diags diags = { 0 };

	/* every file is valid before anything boots */
	if (plan_load(plan, paths, npaths, &diags)) {
		scn_diags_print(&diags, stderr);
		fprintf(stderr, "tunlab: %d problem%s in the scenario files; nothing was run\n",
			diags.n, diags.n == 1 ? "" : "s");
		scn_diags_free(&diags);
		return TL_EXIT_USAGE;
	}
	if (o->no_scenarios)
		plan->n = 0;
	if (o->ntags && !plan_keep_tags(plan, o->tags, o->ntags)) {
		fprintf(stderr, "tunlab: no scenario has the tag%s given\n", o->ntags > 1 ? "s" : "");
		return TL_EXIT_USAGE;
	}
	if (plan_check_continues(plan) < 0)
		return TL_EXIT_USAGE;
	o->plan_size = plan->n;
	o->index_of = xcalloc((size_t)plan->n + 1, sizeof(int));
	for (int i = 0; i < plan->n; i++)
		o->index_of[i] = i;
	if (o->shard_n)
		take_shard(o, plan);
	return -1;
}

/* --list and --check: say what would run, boot nothing. */
static int report_plan(const struct opts *o, const struct plan *plan)
{
	if (o->list)
		list_plan(plan);
	else
		printf("tunlab: %d scenario file%s, %d scenario%s: valid\n",
		       plan->nfiles, plan->nfiles == 1 ? "" : "s", plan->n, plan->n == 1 ? "" : "s");
	return TL_EXIT_PASS;
}

/* L1's accelerator: TCG, or KVM where it works; -1 for a bad ACCEL=. */
static int choose_accel(struct opts *o, struct accel_choice *ac)
{
	char *cpuinfo = read_file("/proc/cpuinfo", NULL);
	int ret = accel_choose(getenv("ACCEL"), cpuinfo, smoke, &o->lab, ac);

	free(cpuinfo);
	if (ret < 0)
		fprintf(stderr, "tunlab: %s\n", ac->reason);
	else
		o->lab.accel = ac->accel;
	return ret;
}

/* Boot the lab for @plan, write the run's folder; the exit status. */
static int run(struct opts *o, const struct plan *plan)
{
	struct accel_choice ac;
	struct run_result r;
	char *run_dir, *id, *text;
	int code;

	if (o->lab.vmx_image) {
		char *cd = xasprintf("%s/boot.iso", o->lab.vmx_image);
		int missing = access(cd, R_OK);

		if (missing)
			fprintf(stderr, "tunlab: %s: %s (build it with `make images`)\n", cd,
				strerror(errno));
		free(cd);
		if (missing)
			return TL_EXIT_SETUP;
	}
	if (!o->lab.vmx_only && (access(o->lab.kernel, R_OK) || access(o->lab.initrd, R_OK))) {
		fprintf(stderr, "tunlab: %s: %s (build it with `make kernel images`)\n",
			access(o->lab.kernel, R_OK) ? o->lab.kernel : o->lab.initrd,
			strerror(errno));
		return TL_EXIT_SETUP;
	}
	for (int i = 0; i < plan->n; i++) {
		if (!bundle_needs_libvirt(plan->scenarios[i]) ||
		    !access(o->lab.libvirt_layer, R_OK))
			continue;
		fprintf(stderr, "tunlab: %s:%d needs libvirt, and %s: %s (build it with `make images`)\n",
			plan->scenarios[i]->file, plan->scenarios[i]->line,
			o->lab.libvirt_layer, strerror(errno));
		return TL_EXIT_SETUP;
	}
	if (choose_accel(o, &ac) < 0)
		return TL_EXIT_USAGE;
	run_dir = make_run_dir(o->results_root, &id);
	if (!run_dir) {
		fprintf(stderr, "tunlab: cannot create a run folder in %s: %s\n",
			o->results_root, strerror(errno));
		return TL_EXIT_SETUP;
	}
	point_latest(o->results_root, id);
	run_init(&r, plan->scenarios, plan->n);
	r.plan_size = o->plan_size;
	for (int i = 0; i < plan->n; i++)
		r.s[i].index = o->index_of[i];
	if (o->shard_n)
		r.shard = xasprintf("%d/%d", o->shard_k, o->shard_n);
	r.id = id;
	r.accel = xstrdup(accel_name(ac.accel));
	r.accel_reason = xstrdup(ac.reason);
	printf("tunlab: run %s: %d scenario%s, accel %s (%s)\n", id, plan->n,
	       plan->n == 1 ? "" : "s", r.accel, ac.reason);
	fflush(stdout);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	o->lab.run_dir = run_dir;
	o->lab.on_progress = write_reports;
	o->lab.ctx = run_dir;
	/* a later shard with no share boots no L1, only the VMX lane if it is the last */
	if (!plan->n && o->shard_k > 1)
		o->lab.vmx_only = true;
	if (!o->lab.vmx_only || o->lab.vmx_image)
		lab_run(&o->lab, plan, &r);
	r.interrupted_by = lab_interrupted();

	write_reports(&r, run_dir);
	write_logs(&r, run_dir);
	text = report_summary_text(&r);
	printf("\n%s", text);
	free(text);
	code = run_exit_code(&r);
	if (report_errno) {
		/* the terminal has the whole summary; the folder does not */
		if (code == TL_EXIT_PASS || code == TL_EXIT_SKIP)
			code = TL_EXIT_SETUP;
		printf("report: incomplete in %s (%s); the summary above is the whole run; exit status %d\n",
		       run_dir, strerror(report_errno), code);
	} else {
		printf("report: %s/summary.txt (KTAP: %s/report.ktap); exit status %d\n",
		       run_dir, run_dir, code);
	}
	run_free(&r);
	free(run_dir);
	return code;
}

int main(int argc, char **argv)
{
	static char *default_paths[] = { "host-scenarios" };
	struct opts o = {
		.results_root = "results",
		.lab = {
			.qemu = "qemu-system-x86_64",
			.bios = "/usr/share/qemu/qboot.rom",
			.kernel = "build/kernel/bzImage",
			.initrd = "build/images/l1.cpio",
			.mem_mb = 2048, .cpus = 2,
			.boot_timeout_s = 120, .step_timeout_s = 300,
			.run_timeout_s = 3600,
		},
	};
	struct plan plan;
	int c, code = -1;

	if (argc > 1 && !strcmp(argv[1], "merge"))
		return merge_command(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "shell"))
		return shell_command(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "run"))
		return run_command(argc - 1, argv + 1);
	while (code < 0 && (c = getopt_long(argc, argv, "hj:", longopts, NULL)) != -1)
		code = take_option(&o, c, optarg);
	if (code < 0)
		code = choose_vmx(&o);
	if (code < 0) {
		finish_options(&o);
		code = optind < argc ? load_plan(&o, argv + optind, argc - optind, &plan)
				     : load_plan(&o, default_paths, 1, &plan);
		if (code < 0)
			code = o.list || o.check ? report_plan(&o, &plan) : run(&o, &plan);
		plan_free(&plan);
	}
	sbuf_free(&o.append);
	sbuf_free(&o.vmx_append);
	sbuf_free(&o.ktap);
	free((char *)o.lab.vmx_ktap);
	free(o.tags);
	free(o.index_of);
	return code;
}

/*
 * Into @to: the L2 consoles of the shard run in @from as they are (their
 * numbers are plan positions already), and the VMX lane's logs (the last
 * shard alone runs it), its L1 consoles as shardN-l1-console*.log, N counting
 * the shards in the order given.
 */
static void copy_logs(const char *from, int n, const char *to)
{
	DIR *d = opendir(from);
	struct dirent *e;

	if (!d) {
		fprintf(stderr, "tunlab merge: %s: %s\n", from, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		bool l2 = !strncmp(e->d_name, "l2-", 3), l1 = !strncmp(e->d_name, "l1-console", 10);
		bool vmx = !strncmp(e->d_name, "l1-vmx-", 7);
		char *src, *dst, *text;
		size_t len;

		if (!l1 && !l2 && !vmx)
			continue;
		src = xasprintf("%s/%s", from, e->d_name);
		dst = l1 ? xasprintf("%s/shard%d-%s", to, n, e->d_name) :
			xasprintf("%s/%s", to, e->d_name);
		text = read_file(src, &len);
		if (!text || write_file(dst, text, len) < 0)
			fprintf(stderr, "tunlab merge: cannot copy %s to %s: %s\n", src, dst,
				strerror(errno));
		free(text);
		free(src);
		free(dst);
	}
	closedir(d);
}

static int merge_command(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "results", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *root = "results";
	struct sbuf err = { 0 };
	struct merged_run m;
	char *dir, *id, *text;
	int c, code;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': root = optarg; break;
		case 'h': usage(stdout); return TL_EXIT_PASS;
		default: usage(stderr); return TL_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fputs("tunlab merge: name the run folder of every shard\n", stderr);
		return TL_EXIT_USAGE;
	}
	if (merge_runs(argv + optind, argc - optind, &m, &err)) {
		fprintf(stderr, "tunlab merge: %s", err.buf);
		sbuf_free(&err);
		merged_run_free(&m);
		return TL_EXIT_USAGE;
	}
	dir = make_run_dir(root, &id);
	if (!dir) {
		fprintf(stderr, "tunlab merge: cannot create a run folder in %s: %s\n", root,
			strerror(errno));
		merged_run_free(&m);
		return TL_EXIT_SETUP;
	}
	point_latest(root, id);
	m.r.id = id;
	write_reports(&m.r, dir);
	for (int i = optind; i < argc; i++)
		copy_logs(argv[i], i - optind + 1, dir);
	text = report_summary_text(&m.r);
	printf("tunlab merge: %d shard run%s\n\n%s", argc - optind, argc - optind == 1 ? "" : "s",
	       text);
	free(text);
	code = run_exit_code(&m.r);
	printf("report: %s/summary.txt (KTAP: %s/report.ktap); exit status %d\n", dir, dir, code);
	merged_run_free(&m);
	free(dir);
	return code;
}
