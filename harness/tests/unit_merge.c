// SPDX-License-Identifier: GPL-2.0
/*
 * Sharding: how a plan is dealt into shares, and `tunlab merge`, which
 * must give back, from the shards' report.json files, the report files
 * the unsharded run writes.
 */
#include "check.h"
#include "runner/merge.h"
#include "runner/plan.h"
#include "runner/report/report.h"

#include <stdlib.h>

/* A scenario of @nquick quick steps, @boots L2 boots and @pings pings in one step. */
static void make_scenario(struct scenario *sc, struct scn_step *st, int nquick, int boots, int pings,
			  bool continues)
{
	static char *count[] = { "count=10" };
	int n = 0;

	for (int i = 0; i < nquick; i++)
		st[n++] = (struct scn_step){ .action = SCN_CREATE };
	for (int i = 0; i < boots; i++)
		st[n++] = (struct scn_step){ .action = SCN_L2_BOOT };
	if (pings)
		st[n++] = (struct scn_step){ .action = SCN_L2_PING, .argc = pings == 10,
					     .argv = count };
	*sc = (struct scenario){ .nsteps = n, .steps = st, .continues = continues };
}

void test_scenario_cost_grows_with_what_its_steps_do(void)
{
	struct scenario sc;
	struct scn_step st[8];
	long quick, booted, ten, three;

	make_scenario(&sc, st, 2, 0, 0, false);
	quick = plan_cost(&sc);
	make_scenario(&sc, st, 2, 1, 0, false);
	booted = plan_cost(&sc);
	CHECK(quick > 0 && quick < 1000);
	CHECK(booted - quick >= 4000);
	/* an L2 boot meant to fail is quick, */
	st[2].expect = SCN_EXPECT_ERRNO;
	CHECK(plan_cost(&sc) < booted - 3000);
	/* pings count one by one, three without count= */
	make_scenario(&sc, st, 2, 1, 10, false);
	ten = plan_cost(&sc) - booted;
	make_scenario(&sc, st, 2, 1, 3, false);
	three = plan_cost(&sc) - booted;
	CHECK(three > 0);
	CHECK_INT(ten * 3, three * 10);
}

void test_shards_deal_whole_groups_the_same_way_every_time(void)
{
	/* 0, 1+2 (2 continues 1), 3, 4+5+6: all quick and alike */
	static const bool continues[] = { false, false, true, false, false, true, true };
	struct scenario sc[7];
	struct scn_step st[7][1];
	const struct scenario *plan[7];
	int a[7], b[7];

	for (int i = 0; i < 7; i++) {
		make_scenario(&sc[i], st[i], 1, 0, 0, continues[i]);
		plan[i] = &sc[i];
	}
	CHECK_INT(plan_deal(plan, 7, 2, NULL, a), 4);
	/* each group to the share with less so far: 0 | 1+2 | 3 (0 has one, 1 two) | 4+5+6 */
	CHECK_INT(a[0], 0);
	CHECK_INT(a[1], 1);
	CHECK_INT(a[2], 1);
	CHECK_INT(a[3], 0);
	CHECK_INT(a[4], 0);
	CHECK_INT(a[5], 0);
	CHECK_INT(a[6], 0);
	plan_deal(plan, 7, 2, NULL, b);
	CHECK(!memcmp(a, b, sizeof(a)));
	/* more shares than groups: the last ones are empty */
	CHECK_INT(plan_deal(plan, 7, 5, NULL, a), 4);
	for (int i = 0; i < 7; i++)
		CHECK(a[i] < 4);
}

void test_shards_balance_cost_not_counts(void)
{
	/* one scenario with an L2 and ten pings, then eight quick ones */
	struct scenario sc[9];
	struct scn_step st[9][3];
	const struct scenario *plan[9];
	long head[2] = { 0, 0 };
	int part[9], n0 = 0;

	make_scenario(&sc[0], st[0], 1, 1, 10, false);
	plan[0] = &sc[0];
	for (int i = 1; i < 9; i++) {
		make_scenario(&sc[i], st[i], 3, 0, 0, false);
		plan[i] = &sc[i];
	}
	/* round robin would give the L2 four quick ones besides; cost gives it none */
	CHECK_INT(plan_deal(plan, 9, 2, head, part), 9);
	CHECK_INT(part[0], 0);
	for (int i = 1; i < 9; i++)
		n0 += part[i] == 0;
	CHECK_INT(n0, 0);
	/* share 0 starting with more than the whole plan (shard 1's KTAP programs) */
	head[0] = 10 * plan_cost(plan[0]);
	plan_deal(plan, 9, 2, head, part);
	for (int i = 0; i < 9; i++)
		CHECK_INT(part[i], 1);
	/* the head start is only a start: a long enough plan reaches share 0 too */
	head[0] = plan_cost(plan[0]) / 2;
	plan_deal(plan, 9, 2, head, part);
	CHECK_INT(part[0], 1);
	CHECK_INT(part[1], 0);
}

static struct scn_step steps[3][2];
static struct scenario scs[3];

/* Three scenarios of two steps, every field the reports show filled in. */
static void make_full_run(struct run_result *r)
{
	static const char *titles[] = { "first", "second \"quoted\"", "third" };
	static char *tags[] = { "persist" };
	const struct scenario *plan[3];
	struct suite_result *su;

	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 2; j++)
			steps[i][j] = (struct scn_step){ .line = 10 * i + 3 + j,
				.text = j ? "as 1000 attach tap lab0 => EPERM" : "as root create tap lab0 => ok" };
		scs[i] = (struct scenario){ .file = "host-scenarios/x.scn", .line = 10 * i + 1,
					    .title = (char *)titles[i], .nsteps = 2, .steps = steps[i],
					    .ntags = 1, .tags = tags };
		plan[i] = &scs[i];
	}
	run_init(r, plan, 3);
	r->id = xstrdup("20261203-000000");
	r->kernel = xstrdup("6.1.192+");
	r->lsm = xstrdup("capability,tunguard");
	r->accel = xstrdup("tcg");
	r->accel_reason = xstrdup("no vmx/svm in /proc/cpuinfo");
	r->ms = 5000;
	for (int i = 0; i < 3; i++) {
		r->s[i].result = i == 1 ? TL_FAIL : TL_PASS;
		r->s[i].ms = 1000 + i;
		r->s[i].steps[0] = (struct step_result){ TL_PASS, 12.5, NULL,
							 xstrdup("seq=1 op=create verdict=allow\n") };
		r->s[i].steps[1] = (struct step_result){ i == 1 ? TL_FAIL : TL_PASS, 7,
							 xstrdup(i == 1 ? "got ok\n\tnot EPERM" : ""), NULL };
	}
	r->s[1].reason = xstrdup("step 2 failed");
	r->lane = xstrdup("qemu-tcg svm");
	su = run_suite(r, "kunit:tunguard_policy", r->lane);
	su->result = TL_PASS;
	su->ms = 3;
	su->n_ok = 1;
	su->nlines = 2;
	su->lines = xcalloc(3, sizeof(char *));
	su->lines[0] = xstrdup("KTAP version 1");
	su->lines[1] = xstrdup("ok 1 tunguard_policy");
}

/* The shard @k of 2 of @full: scenarios 0 and 2 and the suites, or 1. */
static char *shard_json(const struct run_result *full, int k)
{
	const struct scenario *plan[2];
	int idx[2], n = 0;
	struct run_result r;
	char *text;

	for (int i = 0; i < 3; i++)
		if ((i == 1) == (k == 2)) {
			idx[n] = i;
			plan[n++] = full->s[i].sc;
		}
	run_init(&r, plan, n);
	r.plan_size = 3;
	r.shard = xasprintf("%d/2", k);
	r.kernel = xstrdup(full->kernel);
	r.lsm = xstrdup(full->lsm);
	r.accel = xstrdup(full->accel);
	r.accel_reason = xstrdup(full->accel_reason);
	r.lane = xstrdup(full->lane);
	r.ms = full->ms;
	for (int i = 0; i < n; i++) {
		const struct scenario_result *s = &full->s[idx[i]];

		r.s[i].index = idx[i];
		r.s[i].result = s->result;
		r.s[i].ms = s->ms;
		r.s[i].reason = s->reason ? xstrdup(s->reason) : NULL;
		for (int j = 0; j < 2; j++) {
			r.s[i].steps[j] = s->steps[j];
			r.s[i].steps[j].msg = s->steps[j].msg ? xstrdup(s->steps[j].msg) : NULL;
			r.s[i].steps[j].decisions = s->steps[j].decisions ?
				xstrdup(s->steps[j].decisions) : NULL;
		}
	}
	if (k == 1) {
		struct suite_result *su = run_suite(&r, full->suites[0].name, full->suites[0].lane);
		char **lines = su->lines;

		*su = full->suites[0];
		su->name = xstrdup(full->suites[0].name);
		su->lane = xstrdup(full->suites[0].lane);
		su->lines = xrealloc(lines, sizeof(char *) * (size_t)su->nlines);
		for (int j = 0; j < su->nlines; j++)
			su->lines[j] = xstrdup(full->suites[0].lines[j]);
	}
	text = report_json_text(&r);
	run_free(&r);
	return text;
}

void test_merged_shards_write_the_reports_of_the_unsharded_run(void)
{
	char *(*const writers[])(const struct run_result *) = {
		report_summary_text, report_ktap_text, report_junit_text, report_json_text,
	};
	struct run_result full;
	struct merged_run m = { 0 };
	struct sbuf err = { 0 };
	char *s1, *s2;

	make_full_run(&full);
	s1 = shard_json(&full, 1);
	s2 = shard_json(&full, 2);
	CHECK_CONTAINS(s2, "\"shard\": \"2/2\"");
	/* in either order */
	CHECK_INT(merge_add_report(&m, s2, "shard 2", &err), 0);
	CHECK_INT(merge_add_report(&m, s1, "shard 1", &err), 0);
	CHECK_INT(merge_finish(&m, &err), 0);
	CHECK(!err.buf);
	m.r.id = xstrdup(full.id);
	for (size_t i = 0; i < ARRAY_SIZE(writers); i++) {
		char *want = writers[i](&full), *got = writers[i](&m.r);

		CHECK_STR(got, want);
		free(want);
		free(got);
	}
	CHECK_INT(run_exit_code(&m.r), TL_EXIT_FAIL);
	merged_run_free(&m);
	run_free(&full);
	free(s1);
	free(s2);
}

void test_merge_names_what_is_missing_or_twice(void)
{
	struct run_result full;
	struct merged_run m = { 0 };
	struct sbuf err = { 0 };
	char *s1, *s2, *other;

	make_full_run(&full);
	s1 = shard_json(&full, 1);
	s2 = shard_json(&full, 2);

	CHECK_INT(merge_add_report(&m, s1, "shard 1", &err), 0);
	CHECK_INT(merge_finish(&m, &err), -1);
	CHECK_CONTAINS(err.buf, "plan position 1 of 3: no shard ran it (is a shard missing?)");
	sbuf_free(&err);
	CHECK_INT(merge_add_report(&m, s1, "again", &err), -1);
	CHECK_CONTAINS(err.buf, "again: plan position 0 (host-scenarios/x.scn:1) came from an earlier shard too");
	merged_run_free(&m);
	sbuf_free(&err);

	other = xstrdup(s2);
	memcpy(strstr(other, "6.1.192+"), "6.12.90", 7);
	CHECK_INT(merge_add_report(&m, s1, "shard 1", &err), 0);
	CHECK_INT(merge_add_report(&m, other, "shard 2", &err), -1);
	CHECK_CONTAINS(err.buf, "shard 2: kernel 6.12.90+, but an earlier shard ran 6.1.192+");
	merged_run_free(&m);
	sbuf_free(&err);

	CHECK_INT(merge_add_report(&m, "{\"schema\": \"other\"}", "x.json", &err), -1);
	CHECK_CONTAINS(err.buf, "x.json: not a tunlab-report/1 file");
	merged_run_free(&m);
	sbuf_free(&err);
	run_free(&full);
	free(s1);
	free(s2);
	free(other);
}
