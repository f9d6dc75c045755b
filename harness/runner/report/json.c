// SPDX-License-Identifier: GPL-2.0
/*
 * report.json: the whole run as data, schema "tunlab-report/1"
 * (documented in results/README.md).
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static void json_str(struct sbuf *sb, const char *s)
{
	if (!s) {
		sbuf_puts(sb, "null");
		return;
	}
	sbuf_puts(sb, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sbuf_printf(sb, "\\%c", c);
		else if (c == '\n')
			sbuf_puts(sb, "\\n");
		else if (c == '\t')
			sbuf_puts(sb, "\\t");
		else if (c < 0x20)
			sbuf_printf(sb, "\\u%04x", c);
		else if (c >= 0x7f)
			/* not UTF-8 we vouch for: the byte's value, as safetext shows it */
			sbuf_printf(sb, "\\\\x%02x", c);
		else
			sbuf_add(sb, s, 1);
	}
	sbuf_puts(sb, "\"");
}

/* Decision record lines as an array of strings; null if not checked. */
static void json_records(struct sbuf *sb, const char *records)
{
	bool first = true;

	if (!records) {
		sbuf_puts(sb, "null");
		return;
	}
	sbuf_puts(sb, "[");
	for (const char *s = records; *s; ) {
		size_t len = strcspn(s, "\n");

		if (len) {
			char *line = xstrndup(s, len);

			sbuf_puts(sb, first ? "" : ", ");
			json_str(sb, line);
			free(line);
			first = false;
		}
		s += len;
		s += *s == '\n';
	}
	sbuf_puts(sb, "]");
}

/* "run": what ran where, how long, how it ended. */
static void json_run(struct sbuf *sb, const struct run_result *r)
{
	sbuf_puts(sb, "\"run\": {\"id\": ");
	json_str(sb, r->id);
	sbuf_puts(sb, ", \"kernel\": ");
	json_str(sb, r->kernel);
	sbuf_puts(sb, ", \"lsm\": ");
	json_str(sb, r->lsm);
	sbuf_puts(sb, ", \"accelerator\": ");
	json_str(sb, r->accel);
	sbuf_puts(sb, ", \"accelerator_reason\": ");
	json_str(sb, r->accel_reason);
	sbuf_puts(sb, ", \"lane\": ");
	json_str(sb, r->lane);
	sbuf_printf(sb, ", \"duration_ms\": %.1f, \"exit_status\": %d, \"plan_size\": %d, \"shard\": ",
		    r->ms, run_exit_code(r), r->plan_size);
	json_str(sb, r->shard);
	sbuf_printf(sb, ", \"interrupted\": %s", r->interrupted_by ? "true" : "false");
	sbuf_puts(sb, ", \"lab_error\": ");
	json_str(sb, r->infra_error);
	sbuf_puts(sb, ", \"lab_result\": ");
	json_str(sb, r->infra_error ? tl_result_name(r->infra_result) : NULL);
	sbuf_puts(sb, ", \"kernel_report\": ");
	if (r->crash_kind) {
		sbuf_puts(sb, "{\"kind\": ");
		json_str(sb, r->crash_kind);
		sbuf_puts(sb, ", \"excerpt\": ");
		json_str(sb, r->crash_excerpt);
		sbuf_puts(sb, "}");
	} else {
		sbuf_puts(sb, "null");
	}
	sbuf_puts(sb, "}");
}

static void json_step(struct sbuf *sb, const struct scenario_result *sr, int j)
{
	const struct step_result *st = &sr->steps[j];

	sbuf_printf(sb, "%s\n       {\"n\": %d, \"line\": %d, \"text\": ", j ? "," : "",
		    j + 1, sr->sc->steps[j].line);
	json_str(sb, sr->sc->steps[j].text);
	sbuf_printf(sb, ", \"result\": \"%s\", \"duration_ms\": %.1f, \"message\": ",
		    tl_result_name(st->result), st->ms);
	json_str(sb, st->msg);
	sbuf_puts(sb, ", \"decisions\": ");
	json_records(sb, st->decisions);
	sbuf_puts(sb, "}");
}

static void json_scenario(struct sbuf *sb, const struct scenario_result *sr)
{
	sbuf_printf(sb, "\"index\": %d, \"file\": ", sr->index);
	json_str(sb, sr->sc->file);
	sbuf_printf(sb, ", \"line\": %d, \"title\": ", sr->sc->line);
	json_str(sb, sr->sc->title);
	sbuf_puts(sb, ", \"tags\": [");
	for (int t = 0; t < sr->sc->ntags; t++) {
		if (t)
			sbuf_puts(sb, ", ");
		json_str(sb, sr->sc->tags[t]);
	}
	sbuf_printf(sb, "], \"result\": \"%s\", \"duration_ms\": %.1f, \"reason\": ",
		    tl_result_name(sr->result), sr->ms);
	json_str(sb, sr->reason);
	sbuf_puts(sb, ",\n     \"steps\": [");
	for (int j = 0; j < sr->sc->nsteps; j++)
		json_step(sb, sr, j);
	sbuf_puts(sb, "]}");
}

static void json_l1_suite(struct sbuf *sb, const struct suite_result *su)
{
	json_str(sb, su->name);
	sbuf_puts(sb, ", \"lane\": ");
	json_str(sb, su->lane);
	sbuf_printf(sb, ", \"result\": \"%s\", \"status\": %d, \"duration_ms\": %.1f, \"ok\": %d, \"not_ok\": %d, \"skipped\": %d, \"reason\": ",
		    tl_result_name(su->result), su->status, su->ms, su->n_ok, su->n_notok,
		    su->n_skip);
	json_str(sb, su->reason);
	sbuf_puts(sb, ",\n     \"lines\": [");
	for (int j = 0; j < su->nlines; j++) {
		sbuf_puts(sb, j ? ", " : "");
		json_str(sb, su->lines[j]);
	}
	sbuf_puts(sb, "]}");
}

char *report_json_text(const struct run_result *r)
{
	struct sbuf sb = { 0 };

	sbuf_puts(&sb, "{\n  \"schema\": \"tunlab-report/1\",\n  ");
	json_run(&sb, r);
	sbuf_puts(&sb, ",\n  \"scenarios\": [");
	for (int i = 0; i < r->n; i++) {
		sbuf_puts(&sb, i ? ",\n    {" : "\n    {");
		json_scenario(&sb, &r->s[i]);
	}
	sbuf_puts(&sb, "\n  ],\n  \"suites\": [");
	for (int i = 0; i < r->nsuites; i++) {
		sbuf_puts(&sb, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
		json_l1_suite(&sb, &r->suites[i]);
	}
	sbuf_puts(&sb, "\n  ]\n}\n");
	return sb.buf;
}
