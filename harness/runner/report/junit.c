// SPDX-License-Identifier: GPL-2.0
/*
 * junit.xml: one testcase per scenario and per KTAP suite from L1, for CI
 * systems; a failure names the first failing step and carries its message.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/*
 * XML 1.0 text: escape markup; a byte XML cannot carry (a control
 * character) or that may not be UTF-8 is shown as \xNN, as safetext does.
 */
static void xml_text(struct sbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': sbuf_puts(sb, "&amp;"); break;
		case '<': sbuf_puts(sb, "&lt;"); break;
		case '>': sbuf_puts(sb, "&gt;"); break;
		case '"': sbuf_puts(sb, "&quot;"); break;
		case '\'': sbuf_puts(sb, "&apos;"); break;
		default:
			if ((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n')
				sbuf_add(sb, s, 1);
			else
				sbuf_printf(sb, "\\x%02x", c);
		}
	}
}

/* The first step that did not pass, with its message: why a case failed. */
static const struct step_result *first_bad_step(const struct scenario_result *sr, int *idx)
{
	for (int i = 0; i < sr->sc->nsteps; i++) {
		enum tl_result r = sr->steps[i].result;

		if (r != TL_PASS && r != TL_NOTRUN && r != TL_SKIP) {
			*idx = i;
			return &sr->steps[i];
		}
	}
	return NULL;
}

static void junit_outcome(struct sbuf *sb, enum tl_result r, const char *message,
			  const char *body)
{
	const char *tag = r == TL_FAIL ? "failure" : r == TL_SKIP ? "skipped" : "error";

	if (r == TL_PASS)
		return;
	sbuf_printf(sb, "      <%s message=\"", tag);
	xml_text(sb, message ? message : tl_result_name(r));
	sbuf_printf(sb, "\" type=\"%s\"", tl_result_name(r));
	if (body && *body) {
		sbuf_puts(sb, ">");
		xml_text(sb, body);
		sbuf_printf(sb, "</%s>\n", tag);
	} else {
		sbuf_puts(sb, "/>\n");
	}
}

/* How many cases of each kind a <testsuite> holds. */
struct junit_counts {
	int tests, failures, errors, skipped;
	double ms;
};

/* @notrun_fails: a scenario that never ran failed; a KTAP suite cut short did not report */
static void count_case(struct junit_counts *c, enum tl_result x, bool notrun_fails)
{
	c->tests++;
	c->failures += x == TL_FAIL || (notrun_fails && x == TL_NOTRUN);
	c->errors += x == TL_ERROR || x == TL_TIMEOUT || x == TL_CRASH;
	c->skipped += x == TL_SKIP;
}

static void junit_suite_open(struct sbuf *sb, const char *tag, const char *name,
			     const struct junit_counts *c, const char *indent)
{
	sbuf_printf(sb, "%s<%s name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
		    indent, tag, name, c->tests, c->failures, c->errors, c->skipped, c->ms / 1000.0);
}

/* A scenario: its first failing step names the failure; every step in system-out. */
static void junit_scenario(struct sbuf *sb, const struct scenario_result *sr)
{
	const struct step_result *bad;
	struct sbuf msg = { 0 }, out = { 0 };
	int k = 0;

	sbuf_puts(sb, "    <testcase classname=\"");
	xml_text(sb, sr->sc->file);
	sbuf_puts(sb, "\" name=\"");
	xml_text(sb, sr->sc->title);
	sbuf_printf(sb, "\" file=\"");
	xml_text(sb, sr->sc->file);
	sbuf_printf(sb, "\" line=\"%d\" time=\"%.3f\">\n", sr->sc->line, sr->ms / 1000.0);
	bad = first_bad_step(sr, &k);
	if (bad)
		sbuf_printf(&msg, "step %d (line %d): %s", k + 1, sr->sc->steps[k].line,
			    sr->sc->steps[k].text);
	else
		sbuf_puts(&msg, sr->reason ? sr->reason : tl_result_name(sr->result));
	junit_outcome(sb, sr->result == TL_NOTRUN ? TL_FAIL : sr->result, msg.buf,
		      bad ? bad->msg : sr->reason);
	for (int j = 0; j < sr->sc->nsteps; j++)
		sbuf_printf(&out, "%-7s %8.0f ms  %d. %s\n", tl_result_name(sr->steps[j].result),
			    sr->steps[j].ms, j + 1, sr->sc->steps[j].text);
	if (out.len) {
		sbuf_puts(sb, "      <system-out>");
		xml_text(sb, out.buf);
		sbuf_puts(sb, "</system-out>\n");
	}
	sbuf_puts(sb, "    </testcase>\n");
	sbuf_free(&msg);
	sbuf_free(&out);
}

/* A KTAP suite from L1: its own lines in system-out. */
static void junit_l1_suite(struct sbuf *sb, const struct suite_result *su)
{
	char *title = suite_title(su);
	struct sbuf out = { 0 };

	sbuf_puts(sb, "    <testcase classname=\"l1-ktap\" name=\"");
	xml_text(sb, title);
	free(title);
	sbuf_printf(sb, "\" time=\"%.3f\">\n", su->ms / 1000.0);
	for (int j = 0; j < su->nlines; j++)
		sbuf_printf(&out, "%s\n", su->lines[j]);
	junit_outcome(sb, su->result, su->reason, NULL);
	sbuf_puts(sb, "      <system-out>");
	xml_text(sb, out.buf);
	sbuf_puts(sb, "</system-out>\n    </testcase>\n");
	sbuf_free(&out);
}

char *report_junit_text(const struct run_result *r)
{
	struct junit_counts sc = { .ms = r->ms }, l1 = { 0 }, all;
	struct sbuf sb = { 0 };

	for (int i = 0; i < r->n; i++)
		count_case(&sc, r->s[i].result, true);
	for (int i = 0; i < r->nsuites; i++) {
		count_case(&l1, r->suites[i].result, false);
		l1.ms += r->suites[i].ms;
	}
	all = (struct junit_counts){ sc.tests + l1.tests, sc.failures + l1.failures,
				     sc.errors + l1.errors, sc.skipped + l1.skipped, r->ms };
	sbuf_puts(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	junit_suite_open(&sb, "testsuites", "tunlab", &all, "");
	junit_suite_open(&sb, "testsuite", "scenarios", &sc, "  ");
	for (int i = 0; i < r->n; i++)
		junit_scenario(&sb, &r->s[i]);
	sbuf_puts(&sb, "  </testsuite>\n");
	junit_suite_open(&sb, "testsuite", "l1-ktap", &l1, "  ");
	for (int i = 0; i < r->nsuites; i++)
		junit_l1_suite(&sb, &r->suites[i]);
	sbuf_puts(&sb, "  </testsuite>\n</testsuites>\n");
	return sb.buf;
}
