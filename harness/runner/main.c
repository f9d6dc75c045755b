// SPDX-License-Identifier: GPL-2.0
/*
 * tunlab: the L0 runner. Validates every scenario file, picks the
 * accelerator, boots L1 with the scenarios, shows progress as results
 * arrive, and writes results/<run-id>/. The exit status is a contract:
 * see usage() and README.md.
 */
#include "lab.h"
#include "plan.h"
#include "qemu.h"
#include "common/util.h"
#include "runner/report/report.h"

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
	int ntags;
	char **tags;
	struct sbuf append;	/* L1's command line, as --append and other options give it */
	struct sbuf ktap;	/* tunlab.ktap=, from --ktap */
	struct lab_opts lab;
};

static void usage(FILE *out)
{
	fputs("usage: tunlab [options] [PATH...]\n"
	      "Run tunlab scenarios in the nested lab (L1 under QEMU, L2 under L1's KVM).\n"
	      "PATH is a scenario file or a folder searched for *.scn (default: host-scenarios);\n"
	      "a folder named selftest is searched only when named itself.\n\n"
	      "  --check              validate the scenario files, boot nothing\n"
	      "  --list               list the scenarios that would run\n"
	      "  --kernel FILE        lab kernel (default build/kernel/bzImage)\n"
	      "  --initrd FILE        L1 initramfs (default build/images/l1.cpio)\n"
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
	      "  --tag TAG            run only scenarios with this tag (repeatable: any of them)\n"
	      "  --fail-fast          stop after the first scenario that does not pass\n"
	      "  --tunguard-mode MODE run every scenario in this tunguard mode, whatever it says\n"
	      "                       (the suite's self-test: with 'off', every deny scenario fails)\n"
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
	(void)sig;
	lab_interrupt();
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
	/* one file per L2 console: l2-<scenario>-<vm>.log */
	for (int i = 0; i < r->nlogs; i++) {
		char *path = xasprintf("%s/l2-%03d-%s.log", dir, r->logs[i].idx + 1,
				       r->logs[i].source);
		FILE *f = fopen(path, "a");

		if (f) {
			fprintf(f, "%s\n", r->logs[i].line);
			fclose(f);
		}
		free(path);
	}
}

static void write_reports(const struct run_result *r, void *ctx)
{
	const char *dir = ctx;

	if (report_write_all(r, dir) < 0)
		fprintf(stderr, "tunlab: cannot write the report in %s: %s\n", dir,
			strerror(errno));
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

static const struct option longopts[] = {
	{ "check", no_argument, NULL, 'c' },
	{ "list", no_argument, NULL, 'l' },
	{ "kernel", required_argument, NULL, 'k' },
	{ "initrd", required_argument, NULL, 'i' },
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
	{ "tag", required_argument, NULL, 't' },
	{ "fail-fast", no_argument, NULL, 'F' },
	{ "tunguard-mode", required_argument, NULL, 'G' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

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
	case 't':
		o->tags = xrealloc(o->tags, sizeof(char *) * (size_t)(o->ntags + 1));
		o->tags[o->ntags++] = (char *)arg;
		break;
	case 'a':
		append_word(&o->append, " ", arg);
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
	case 'F': o->fail_fast = true; break;
	case 'a': case 'K': case 'G': case 't': return take_word_option(o, c, arg);
	case 'h': usage(stdout); return TL_EXIT_PASS;
	default: usage(stderr); return TL_EXIT_USAGE;
	}
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
	if (o->ktap.len || o->no_ktap)
		sbuf_printf(&o->append, "%stunlab.ktap=%s", o->append.len ? " " : "",
			    o->ktap.buf ? o->ktap.buf : "");
	if (o->fail_fast)
		append_word(&o->append, " ", "tunlab.failfast=1");
	o->lab.cmdline_extra = o->append.buf;
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
	return plan_check_continues(plan) < 0 ? TL_EXIT_USAGE : -1;
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

	if (access(o->lab.kernel, R_OK) || access(o->lab.initrd, R_OK)) {
		fprintf(stderr, "tunlab: %s: %s (build it with `make kernel images`)\n",
			access(o->lab.kernel, R_OK) ? o->lab.kernel : o->lab.initrd,
			strerror(errno));
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
	lab_run(&o->lab, plan, &r);

	write_reports(&r, run_dir);
	write_logs(&r, run_dir);
	text = report_summary_text(&r);
	printf("\n%s", text);
	free(text);
	code = run_exit_code(&r);
	printf("report: %s/summary.txt (KTAP: %s/report.ktap); exit status %d\n",
	       run_dir, run_dir, code);
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

	while (code < 0 && (c = getopt_long(argc, argv, "hj:", longopts, NULL)) != -1)
		code = take_option(&o, c, optarg);
	if (code < 0) {
		finish_options(&o);
		code = optind < argc ? load_plan(&o, argv + optind, argc - optind, &plan)
				     : load_plan(&o, default_paths, 1, &plan);
		if (code < 0)
			code = o.list || o.check ? report_plan(&o, &plan) : run(&o, &plan);
		plan_free(&plan);
	}
	sbuf_free(&o.append);
	sbuf_free(&o.ktap);
	free(o.tags);
	return code;
}
