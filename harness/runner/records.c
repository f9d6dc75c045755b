// SPDX-License-Identifier: GPL-2.0
/*
 * What L1 sends, into the one result model: the results port's records
 * (common/proto.h), one handler each, and the console's lines, logged and
 * scanned for kernel reports. Progress goes to stdout as it arrives.
 */
#include "boot.h"
#include "gcov.h"
#include "qemu.h"
#include "common/proto.h"
#include "common/safetext.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* what a step's message or a scenario's reason keeps, safe to print */
#define STEP_MSG_MAX 8192

FILE *say_to;

void say(const char *fmt, ...)
{
	FILE *out = say_to ? say_to : stdout;
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fflush(out);
}

void set_reason(struct scenario_result *sr, enum tl_result res, const char *why)
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
		r->crash_excerpt = safe_lines(cs->excerpt.buf ? cs->excerpt.buf : "", STEP_MSG_MAX);
	}
	if (idx >= 0) {
		char *why = xasprintf("kernel %s on the %s console (see report)",
				      cs->kind, where);

		set_reason(&r->s[idx], TL_CRASH, why);
		free(why);
	}
	say("tunlab: kernel %s on the %s console\n", cs->kind, where);
}

/*
 * With several L1s side by side (-j), their scenarios' lines interleave:
 * each begin and step line then names its L1, as its console log does
 * (l1-console-N.log). "" with one L1.
 */
static char *lane_tag(const struct boot *b)
{
	if (!b->lane || b->lane->nlanes < 2)
		return xstrdup("");
	return xasprintf("[L1 %d] ", b->lane->lane + 1);
}

/*
 * kernel_halt()'s line, or a power off with no way to do it ("reboot: Power
 * off not available: System halted instead"), with or without printk time.
 */
static bool kernel_halted(const char *line)
{
	const char *m = strstr(line, "reboot: ");

	return m && (m == line || (m - line >= 2 && m[-2] == ']')) && strstr(m, "System halted");
}

void console_line(struct boot *b, const char *line)
{
	bool had = b->scan.kind != NULL;

	if (b->console_log)
		fprintf(b->console_log, "%s\n", line);
	if (b->o->show_console) {
		char *tag = lane_tag(b);

		say("%s| %s\n", tag, line);
		free(tag);
	}
	console_scan_line(&b->scan, line);
	if (!b->halted_at && kernel_halted(line))
		b->halted_at = now_ms();
	if (!had && b->scan.kind) {
		char *where = b->lane_name ? xasprintf("L1 (%s)", b->lane_name) : xstrdup("L1");

		note_kernel_report(b, where, &b->scan, b->inflight);
		free(where);
	}
	if (b->scan.panic && !b->panic_at)
		b->panic_at = now_ms();
}

static void print_step(const struct boot *b, const struct scenario *sc, int step,
		       const struct step_result *st)
{
	struct sbuf sb = { 0 };
	char *tag = lane_tag(b), *indent;

	sbuf_printf(&sb, "%s  %-5s %7.2fs  %d. %s\n", tag, tl_result_name(st->result),
		    st->ms / 1000.0, step + 1, sc->steps[step].text);
	if (st->msg && *st->msg) {
		indent = xasprintf("%s                  # ", tag);
		sbuf_prefix_lines(&sb, indent, st->msg);
		free(indent);
	}
	say("%s", sb.buf);
	sbuf_free(&sb);
	free(tag);
}

static int done_count(const struct run_result *r)
{
	int n = 0;

	for (int i = 0; i < r->n; i++)
		n += r->s[i].result != TL_NOTRUN;
	return n;
}

void end_scenario(struct boot *b, int idx, enum tl_result res, double ms,
			 const char *reason)
{
	struct scenario_result *sr = &b->r->s[idx];

	if (sr->result == TL_NOTRUN) {
		sr->result = res;
		free(sr->reason);
		sr->reason = reason && *reason ? safe_lines(reason, STEP_MSG_MAX) : NULL;
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

static bool record_hello(struct boot *b, char **f, int n)
{
	struct run_result *r = b->r;
	char *tag;

	b->hello = true;
	if (!b->lane_name)
		b->lane_name = qemu_lane(b->o->accel, n > 3 ? f[3] : "");
	/* the scenarios run under QEMU only */
	if (!r->lane && !strcmp(b->machine, "QEMU"))
		r->lane = xstrdup(b->lane_name);
	free(r->kernel);
	r->kernel = xstrdup(f[2]);
	free(r->lsm);
	r->lsm = n > 4 && *f[4] ? xstrdup(f[4]) : NULL;
	/*
	 * the VMX lane's boots may come two at once, and while other L1s
	 * run: each says which it is, as its "booting" line did
	 */
	if (strcmp(b->machine, "QEMU")) {
		const char *setting = b->lane_name;

		if (!strncmp(setting, "bochs vmx ", 10))
			setting += 10;
		tag = xasprintf(" under %s (vmx, %s)", b->machine, setting);
	} else if (b->lane && b->lane->nlanes > 1) {
		tag = xasprintf(" %d", b->lane->lane + 1);
	} else {
		tag = xstrdup("");
	}
	say("tunlab: L1%s ready after %.1f s: kernel %s%s%s%s%s\n", tag,
	    (now_ms() - b->started) / 1000.0, f[2], n > 3 ? ", " : "",
	    n > 3 ? f[3] : "", r->lsm ? ", lsm " : "", r->lsm ? r->lsm : "");
	free(tag);
	return true;
}

static bool record_begin(struct boot *b, char **f, int n)
{
	const struct scenario *sc;
	char *tag;
	int idx;

	(void)n;
	if (!valid_idx(b, f[1], &idx))
		return false;
	b->inflight = idx;
	sc = b->r->s[idx].sc;
	tag = lane_tag(b);
	say("%s       %s:%d %s\n", tag, sc->file, sc->line, sc->title);
	free(tag);
	return true;
}

static bool record_step(struct boot *b, char **f, int n)
{
	struct scenario_result *sr;
	struct step_result *st;
	int idx, step;

	if (!valid_idx(b, f[1], &idx))
		return false;
	sr = &b->r->s[idx];
	step = atoi(f[2]);
	if (step < 0 || step >= sr->sc->nsteps)
		return true;
	st = &sr->steps[step];
	st->result = tl_result_from_name(f[3]);
	st->ms = atof(f[4]);
	free(st->msg);
	/* QEMU's, libvirt's and the guests' words: never raw into a report */
	st->msg = safe_lines(f[5], STEP_MSG_MAX);
	free(st->decisions);
	st->decisions = n > 6 && strcmp(f[6], "-") ? xstrdup(f[6]) : NULL;
	print_step(b, sr->sc, step, st);
	return true;
}

/*
 * A line a run step's program wrote, kept for the report; a line of
 * tunlab run's program ("-" for a step), passed on to our stdout at once.
 */
static bool record_out(struct boot *b, char **f, int n)
{
	struct step_output *out;
	int idx, step;

	(void)n;
	if (!strcmp(f[1], "-")) {
		printf("%s\n", f[3]);
		fflush(stdout);
		return true;
	}
	if (!valid_idx(b, f[1], &idx))
		return false;
	step = atoi(f[2]);
	if (step < 0 || step >= b->r->s[idx].sc->nsteps)
		return true;
	out = &b->r->s[idx].out[step];
	out->lines = xrealloc(out->lines, sizeof(char *) * (size_t)(out->n + 1));
	out->lines[out->n++] = safe_line(f[3]);
	return true;
}

/* tunlab run's or tunlab shell's end: the status L0 returns. */
static bool record_exit(struct boot *b, char **f, int n)
{
	(void)n;
	b->r->session_exit = atoi(f[1]);
	return true;
}

static bool record_end(struct boot *b, char **f, int n)
{
	int idx;

	if (!valid_idx(b, f[1], &idx))
		return false;
	end_scenario(b, idx, tl_result_from_name(f[2]), atof(f[3]), n > 4 ? f[4] : NULL);
	return true;
}

/* A line of an L2 guest's console: kept for its log file, and scanned. */
static bool record_log(struct boot *b, char **f, int n)
{
	struct run_result *r = b->r;
	struct console_scan *cs;
	bool had;
	int idx;

	(void)n;
	if (!valid_idx(b, f[1], &idx))
		return false;
	cs = &b->lane->l2_scans[idx];
	had = cs->kind != NULL;
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
	return true;
}

static bool record_ktap(struct boot *b, char **f, int n)
{
	struct suite_result *su = run_suite(b->r, f[1], b->lane_name);

	(void)n;
	su->lines = xrealloc(su->lines, sizeof(char *) * (size_t)(su->nlines + 1));
	su->lines[su->nlines++] = safe_line(f[2]);
	return true;
}

static bool record_suite(struct boot *b, char **f, int n)
{
	struct suite_result *su = run_suite(b->r, f[1], b->lane_name);
	char *title;

	(void)n;
	su->status = atoi(f[2]);
	su->ms = atof(f[3]);
	suite_result_judge(su);
	title = suite_title(su);
	say("[ktap] %-7s %7.2fs  %s: %d ok, %d not ok, %d skipped%s%s\n",
	    tl_result_name(su->result), su->ms / 1000.0, title, su->n_ok,
	    su->n_notok, su->n_skip, su->reason ? "  # " : "", su->reason ? su->reason : "");
	free(title);
	if (b->o->on_progress)
		b->o->on_progress(b->r, b->o->ctx);
	return true;
}

/*
 * A gcov counter file (tunlab.gcov=1), into the run's folder with the
 * others this boot sent. One that cannot be kept is the run's error:
 * the coverage report would be short of it, every test result stays.
 */
static bool record_gcov(struct boot *b, char **f, int n)
{
	char *why;

	(void)n;
	if (!b->gcov_set)
		b->gcov_set = ++b->r->gcov_sets;
	why = gcov_store(b->o->run_dir, b->gcov_set, f[1], f[2]);
	if (why) {
		say("tunlab: %s\n", why);
		set_infra(b->r, TL_ERROR, why);
		free(why);
	}
	return true;
}

static bool record_done(struct boot *b, char **f, int n)
{
	(void)f;
	(void)n;
	b->done = true;
	return true;
}

/* Each record type with the fields it needs at least (its type among them). */
static const struct {
	const char *type;
	int min_fields;
	/* false: the record names no scenario of the plan */
	bool (*handle)(struct boot *b, char **f, int n);
} records[] = {
	{ "hello", 3, record_hello }, { "begin", 2, record_begin },
	{ "step", 6, record_step }, { "end", 4, record_end },
	{ "log", 4, record_log }, { "ktap", 3, record_ktap },
	{ "out", 4, record_out }, { "exit", 2, record_exit },
	{ "suite", 4, record_suite }, { "done", 1, record_done },
	{ "gcov", 3, record_gcov },
};

void results_record(struct boot *b, char *line)
{
	char *f[PROTO_MAX_FIELDS];
	int n = proto_split(line, f, PROTO_MAX_FIELDS);

	b->last_record = now_ms();
	for (size_t i = 0; i < ARRAY_SIZE(records); i++) {
		if (!strcmp(f[0], records[i].type) && n >= records[i].min_fields &&
		    records[i].handle(b, f, n))
			return;
	}
	say("tunlab: ignoring malformed record from L1: %s\n", f[0]);
}
