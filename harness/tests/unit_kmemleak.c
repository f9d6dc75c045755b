// SPDX-License-Identifier: GPL-2.0
/* The executor's reading of a kmemleak report (a recorded one, in data/). */
#include "check.h"
#include "executor/kmemleak.h"

#include <stdlib.h>

void test_kmemleak_report_counts_leaks_and_names_ours(void)
{
	char *path = xasprintf("%s/kmemleak/two-leaks.txt", check_data_dir);
	char *report = read_file(path, NULL);
	struct sbuf ktap = { 0 };
	int ours;

	CHECK(report != NULL);
	/* at the start only tunguard's and TUN's leaks are shown */
	CHECK_INT(kmemleak_count(&ktap, report ? report : "", true, &ours), 2);
	CHECK_INT(ours, 1);
	CHECK_CONTAINS(ktap.buf, "tg_policy_parse+0x14a/0x6f0");
	CHECK(!strstr(ktap.buf, "acpi_os_allocate_zeroed"));
	/* at the end every leak is shown */
	ktap.len = 0;
	CHECK_INT(kmemleak_count(&ktap, report ? report : "", false, &ours), 2);
	CHECK_CONTAINS(ktap.buf, "acpi_os_allocate_zeroed");
	ktap.len = 0;
	CHECK_INT(kmemleak_count(&ktap, "", false, &ours), 0);
	CHECK_INT(ours, 0);
	sbuf_free(&ktap);
	free(report);
	free(path);
}
