// SPDX-License-Identifier: GPL-2.0
#include "check.h"
#include "common/ktap.h"

#include <stdarg.h>
#include <stdio.h>

const char *check_data_dir = "harness/tests/data";
static int failures;
static struct sbuf out;

void check_fail(const char *file, int line, const char *fmt, ...)
{
	struct sbuf msg = { 0 };
	va_list ap;

	sbuf_printf(&msg, "%s:%d: ", file, line);
	va_start(ap, fmt);
	sbuf_vprintf(&msg, fmt, ap);
	va_end(ap);
	ktap_diag(&out, 1, msg.buf);
	ktap_put(stdout, &out);
	sbuf_free(&msg);
	failures++;
}

int check_run(const struct unit_test *tests, int n)
{
	int passed = 0, failed = 0;

	ktap_version(&out, 0);
	ktap_plan(&out, 0, n);
	ktap_put(stdout, &out);
	for (int i = 0; i < n; i++) {
		failures = 0;
		tests[i].fn();
		ktap_result(&out, 0, !failures, i + 1, tests[i].name, NULL, NULL);
		ktap_put(stdout, &out);
		if (failures)
			failed++;
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	sbuf_free(&out);
	return failed ? 1 : 0;
}
