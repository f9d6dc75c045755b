// SPDX-License-Identifier: GPL-2.0
/*
 * Echoing a user's text: escaped outside printable ASCII, long words and
 * long lines cut, in the parser's errors and in the report files.
 */
#include "check.h"
#include "common/safetext.h"
#include "common/scenario.h"
#include "runner/report/report.h"

#include <json-c/json.h>
#include <stdlib.h>

void test_safe_line_escapes_what_is_not_printable_ascii(void)
{
	char *s = safe_line("a\x1b[31mb\xc3\xa9 c\\d\te\n");

	CHECK_STR(s, "a\\x1b[31mb\\xc3\\xa9 c\\\\d\\x09e\\x0a");
	free(s);
	s = safe_lines("one\ntwo\x07\n", 100);
	CHECK_STR(s, "one\ntwo\\x07\n");
	free(s);
}

void test_safe_line_cuts_long_words_and_long_lines(void)
{
	char word[200], *big, *s;

	memset(word, 'w', sizeof(word) - 1);
	word[sizeof(word) - 1] = '\0';
	s = safe_line(word);
	CHECK_INT(strlen(s), SAFE_WORD_MAX + 3);
	CHECK_STR(s + SAFE_WORD_MAX, "...");
	free(s);

	/* a megabyte line of short words: cut after SAFE_LINE_MAX, its size said */
	big = malloc(1 << 20);
	for (size_t i = 0; i < (1 << 20) - 1; i++)
		big[i] = i % 3 == 2 ? ' ' : 'x';
	big[(1 << 20) - 1] = '\0';
	s = safe_line(big);
	CHECK(strlen(s) < SAFE_LINE_MAX + 32);
	CHECK_CONTAINS(s, "... (1048575 bytes)");
	free(s);
	free(big);
}

void test_parser_errors_quote_user_bytes_safely(void)
{
	struct scn_diags d = { 0 };
	struct scn_file f;
	char text[300];

	/* an unknown option of raw bytes and a terminal escape, then a long one */
	snprintf(text, sizeof(text), "scenario s\nas root create tap lab0 \x1b]0;x\xff=1 => ok\n"
		 "as root create tap lab1 %0200d => ok\n", 7);
	CHECK(scn_parse("t.scn", text, &f, &d) < 0);
	CHECK_INT(d.n, 2);
	CHECK_CONTAINS(d.v[0].msg, "'\\x1b]0;x\\xff=1'");
	CHECK(!strchr(d.v[0].msg, '\x1b'));
	CHECK_CONTAINS(d.v[1].msg, "'0000000000");
	CHECK_CONTAINS(d.v[1].msg, "...");
	CHECK(strlen(d.v[1].msg) < 200);
	scn_diags_free(&d);
	scn_file_free(&f);
}

void test_reports_stay_valid_with_bytes_outside_ascii(void)
{
	static char *texts[] = { "as root create tap lab0 => ok" };
	struct scn_step step = { .line = 2, .text = texts[0] };
	struct scenario sc = { .file = "x.scn", .line = 1, .title = "t", .nsteps = 1,
			       .steps = &step };
	const struct scenario *plan[1] = { &sc };
	struct json_object *doc;
	struct run_result r;
	char *x, *j;

	run_init(&r, plan, 1);
	r.id = xstrdup("20261203-000000");
	r.s[0].result = TL_FAIL;
	r.s[0].steps[0] = (struct step_result){ .result = TL_FAIL,
						.msg = xstrdup("qemu: \xff\xfe bad \x1b[2J") };
	x = report_junit_text(&r);
	j = report_json_text(&r);
	CHECK_CONTAINS(x, "qemu: \\xff\\xfe bad \\x1b[2J");
	doc = json_tokener_parse(j);
	CHECK(doc != NULL);
	CHECK_CONTAINS(j, "qemu: \\\\xff\\\\xfe bad \\u001b[2J");
	json_object_put(doc);
	free(x);
	free(j);
	run_free(&r);
}
