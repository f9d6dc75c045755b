// SPDX-License-Identifier: GPL-2.0
/*
 * tunlab-exec: the L1 executor. Reads the plan the runner bundled into the
 * initramfs, parses the scenario files with the same parser the runner
 * validated them with, runs each scenario's steps and streams the results
 * over the results port. Whatever a scenario created is removed when it
 * ends, on every path.
 */
#include "executor.h"
#include "common/cpuinfo.h"
#include "common/errnames.h"
#include "common/proto.h"
#include "common/spawn.h"
#include "common/util.h"
#include "common/verdict.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/kvm.h>
#include <net/if.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define STEP_TIMEOUT_S 60
#define KTAP_DIR "/usr/lib/tunlab/ktap"

struct linkset {
	int n;
	char **names;
};

static void names_in(const char *dir, struct linkset *l)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	memset(l, 0, sizeof(*l));
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		l->names = xrealloc(l->names, sizeof(char *) * (size_t)(l->n + 1));
		l->names[l->n++] = xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
}

static void links_snapshot(struct linkset *l)
{
	names_in("/sys/class/net", l);
}

static bool links_has(const struct linkset *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

static void links_free(struct linkset *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
}

static int run_ip(const char *a, const char *b, const char *c)
{
	char *argv[] = { (char *)"ip", (char *)a, (char *)b, (char *)c, NULL };
	struct sbuf out = { 0 };
	int status = run_captured(IP_PATH, argv, &out);

	sbuf_free(&out);
	return status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/* Clear persist on a tun/tap device so closing our fd deletes it. */
static int tun_unpersist(const char *name)
{
	char path[128], *flags;
	struct ifreq ifr = { 0 };
	unsigned long f;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "/sys/class/net/%s/tun_flags", name);
	flags = read_file(path, NULL);
	if (!flags)
		return -1;
	f = strtoul(flags, NULL, 16);
	free(flags);
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ifr.ifr_flags = (short)(f & (IFF_TUN | IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE |
				     IFF_VNET_HDR));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) == 0 && ioctl(fd, TUNSETPERSIST, 0) == 0)
		ret = 0;
	close(fd);
	return ret;
}

/* Remove every link the scenario left behind; a list of failures. */
static void links_cleanup(const struct linkset *before, struct sbuf *problems)
{
	struct linkset now;

	links_snapshot(&now);
	for (int i = 0; i < now.n; i++) {
		const char *name = now.names[i];

		if (links_has(before, name))
			continue;
		if (tun_unpersist(name) == 0 && !if_nametoindex(name))
			continue;
		if (if_nametoindex(name) && run_ip("link", "del", name) < 0 &&
		    if_nametoindex(name))
			sbuf_printf(problems, "%scould not remove %s", problems->len ? "; " : "", name);
	}
	links_free(&now);
}

static unsigned int detect_features(char *text, size_t size)
{
	unsigned int have = 0;
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
	free(cpuinfo);
	text[0] = '\0';
	for (unsigned int bit = 1; bit <= SCN_REQ_TUNGUARD; bit <<= 1)
		if (have & bit)
			snprintf(text + strlen(text), size - strlen(text), "%s%s",
				 text[0] ? "," : "", scn_feature_name(bit));
	return have;
}

static bool expectation_met(const struct scn_step *st, const struct outcome *oc)
{
	switch (st->expect) {
	case SCN_EXPECT_OK:
		return oc->err == 0;
	case SCN_EXPECT_FAIL:
		return oc->err != 0;
	case SCN_EXPECT_ERRNO:
		return oc->err == st->expect_errno;
	}
	return false;
}

static const char *err_text(int err, char *buf, size_t size)
{
	const char *name;

	if (err == 0)
		return "succeeded";
	if (err < 0)
		return "failed";
	name = errno_name(err);
	snprintf(buf, size, "%s (%s)", strerror(err), name ? name : "?");
	return buf;
}

static void describe(const struct scn_step *st, const struct outcome *oc, bool ok,
		     struct sbuf *msg)
{
	char got[96];

	if (ok) {
		sbuf_puts(msg, oc->detail);
		return;
	}
	sbuf_printf(msg, "%s: %s; expected %s", oc->what, err_text(oc->err, got, sizeof(got)),
		    st->expect == SCN_EXPECT_OK ? "ok" :
		    st->expect == SCN_EXPECT_FAIL ? "a failure" :
		    errno_name(st->expect_errno));
	if (oc->detail[0])
		sbuf_printf(msg, "\n%s", oc->detail);
}

/* --- tunguard: policy, mode and the decision log ----------------------- */

struct tg_state {
	char *boot_policy;	/* what was in force before any scenario */
	char *boot_mode;
	char *force_mode;	/* tunlab.tgmode=: every scenario runs in it */
};

/* The kernel's last tunguard message, which names a bad policy line. */
static void tg_last_log(struct sbuf *out)
{
	int size = klogctl(10, NULL, 0);
	char *buf, *line = NULL, *p;

	if (size <= 0)
		return;
	buf = xmalloc((size_t)size + 1);
	size = klogctl(3, buf, size);
	buf[size > 0 ? size : 0] = '\0';
	for (p = strstr(buf, "tunguard"); p; p = strstr(p + 1, "tunguard"))
		line = p;
	if (line)
		sbuf_printf(out, ": kernel says \"%.*s\"", (int)strcspn(line, "\n"), line);
	free(buf);
}

static int tg_apply(const char *policy, const char *mode, struct sbuf *why)
{
	if (policy && write_string(TG_DIR "/policy", policy) < 0) {
		sbuf_printf(why, "writing the tunguard policy: %s", strerror(errno));
		tg_last_log(why);
		return -1;
	}
	if (mode && write_string(TG_DIR "/mode", mode) < 0) {
		sbuf_printf(why, "setting tunguard mode %s: %s", mode, strerror(errno));
		return -1;
	}
	return 0;
}

static long long tg_position(void)
{
	int fd = open(TG_DIR "/decisions", O_RDONLY | O_CLOEXEC);
	off_t pos;

	if (fd < 0)
		return -1;
	pos = lseek(fd, 0, SEEK_END);
	close(fd);
	return pos;
}

/* Records after sequence @pos, one line each. */
static char *tg_records_after(long long pos)
{
	int fd = open(TG_DIR "/decisions", O_RDONLY | O_CLOEXEC);
	struct sbuf sb = { 0 };
	char buf[4096];
	ssize_t n;

	sbuf_puts(&sb, "");
	if (fd < 0)
		return sb.buf;
	if (lseek(fd, pos, SEEK_SET) >= 0)
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			sbuf_add(&sb, buf, (size_t)n);
	close(fd);
	return sb.buf;
}

/* The value of KEY in a "k=v k=v" record line. */
static bool record_field(const char *rec, const char *key, char *val, size_t size)
{
	size_t kl = strlen(key);

	for (const char *p = rec; p && *p; p = strchr(p, ' '), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(val, size, "%.*s", (int)strcspn(p + kl + 1, " \n"), p + kl + 1);
			return true;
		}
	}
	return false;
}

static bool decision_matches(const struct scn_decision *d, const char *rec)
{
	char v[64];

	if (!record_field(rec, "op", v, sizeof(v)) || strcmp(v, d->op))
		return false;
	if (!record_field(rec, "verdict", v, sizeof(v)) || strcmp(v, d->verdict))
		return false;
	for (int i = 0; i < d->nfields; i++)
		if (!record_field(rec, d->keys[i], v, sizeof(v)) || strcmp(v, d->vals[i]))
			return false;
	return true;
}

static void describe_expected(const struct scn_step *st, struct sbuf *out)
{
	if (!st->ndecisions)
		sbuf_puts(out, "none");
	for (int i = 0; i < st->ndecisions; i++) {
		const struct scn_decision *d = &st->decisions[i];

		sbuf_printf(out, "%s%s %s", i ? ", " : "", d->op, d->verdict);
		for (int f = 0; f < d->nfields; f++)
			sbuf_printf(out, " %s=%s", d->keys[f], d->vals[f]);
	}
}

/*
 * The records a step produced must be exactly the expected ones, in order:
 * a missing record and an unexpected one both fail the step.
 */
static bool decisions_met(const struct scn_step *st, char *records, struct sbuf *msg)
{
	char *save, *line;
	int n = 0;
	bool ok = true;

	for (line = strtok_r(records, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		if (n >= st->ndecisions || !decision_matches(&st->decisions[n], line))
			ok = false;
		sbuf_printf(msg, "\n  record: %s", line);
	}
	if (n != st->ndecisions)
		ok = false;
	return ok;
}

static enum tl_result run_step(struct exec_ctx *x, const struct scenario *sc, int step,
			       struct sbuf *msg)
{
	const struct scn_step *st = &sc->steps[step];
	long long pos = st->check_decisions ? tg_position() : -1;
	struct sbuf seen = { 0 };
	struct outcome oc;
	bool ok, dec_ok = true;

	switch (st->action) {
	case SCN_L2_BOOT:
		act_l2_boot(x, sc, st, &oc);
		break;
	case SCN_L2_PING:
		act_l2_ping(x, st, &oc);
		break;
	case SCN_L2_STOP:
		act_l2_stop(x, st, &oc);
		break;
	default:
		act_in_process(x, sc, step, &oc);
		break;
	}
	ok = !oc.broken && expectation_met(st, &oc);
	if (st->check_decisions) {
		char *records = pos >= 0 ? tg_records_after(pos) : xstrdup("");

		free(x->step_records);
		x->step_records = xstrdup(records);
		sbuf_puts(&seen, "");
		dec_ok = pos >= 0 && decisions_met(st, records, &seen);
		free(records);
	}
	describe(st, &oc, ok, msg);
	if (!dec_ok) {
		sbuf_puts(msg, ok ? "" : "\n");
		sbuf_puts(msg, "decisions: expected ");
		describe_expected(st, msg);
		sbuf_printf(msg, "; seen %s%s", seen.len ? "" : "none", seen.buf ? seen.buf : "");
		if (pos < 0)
			sbuf_printf(msg, " (cannot read " TG_DIR "/decisions: %s)", strerror(errno));
	}
	sbuf_free(&seen);
	if (oc.broken)
		return TL_ERROR;
	return ok && dec_ok ? TL_PASS : TL_FAIL;
}

static void emit_step(struct exec_ctx *x, int step, const char *res, double ms,
		      const char *msg)
{
	char idx[16], n[16], t[32];

	snprintf(idx, sizeof(idx), "%d", x->idx);
	snprintf(n, sizeof(n), "%d", step);
	snprintf(t, sizeof(t), "%.1f", ms);
	/* "-": the step's decisions were not checked */
	proto_emit(x->out, "step", 6, idx, n, res, t, msg,
		   x->step_records ? x->step_records : "-");
	free(x->step_records);
	x->step_records = NULL;
}

static void emit_end(struct exec_ctx *x, const char *res, double ms, const char *why)
{
	char idx[16], t[32];

	snprintf(idx, sizeof(idx), "%d", x->idx);
	snprintf(t, sizeof(t), "%.1f", ms);
	proto_emit(x->out, "end", 4, idx, res, t, why);
}

static bool uses_tunguard_steps(const struct scenario *sc)
{
	for (int i = 0; i < sc->nsteps; i++)
		if (sc->steps[i].action == SCN_TG_POLICY || sc->steps[i].action == SCN_TG_MODE)
			return true;
	return false;
}

/* What a group of scenarios (one, and those that continue it) made. */
struct group_ctx {
	struct linkset before;
	struct linkset netns_before;
	bool tunguard_changed;
};

static void group_begin(struct group_ctx *g)
{
	memset(g, 0, sizeof(*g));
	links_snapshot(&g->before);
	names_in("/run/netns", &g->netns_before);
}

/* Teardown, whatever happened: problems are appended to @why. */
static void group_end(struct exec_ctx *x, struct group_ctx *g, const struct tg_state *tg,
		      struct sbuf *why)
{
	struct linkset netns_now;

	guests_teardown(x);
	procs_teardown(x);
	/* named network namespaces first: their devices go with them */
	names_in("/run/netns", &netns_now);
	for (int i = 0; i < netns_now.n; i++)
		if (!links_has(&g->netns_before, netns_now.names[i]) &&
		    run_ip("netns", "del", netns_now.names[i]) < 0)
			sbuf_printf(why, "%scould not delete netns %s", why->len ? "; " : "",
				    netns_now.names[i]);
	links_free(&netns_now);
	links_free(&g->netns_before);
	links_cleanup(&g->before, why);
	links_free(&g->before);
	if (g->tunguard_changed && tg_apply(tg->boot_policy, tg->boot_mode, why) < 0)
		sbuf_puts(why, " (restoring tunguard)");
}

/*
 * One scenario's steps, in the context of its group. Returns the worst
 * step; the end record waits for the group's teardown when @last.
 */
static enum tl_result run_scenario_steps(struct exec_ctx *x, const struct scenario *sc,
				       unsigned int have, const struct tg_state *tg,
				       struct group_ctx *g, struct sbuf *why)
{
	unsigned int missing = sc->requires & ~have;
	enum tl_result worst = TL_PASS;
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", x->idx);
	proto_emit(x->out, "begin", 1, idx);
	if (missing) {
		sbuf_puts(why, "requires");
		for (unsigned int bit = 1; bit <= SCN_REQ_TUNGUARD; bit <<= 1)
			if (missing & bit)
				sbuf_printf(why, " %s", scn_feature_name(bit));
		sbuf_puts(why, ": not available in L1");
		return TL_SKIP;
	}
	if (sc->policy || sc->mode || tg->force_mode || uses_tunguard_steps(sc))
		g->tunguard_changed = true;
	if ((sc->policy || sc->mode || tg->force_mode) &&
	    tg_apply(sc->policy, tg->force_mode ? tg->force_mode : sc->mode, why) < 0)
		return TL_ERROR;
	for (int i = 0; i < sc->nsteps && worst == TL_PASS; i++) {
		struct sbuf msg = { 0 };
		double ts = now_ms();

		sbuf_puts(&msg, "");
		worst = run_step(x, sc, i, &msg);
		emit_step(x, i, tl_result_name(worst), now_ms() - ts, msg.buf);
		sbuf_free(&msg);
	}
	return worst;
}

struct plan_item {
	int idx;
	struct scn_file file;
	const struct scenario *sc;	/* NULL: the file did not parse */
	char *error;
};

/*
 * A group: @items[0] and the scenarios right after it that continue it.
 * They share one context (devices, processes, guests); it is torn down
 * after the last. Returns false if any of them did not pass.
 */
static bool run_group(struct exec_ctx *x, struct plan_item *items, int n, unsigned int have,
		      const struct tg_state *tg)
{
	struct group_ctx g;
	bool all = true, broken = false;

	group_begin(&g);
	for (int k = 0; k < n; k++) {
		struct sbuf why = { 0 };
		double t0 = now_ms();
		enum tl_result r;
		char idx[16];

		x->idx = items[k].idx;
		sbuf_puts(&why, "");
		if (broken) {
			snprintf(idx, sizeof(idx), "%d", x->idx);
			proto_emit(x->out, "begin", 1, idx);
			sbuf_puts(&why, "not run: the scenario it continues did not pass");
			r = TL_ERROR;
		} else {
			r = run_scenario_steps(x, items[k].sc, have, tg, &g, &why);
		}
		if (k == n - 1) {
			size_t before = why.len;

			group_end(x, &g, tg, &why);
			if (why.len > before && r == TL_PASS) {
				r = TL_ERROR;
				sbuf_puts(&why, " after the scenario");
			}
		}
		emit_end(x, tl_result_name(r), now_ms() - t0, why.buf);
		sbuf_free(&why);
		if (r != TL_PASS && r != TL_SKIP) {
			all = false;
			broken = true;
		}
	}
	return all;
}

/*
 * A scenario's own network namespace: its devices, bridges and named
 * namespaces vanish with it. sysfs is mounted again so /sys/class/net shows
 * this namespace, with securityfs and debugfs under it as before, and
 * /run/netns is private so `ip netns add` names do not outlive it.
 */
static int enter_scenario_netns(struct sbuf *why)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s;

	if (unshare(CLONE_NEWNET | CLONE_NEWNS) < 0) {
		sbuf_printf(why, "unshare(CLONE_NEWNET|CLONE_NEWNS): %s", strerror(errno));
		return -1;
	}
	mkdir("/run/netns", 0755);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("sysfs", "/sys", "sysfs", 0, NULL) < 0 ||
	    mount("tmpfs", "/run/netns", "tmpfs", 0, "mode=0755") < 0) {
		sbuf_printf(why, "mounts for the scenario's netns: %s", strerror(errno));
		return -1;
	}
	/* both are optional: a kernel without them just lacks the feature */
	mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0 ||
	    (ifr.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &ifr) < 0)) {
		sbuf_printf(why, "bringing up lo: %s", strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	close(s);
	return 0;
}

/* Run a group in a child in a fresh network namespace, unless it asks for L1's. */
static bool run_group_isolated(struct exec_ctx *x, struct plan_item *items, int n,
			       unsigned int have, const struct tg_state *tg)
{
	struct sbuf why = { 0 };
	char idx[16];
	int status;
	pid_t pid;

	if (items[0].sc->init_netns)
		return run_group(x, items, n, have, tg);
	fflush(x->out);
	pid = fork();
	if (pid == 0) {
		bool ok;

		if (enter_scenario_netns(&why) < 0) {
			for (int k = 0; k < n; k++) {
				x->idx = items[k].idx;
				snprintf(idx, sizeof(idx), "%d", x->idx);
				proto_emit(x->out, "begin", 1, idx);
				emit_end(x, "error", 0, why.buf);
			}
			_exit(2);
		}
		ok = run_group(x, items, n, have, tg);
		fflush(x->out);
		_exit(ok ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		snprintf(idx, sizeof(idx), "%d", items[0].idx);
		proto_emit(x->out, "begin", 1, idx);
		x->idx = items[0].idx;
		emit_end(x, "error", 0, "cannot fork the scenario's process");
		return false;
	}
	if (!WIFEXITED(status)) {
		/* it died mid-scenario: say so, the runner keeps what it sent */
		char *msg = xasprintf("the executor's scenario process died (signal %d)",
				      WTERMSIG(status));

		emit_end(x, "error", 0, msg);
		free(msg);
		return false;
	}
	return WEXITSTATUS(status) == 0;
}

/* The words of tunlab.ktap=NAME[:ARG,ARG...][;NAME...] for @name. */
static bool ktap_selected(const char *spec, const char *name, char **args, int max,
			  int *nargs)
{
	size_t nl = strlen(name);
	const char *s = spec;

	*nargs = 0;
	if (!spec)
		return true;
	while (*s) {
		size_t len = strcspn(s, ";");

		if (!strncmp(s, name, nl) && (len == nl || s[nl] == ':')) {
			const char *a = s + nl;

			while (a < s + len && *nargs < max) {
				size_t al;

				a++;
				al = strcspn(a, ",;");
				if (al)
					args[(*nargs)++] = xstrndup(a, al);
				a += al;
			}
			return true;
		}
		s += len + (s[len] == ';');
	}
	return false;
}

static void emit_suite_end(struct exec_ctx *x, const char *name, int status, double ms)
{
	char st[16], t[32];

	snprintf(st, sizeof(st), "%d", status);
	snprintf(t, sizeof(t), "%.1f", ms);
	proto_emit(x->out, "suite", 3, name, st, t);
}

static void forward_text(struct exec_ctx *x, const char *name, char *text)
{
	char *save, *line;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		proto_emit(x->out, "ktap", 2, name, line);
}

/* KUnit suites built into the kernel ran at boot; debugfs keeps their KTAP. */
static void forward_kunit(struct exec_ctx *x)
{
	DIR *d = opendir("/sys/kernel/debug/kunit");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path, *name, *text;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("/sys/kernel/debug/kunit/%s/results", e->d_name);
		name = xasprintf("kunit:%s", e->d_name);
		text = read_file(path, NULL);
		if (text) {
			forward_text(x, name, text);
			emit_suite_end(x, name, -1, 0);
		}
		free(text);
		free(path);
		free(name);
	}
	if (d)
		closedir(d);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct ktap_forward {
	struct exec_ctx *x;
	const char *name;
};

static void forward_line(void *ctx, char *line)
{
	struct ktap_forward *f = ctx;

	proto_emit(f->x->out, "ktap", 2, f->name, line);
}

/* Run one KTAP program, forwarding its output line by line. */
static void run_ktap_program(struct exec_ctx *x, const char *name, char **args, int nargs)
{
	char *path = xasprintf(KTAP_DIR "/%s", name);
	char **argv = xcalloc((size_t)nargs + 2, sizeof(char *));
	struct spawn sp = { .argv = argv, .path = path, .out = SPAWN_PIPE, .err = SPAWN_PIPE };
	struct ktap_forward f = { x, name };
	double t0 = now_ms();
	struct sbuf buf = { 0 };
	int fd, status = 0;
	char data[4096];
	ssize_t n;
	pid_t pid;

	argv[0] = path;
	for (int i = 0; i < nargs; i++)
		argv[i + 1] = args[i];
	pid = spawn(&sp, &fd);
	if (pid < 0) {
		proto_emit(x->out, "ktap", 2, name, "# cannot start the program");
		emit_suite_end(x, name, KSFT_NOT_STARTED, 0);
		free(argv);
		free(path);
		return;
	}
	while ((n = read(fd, data, sizeof(data))) > 0)
		sbuf_feed_lines(&buf, data, (size_t)n, forward_line, &f);
	if (buf.len)
		forward_line(&f, buf.buf);
	close(fd);
	waitpid(pid, &status, 0);
	emit_suite_end(x, name, ksft_code(status), now_ms() - t0);
	sbuf_free(&buf);
	free(argv);
	free(path);
}

/* Every program in KTAP_DIR, or those tunlab.ktap= names, with its args. */
static void run_ktap_programs(struct exec_ctx *x)
{
	char *spec = kernel_cmdline_value("tunlab.ktap"), **names = NULL;
	DIR *d = opendir(KTAP_DIR);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		names = xrealloc(names, sizeof(char *) * (size_t)(n + 1));
		names[n++] = xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, (size_t)n, sizeof(char *), cmp_names);
	for (int i = 0; i < n; i++) {
		char *args[16];
		int nargs;

		if (ktap_selected(spec, names[i], args, 16, &nargs))
			run_ktap_program(x, names[i], args, nargs);
		for (int k = 0; k < nargs; k++)
			free(args[k]);
		free(names[i]);
	}
	free(names);
	free(spec);
}

int main(int argc, char **argv)
{
	const char *plan_path = "/tunlab/plan", *port = NULL;
	struct exec_ctx x = { .step_timeout_s = STEP_TIMEOUT_S };
	struct utsname uts;
	char features[128], *plan, *line, *save, *ff, *lsm, *kunit;
	bool fail_fast, failed = false;
	struct tg_state tg = { 0 };
	struct plan_item *items = NULL;
	int nitems = 0;
	unsigned int have;
	int fd;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--plan") && i + 1 < argc)
			plan_path = argv[++i];
		else if (!strcmp(argv[i], "--results") && i + 1 < argc)
			port = argv[++i];
		else {
			fprintf(stderr, "usage: tunlab-exec --results PORT [--plan FILE]\n");
			return 2;
		}
	}
	if (!port) {
		fprintf(stderr, "tunlab-exec: --results PORT is required\n");
		return 2;
	}
	fd = open(port, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || !(x.out = fdopen(fd, "w"))) {
		fprintf(stderr, "tunlab-exec: open %s: %s\n", port, strerror(errno));
		return 3;
	}
	/* a guest that dies under us must fail its step, not kill us */
	signal(SIGPIPE, SIG_IGN);
	uname(&uts);
	have = detect_features(features, sizeof(features));
	lsm = read_file("/sys/kernel/security/lsm", NULL);
	proto_emit(x.out, "hello", 4, PROTO_VERSION, uts.release, features, lsm ? lsm : "");
	free(lsm);

	tg.boot_policy = read_file(TG_DIR "/policy", NULL);
	tg.boot_mode = read_file(TG_DIR "/mode", NULL);
	tg.force_mode = kernel_cmdline_value("tunlab.tgmode");
	ff = kernel_cmdline_value("tunlab.failfast");
	fail_fast = ff && !strcmp(ff, "1");
	free(ff);
	kunit = kernel_cmdline_value("tunlab.kunit");
	if (!kunit || strcmp(kunit, "0"))
		forward_kunit(&x);
	free(kunit);
	run_ktap_programs(&x);

	plan = read_file(plan_path, NULL);
	if (!plan) {
		fprintf(stderr, "tunlab-exec: read %s: %s\n", plan_path, strerror(errno));
		return 3;
	}
	for (line = strtok_r(plan, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct scn_diags diags = { 0 };
		struct plan_item *it;
		char *f[3];
		int sidx;

		if (proto_split(line, f, 3) != 3)
			continue;
		items = xrealloc(items, sizeof(*items) * (size_t)(nitems + 1));
		it = &items[nitems++];
		memset(it, 0, sizeof(*it));
		it->idx = atoi(f[0]);
		sidx = atoi(f[2]);
		if (scn_parse_file(f[1], &it->file, &diags) || sidx >= it->file.nscenarios)
			it->error = xstrdup(diags.n ? diags.v[0].msg : "scenario not in file");
		else
			it->sc = &it->file.scenarios[sidx];
		scn_diags_free(&diags);
	}
	for (int k = 0; k < nitems && !(fail_fast && failed); ) {
		int n = 1;

		if (!items[k].sc || items[k].sc->continues) {
			/* a broken file, or a scenario whose first part is not here */
			char idx[16];

			x.idx = items[k].idx;
			snprintf(idx, sizeof(idx), "%d", x.idx);
			proto_emit(x.out, "begin", 1, idx);
			emit_end(&x, "error", 0, items[k].error ? items[k].error :
				 "not run: the scenario it continues did not run in this L1");
			failed = true;
			k++;
			continue;
		}
		while (k + n < nitems && items[k + n].sc && items[k + n].sc->continues &&
		       items[k + n].sc->index == items[k + n - 1].sc->index + 1 &&
		       !strcmp(items[k + n].sc->file, items[k + n - 1].sc->file))
			n++;
		if (!run_group_isolated(&x, &items[k], n, have, &tg))
			failed = true;
		k += n;
	}
	for (int k = 0; k < nitems; k++) {
		scn_file_free(&items[k].file);
		free(items[k].error);
	}
	free(items);
	free(plan);
	free(tg.boot_policy);
	free(tg.boot_mode);
	free(tg.force_mode);
	proto_emit(x.out, "done", 0);
	fclose(x.out);
	return 0;
}
