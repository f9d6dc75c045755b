// SPDX-License-Identifier: GPL-2.0
/*
 * tunlab merge: shard runs joined into one (merge.h). The report.json of
 * each shard is read with json-c into the one result model, scenario by
 * scenario at its position in the whole plan; the report writers then
 * write the merged run as they write any other.
 */
#include "merge.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* A string member, copied; NULL for null or absent. */
static char *str_member(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key);

	return v && json_object_is_type(v, json_type_string) ?
		xstrdup(json_object_get_string(v)) : NULL;
}

static int int_member(struct json_object *o, const char *key, int dflt)
{
	struct json_object *v = member(o, key);

	return v ? json_object_get_int(v) : dflt;
}

static double num_member(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key);

	return v ? json_object_get_double(v) : 0;
}

static int result_member(struct json_object *o, const char *key, enum tl_result *out)
{
	const char *name = json_object_get_string(member(o, key));
	int r = name ? (int)tl_result_from_name(name) : -1;

	if (r < 0)
		return -1;
	*out = (enum tl_result)r;
	return 0;
}

/* An array of strings joined into lines, as the model keeps them; NULL for null. */
static char *lines_member(struct json_object *o, const char *key)
{
	struct json_object *a = member(o, key);
	struct sbuf sb = { 0 };

	if (!a || !json_object_is_type(a, json_type_array))
		return NULL;
	sbuf_puts(&sb, "");
	for (size_t i = 0; i < json_object_array_length(a); i++)
		sbuf_printf(&sb, "%s\n", json_object_get_string(json_object_array_get_idx(a, i)));
	return sb.buf;
}

static int read_scenario(struct merged_run *m, struct json_object *js, const char *what,
			 struct sbuf *err)
{
	struct json_object *steps = member(js, "steps"), *tags = member(js, "tags");
	int idx = int_member(js, "index", -1);
	struct scenario_result *sr;
	struct scenario *sc;

	if (idx < 0 || idx >= m->r.n) {
		sbuf_printf(err, "%s: a scenario without a plan position in 0..%d\n", what, m->r.n - 1);
		return -1;
	}
	sr = &m->r.s[idx];
	if (sr->sc) {
		sbuf_printf(err, "%s: plan position %d (%s:%d) came from an earlier shard too\n",
			    what, idx, sr->sc->file, sr->sc->line);
		return -1;
	}
	if (!steps || !json_object_is_type(steps, json_type_array)) {
		sbuf_printf(err, "%s: scenario %d has no steps array\n", what, idx);
		return -1;
	}
	sc = &m->scenarios[idx];
	sc->file = str_member(js, "file");
	sc->line = int_member(js, "line", 0);
	sc->title = str_member(js, "title");
	sc->ntags = tags ? (int)json_object_array_length(tags) : 0;
	sc->tags = xcalloc((size_t)sc->ntags + 1, sizeof(char *));
	for (int t = 0; t < sc->ntags; t++)
		sc->tags[t] = xstrdup(json_object_get_string(json_object_array_get_idx(tags, (size_t)t)));
	sc->nsteps = (int)json_object_array_length(steps);
	sc->steps = xcalloc((size_t)sc->nsteps + 1, sizeof(*sc->steps));
	sr->sc = sc;
	sr->index = idx;
	sr->steps = xcalloc((size_t)sc->nsteps + 1, sizeof(*sr->steps));
	sr->ms = num_member(js, "duration_ms");
	sr->reason = str_member(js, "reason");
	if (result_member(js, "result", &sr->result))
		goto bad_result;
	for (int j = 0; j < sc->nsteps; j++) {
		struct json_object *st = json_object_array_get_idx(steps, (size_t)j);

		sc->steps[j].line = int_member(st, "line", 0);
		sc->steps[j].text = str_member(st, "text");
		sr->steps[j].ms = num_member(st, "duration_ms");
		sr->steps[j].msg = str_member(st, "message");
		sr->steps[j].decisions = lines_member(st, "decisions");
		if (result_member(st, "result", &sr->steps[j].result))
			goto bad_result;
	}
	return 0;
bad_result:
	sbuf_printf(err, "%s: scenario %d (%s:%d) has an unknown result\n", what, idx,
		    sc->file, sc->line);
	return -1;
}

static int read_suite(struct merged_run *m, struct json_object *js, const char *what,
		      struct sbuf *err)
{
	const char *name = json_object_get_string(member(js, "name"));
	const char *lane = json_object_get_string(member(js, "lane"));
	struct json_object *lines = member(js, "lines");
	struct suite_result *su;

	if (!name) {
		sbuf_printf(err, "%s: a suite without a name\n", what);
		return -1;
	}
	for (int i = 0; i < m->r.nsuites; i++) {
		const char *l = m->r.suites[i].lane;

		if (!strcmp(m->r.suites[i].name, name) &&
		    (l == lane || (l && lane && !strcmp(l, lane)))) {
			sbuf_printf(err, "%s: suite %s came from an earlier shard too\n", what, name);
			return -1;
		}
	}
	su = run_suite(&m->r, name, lane);
	su->status = int_member(js, "status", -1);
	su->ms = num_member(js, "duration_ms");
	su->n_ok = int_member(js, "ok", 0);
	su->n_notok = int_member(js, "not_ok", 0);
	su->n_skip = int_member(js, "skipped", 0);
	su->reason = str_member(js, "reason");
	if (result_member(js, "result", &su->result)) {
		sbuf_printf(err, "%s: suite %s has an unknown result\n", what, name);
		return -1;
	}
	su->nlines = lines ? (int)json_object_array_length(lines) : 0;
	su->lines = xcalloc((size_t)su->nlines + 1, sizeof(char *));
	for (int j = 0; j < su->nlines; j++)
		su->lines[j] = xstrdup(json_object_get_string(json_object_array_get_idx(lines, (size_t)j)));
	return 0;
}

/* The first shard's value; a later shard that disagrees ran another lab. */
static int same_field(char **have, char *got, const char *field, const char *what,
		      struct sbuf *err)
{
	if (!*have) {
		*have = got;
		return 0;
	}
	if (got && strcmp(*have, got)) {
		sbuf_printf(err, "%s: %s %s, but an earlier shard ran %s\n", what, field, got, *have);
		free(got);
		return -1;
	}
	free(got);
	return 0;
}

int merge_add_report(struct merged_run *m, const char *text, const char *what,
		     struct sbuf *err)
{
	enum json_tokener_error jerr;
	struct json_object *root = json_tokener_parse_verbose(text, &jerr);
	struct json_object *run, *scenarios, *suites, *report;
	const char *schema;
	int size, ret = -1;

	if (!root) {
		sbuf_printf(err, "%s: not JSON: %s\n", what, json_tokener_error_desc(jerr));
		return -1;
	}
	schema = json_object_get_string(member(root, "schema"));
	run = member(root, "run");
	scenarios = member(root, "scenarios");
	suites = member(root, "suites");
	if (!schema || strcmp(schema, "tunlab-report/1") || !run || !scenarios || !suites) {
		sbuf_printf(err, "%s: not a tunlab-report/1 file\n", what);
		goto out;
	}
	size = int_member(run, "plan_size", -1);
	if (size < 0) {
		sbuf_printf(err, "%s: no plan_size: a report of an older runner\n", what);
		goto out;
	}
	if (!m->scenarios) {
		m->nscenarios = size;
		m->scenarios = xcalloc((size_t)size + 1, sizeof(*m->scenarios));
		m->r.n = size;
		m->r.plan_size = size;
		m->r.s = xcalloc((size_t)size + 1, sizeof(*m->r.s));
	} else if (size != m->r.n) {
		sbuf_printf(err, "%s: a plan of %d scenarios, but an earlier shard's has %d\n",
			    what, size, m->r.n);
		goto out;
	}
	if (same_field(&m->r.kernel, str_member(run, "kernel"), "kernel", what, err) ||
	    same_field(&m->r.lsm, str_member(run, "lsm"), "security modules", what, err))
		goto out;
	if (!m->r.accel) {
		m->r.accel = str_member(run, "accelerator");
		m->r.accel_reason = str_member(run, "accelerator_reason");
		m->r.lane = str_member(run, "lane");
	}
	/* the shards ran side by side: the merged run took as long as the longest */
	if (num_member(run, "duration_ms") > m->r.ms)
		m->r.ms = num_member(run, "duration_ms");
	if (member(run, "lab_error") && json_object_get_string(member(run, "lab_error"))) {
		char *e = str_member(run, "lab_error");

		if (m->r.infra_error) {
			char *both = xasprintf("%s; %s", m->r.infra_error, e);

			free(m->r.infra_error);
			free(e);
			e = both;
		}
		m->r.infra_error = e;
		if (result_member(run, "lab_result", &m->r.infra_result))
			m->r.infra_result = TL_ERROR;
	}
	report = member(run, "kernel_report");
	if (report && !m->r.crash_kind && json_object_is_type(report, json_type_object)) {
		m->r.crash_kind = str_member(report, "kind");
		m->r.crash_excerpt = str_member(report, "excerpt");
	}
	for (size_t i = 0; i < json_object_array_length(scenarios); i++)
		if (read_scenario(m, json_object_array_get_idx(scenarios, i), what, err))
			goto out;
	for (size_t i = 0; i < json_object_array_length(suites); i++)
		if (read_suite(m, json_object_array_get_idx(suites, i), what, err))
			goto out;
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

int merge_finish(struct merged_run *m, struct sbuf *err)
{
	int missing = 0;

	if (!m->scenarios && !m->r.nsuites) {
		sbuf_puts(err, "no shard reported anything\n");
		return -1;
	}
	for (int i = 0; i < m->r.n; i++) {
		if (m->r.s[i].sc)
			continue;
		if (!missing++)
			sbuf_printf(err, "plan position %d", i);
		else
			sbuf_printf(err, ", %d", i);
	}
	if (missing) {
		sbuf_printf(err, " of %d: no shard ran %s (is a shard missing?)\n", m->r.n,
			    missing == 1 ? "it" : "them");
		return -1;
	}
	return 0;
}

int merge_runs(char *const *dirs, int ndirs, struct merged_run *m, struct sbuf *err)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < ndirs; i++) {
		char *path = xasprintf("%s/report.json", dirs[i]);
		char *text = read_file(path, NULL);
		int ret;

		if (!text) {
			sbuf_printf(err, "%s: %s\n", path, strerror(errno));
			free(path);
			return -1;
		}
		ret = merge_add_report(m, text, path, err);
		free(text);
		free(path);
		if (ret)
			return -1;
	}
	return merge_finish(m, err);
}

void merged_run_free(struct merged_run *m)
{
	/* run_free reads the scenarios: free the results first */
	for (int i = 0; i < m->r.n; i++)
		if (!m->r.s[i].sc)
			m->r.s[i].sc = &m->scenarios[i];
	run_free(&m->r);
	for (int i = 0; i < m->nscenarios; i++) {
		struct scenario *sc = &m->scenarios[i];

		for (int j = 0; j < sc->nsteps; j++)
			free(sc->steps[j].text);
		for (int t = 0; t < sc->ntags; t++)
			free(sc->tags[t]);
		free(sc->steps);
		free(sc->tags);
		free(sc->file);
		free(sc->title);
	}
	free(m->scenarios);
	memset(m, 0, sizeof(*m));
}
