// SPDX-License-Identifier: GPL-2.0
/*
 * The KTAP suites L1 runs before the plan (KUnit's from the kernel log, then every
 * program in /usr/lib/tunlab/ktap/ or those tunlab.ktap= names), forwarded
 * line by line to L0, and a kvm-probes run as a scenario step.
 */
#include "programs.h"
#include "outcome.h"
#include "common/ktap.h"
#include "common/proto.h"
#include "common/spawn.h"
#include "common/verdict.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/*
 * One message of /dev/kmsg ("PRI,SEQ,TS,FLAGS;TEXT\n" and continuation
 * lines): its text, with the \xNN escapes undone, into @out.
 */
static void kmsg_text(const char *rec, char *out, size_t size)
{
	const char *p = strchr(rec, ';');
	size_t n = 0;

	for (p = p ? p + 1 : rec; *p && *p != '\n' && n + 1 < size; p++) {
		unsigned int c;

		if (p[0] == '\\' && p[1] == 'x' && sscanf(p + 2, "%2x", &c) == 1) {
			out[n++] = (char)c;
			p += 3;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
}

/* "ok N NAME" or "not ok N NAME" at the top level: NAME, else NULL. */
static const char *top_result(const char *line)
{
	const char *p = !strncmp(line, "ok ", 3) ? line + 3 :
			!strncmp(line, "not ok ", 7) ? line + 7 : NULL;

	if (!p || *p < '0' || *p > '9')
		return NULL;
	p += strspn(p, "0123456789");
	return *p == ' ' ? p + 1 : NULL;
}

/*
 * KUnit suites built into the kernel ran at boot and printed their KTAP
 * into the kernel log, which keeps it whole (6.1's debugfs copy of a
 * suite's log is cut at 2 KiB). Each suite goes to L0 as a suite of its
 * own, its lines as KUnit printed them under a plan of one, its result
 * numbered 1.
 */
static void forward_kunit(struct exec_ctx *x)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct sbuf suite = { 0 };
	int planned = 0, done = 0;
	bool in_kunit = false;
	char rec[8192], line[4096];
	ssize_t n;

	while (fd >= 0 && ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE))) {
		const char *name;

		if (n < 0)	/* overwritten before we read it: go on with the next */
			continue;
		rec[n] = '\0';
		kmsg_text(rec, line, sizeof(line));
		if (!in_kunit) {
			in_kunit = !strcmp(line, "KTAP version 1");
			continue;
		}
		if (!ktap_syntax_line(line))
			continue;
		/* the top level's own plan and totals belong to no suite */
		if (!strncmp(line, "1..", 3)) {
			planned = atoi(line + 3);
			continue;
		}
		if (!strncmp(line, "# Totals:", 9))
			continue;
		if (!suite.len)
			sbuf_puts(&suite, "KTAP version 1\n1..1\n");
		name = top_result(line);
		if (!name) {
			sbuf_printf(&suite, "%s\n", line);
			continue;
		}
		{
			char *title = xasprintf("kunit:%s", name);

			sbuf_printf(&suite, "%s 1 %s\n", strncmp(line, "ok", 2) ? "not ok" : "ok", name);
			forward_text(x, title, suite.buf);
			emit_suite_end(x, title, -1, 0);
			free(title);
			sbuf_free(&suite);
		}
		/* what the kernel logs after KUnit's last suite is not KUnit's */
		in_kunit = ++done < planned;
	}
	if (suite.len) {
		forward_text(x, "kunit", suite.buf);
		proto_emit(x->out, "ktap", 2, "kunit", "# the kernel log ends before KUnit's last result");
		emit_suite_end(x, "kunit", -1, 0);
	}
	sbuf_free(&suite);
	if (fd >= 0)
		close(fd);
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

		if (proto_ktap_selects(spec, names[i], args, 16, &nargs))
			run_ktap_program(x, names[i], args, nargs);
		for (int k = 0; k < nargs; k++)
			free(args[k]);
		free(names[i]);
	}
	free(names);
	free(spec);
}

void l1_suites_run(struct exec_ctx *x)
{
	char *kunit = kernel_cmdline_value("tunlab.kunit");

	if (!kunit || strcmp(kunit, "0"))
		forward_kunit(x);
	free(kunit);
	run_ktap_programs(x);
}

void probe_step(const struct scn_step *st, struct outcome *oc)
{
	char *argv[8] = { (char *)"kvm-probes" }, *save, *line;
	struct sbuf out = { 0 };
	int status, n = 1;
	size_t len = 0;

	for (int i = 0; i < st->argc && n < 7; i++)
		argv[n++] = st->argv[i];
	outcome_set(oc, 0, "kvm-probes %s", st->argv[0]);
	status = spawn_capture(&(struct spawn){ .argv = argv, .path = PROBES_PATH,
						.out = SPAWN_PIPE, .err = SPAWN_PIPE }, &out);
	if (status < 0) {
		oc->err = errno;
		oc->broken = true;
		sbuf_free(&out);
		return;
	}
	/* keep what says why: the failing checks and the benchmark figures */
	for (line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if ((strstr(line, "not ok") || strstr(line, "# bench")) &&
		    len + strlen(line) + 2 < sizeof(oc->detail))
			len += (size_t)snprintf(oc->detail + len, sizeof(oc->detail) - len,
						"%s%s", len ? "\n" : "", line);
	sbuf_free(&out);
	if (ksft_result(ksft_code(status)) == TL_ERROR)
		oc->broken = true;
	if (ksft_code(status) != KSFT_PASS)
		oc->err = -1;
}
