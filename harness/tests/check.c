// SPDX-License-Identifier: GPL-2.0
#include "check.h"

#include <stdarg.h>
#include <stdio.h>

const char *check_data_dir = "harness/tests/data";
static int failures;

void check_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("    # %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures++;
}

int check_run(const struct unit_test *tests, int n)
{
	int passed = 0, failed = 0;

	printf("KTAP version 1\n1..%d\n", n);
	for (int i = 0; i < n; i++) {
		failures = 0;
		tests[i].fn();
		printf("%s %d %s\n", failures ? "not ok" : "ok", i + 1, tests[i].name);
		if (failures)
			failed++;
		else
			passed++;
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
