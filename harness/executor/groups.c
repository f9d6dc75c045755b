// SPDX-License-Identifier: GPL-2.0
/*
 * The plan, group by group: a scenario and those that continue it share
 * one context (devices, processes, guests), in a network namespace of
 * their own unless they ask for L1's; each step's result and each
 * scenario's end go to L0; the context is torn down after the last.
 */
#include "groups.h"
#include "actors.h"
#include "guests.h"
#include "net.h"
#include "outcome.h"
#include "run.h"
#include "selinux.h"
#include "tunguard.h"
#include "common/proto.h"
#include "common/verdict.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* Carry out step @step: a guest step here, any other in its actor's process. */
static void act(struct exec_ctx *x, const struct scenario *sc, int step, struct outcome *oc)
{
	const struct scn_step *st = &sc->steps[step];

	switch (st->action) {
	case SCN_L2_BOOT:
		act_l2_boot(x, sc, st, oc);
		break;
	case SCN_L2_PING:
		act_l2_ping(x, st, oc);
		break;
	case SCN_L2_STOP:
		act_l2_stop(x, st, oc);
		break;
	case SCN_RUN:
		act_run(x, st, step, sc->timeout_s, oc);
		break;
	default:
		act_in_process(x, sc, step, oc);
		break;
	}
}

/*
 * One step, its outcome, its tunguard decision records and its SELinux
 * AVC records against what it expects.
 */
static enum tl_result run_step(struct exec_ctx *x, const struct scenario *sc, int step,
			       struct sbuf *msg)
{
	const struct scn_step *st = &sc->steps[step];
	long long pos = st->check_decisions ? tg_position() : 0;
	enum tl_result avc = TL_PASS;
	struct outcome oc;
	bool ok, dec_ok = true;

	if (st->check_avcs && se_step_begin(x->selinux, msg) < 0)
		return TL_ERROR;
	act(x, sc, step, &oc);
	if (oc.skipped) {
		sbuf_puts(msg, oc.detail);
		return TL_SKIP;
	}
	ok = !oc.broken && outcome_met(st, &oc);
	outcome_describe(st, &oc, ok, msg);
	if (st->check_decisions) {
		free(x->step_records);
		dec_ok = tg_check_step(st, pos, &x->step_records, ok ? "" : "\n", msg);
	}
	if (st->check_avcs)
		avc = se_check_step(x->selinux, st, &x->step_records, ok && dec_ok ? "" : "\n", msg);
	if (oc.broken || avc == TL_ERROR)
		return TL_ERROR;
	return ok && dec_ok && avc == TL_PASS ? TL_PASS : TL_FAIL;
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

static void emit_begin(struct exec_ctx *x, int idx)
{
	char n[16];

	x->idx = idx;
	if (x->progress) {
		x->progress->open_idx = idx;
		x->progress->begun++;
	}
	snprintf(n, sizeof(n), "%d", idx);
	proto_emit(x->out, "begin", 1, n);
}

static void emit_end(struct exec_ctx *x, enum tl_result res, double ms, const char *why)
{
	char idx[16], t[32];

	snprintf(idx, sizeof(idx), "%d", x->idx);
	snprintf(t, sizeof(t), "%.1f", ms);
	proto_emit(x->out, "end", 4, idx, tl_result_name(res), t, why);
	if (x->progress)
		x->progress->open_idx = -1;
}

/* Plan item @idx begins and ends at once, in error. */
static void emit_not_run(struct exec_ctx *x, int idx, const char *why)
{
	emit_begin(x, idx);
	emit_end(x, TL_ERROR, 0, why);
}

/* What a group of scenarios (one, and those that continue it) made. */
struct group_ctx {
	struct linkset before;
	struct linkset netns_before;
	bool tunguard_changed;
	bool selinux_changed;
};

static void group_begin(struct group_ctx *g)
{
	memset(g, 0, sizeof(*g));
	links_snapshot(&g->before);
	netns_snapshot(&g->netns_before);
}

/* Teardown, whatever happened: problems are appended to @why. */
static void group_end(struct exec_ctx *x, struct group_ctx *g, const struct tg_state *tg,
		      struct sbuf *why)
{
	guests_teardown(x);
	procs_teardown(x);
	net_teardown(&g->before, &g->netns_before, why);
	links_free(&g->netns_before);
	links_free(&g->before);
	if (g->tunguard_changed && tg_apply(tg->boot_policy, tg->boot_mode, why) < 0)
		sbuf_puts(why, " (restoring tunguard)");
	if (g->selinux_changed)
		se_restore(x->selinux, why);
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

	if (missing) {
		sbuf_puts(why, "requires");
		for (unsigned int bit = 1; bit <= SCN_REQ_LAST; bit <<= 1)
			if (missing & bit)
				sbuf_printf(why, " %s", scn_feature_name(bit));
		sbuf_puts(why, ": not available in L1");
		return se_missing(x->selinux, missing, why);
	}
	worst = se_scenario_begin(x->selinux, sc, have, &g->selinux_changed, why);
	if (worst != TL_PASS)
		return worst;
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
		/* a step that cannot run here skips the scenario, saying why */
		if (worst == TL_SKIP)
			sbuf_printf(why, "step %d: %s", i + 1, msg.buf);
		sbuf_free(&msg);
	}
	return worst;
}

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

		emit_begin(x, items[k].idx);
		sbuf_puts(&why, "");
		if (broken) {
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
		emit_end(x, r, now_ms() - t0, why.buf);
		sbuf_free(&why);
		if (r != TL_PASS && r != TL_SKIP) {
			all = false;
			broken = true;
		}
	}
	return all;
}

/*
 * The group's process died: the scenario it was in ends in error (the
 * runner keeps what it sent before), and those of the group it never
 * began are not run, saying why.
 */
static void report_died_group(struct exec_ctx *x, struct plan_item *items, int n,
			      const struct group_progress *gp, int sig)
{
	char *msg = xasprintf("the executor's scenario process died (signal %d)", sig);
	char *rest = xasprintf("not run: %s in the scenario it continues", msg);

	if (gp->open_idx >= 0) {
		x->idx = gp->open_idx;
		emit_end(x, TL_ERROR, 0, msg);
	}
	for (int k = gp->begun; k < n; k++)
		emit_not_run(x, items[k].idx, k ? rest : msg);
	free(rest);
	free(msg);
}

/* Run a group in a child in a fresh network namespace, unless it asks for L1's. */
static bool run_group_isolated(struct exec_ctx *x, struct plan_item *items, int n,
			       unsigned int have, const struct tg_state *tg)
{
	struct group_progress *gp;
	struct sbuf why = { 0 };
	bool ok = false;
	int status;
	pid_t pid;

	if (items[0].sc->init_netns)
		return run_group(x, items, n, have, tg);
	gp = mmap(NULL, sizeof(*gp), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (gp == MAP_FAILED) {
		emit_not_run(x, items[0].idx, "cannot share the scenario's progress (mmap)");
		return false;
	}
	*gp = (struct group_progress){ .open_idx = -1 };
	fflush(x->out);
	pid = fork();
	if (pid == 0) {
		x->progress = gp;
		if (enter_scenario_netns(&why) < 0) {
			for (int k = 0; k < n; k++)
				emit_not_run(x, items[k].idx, why.buf);
			_exit(2);
		}
		ok = run_group(x, items, n, have, tg);
		fflush(x->out);
		_exit(ok ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		emit_not_run(x, items[0].idx, "cannot fork the scenario's process");
	else if (!WIFEXITED(status))
		report_died_group(x, items, n, gp, WTERMSIG(status));
	else
		ok = WEXITSTATUS(status) == 0;
	munmap(gp, sizeof(*gp));
	return ok;
}

/* The scenarios right after @items[0] that continue it, with it: a group. */
static int group_size(const struct plan_item *items, int n)
{
	int k = 1;

	while (k < n && items[k].sc && items[k].sc->continues &&
	       items[k].sc->index == items[k - 1].sc->index + 1 &&
	       !strcmp(items[k].sc->file, items[k - 1].sc->file))
		k++;
	return k;
}

void plan_run(struct exec_ctx *x, struct plan_item *items, int n, unsigned int have,
	      const struct tg_state *tg, bool fail_fast)
{
	bool failed = false;

	for (int k = 0; k < n && !(fail_fast && failed); ) {
		int size;

		if (!items[k].sc || items[k].sc->continues) {
			/* a broken file, or a scenario whose first part is not here */
			emit_not_run(x, items[k].idx, items[k].error ? items[k].error :
				     "not run: the scenario it continues did not run in this L1");
			failed = true;
			k++;
			continue;
		}
		size = group_size(&items[k], n - k);
		if (!run_group_isolated(x, &items[k], size, have, tg))
			failed = true;
		k += size;
	}
}
