// SPDX-License-Identifier: GPL-2.0
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *file;
	char *(*text)(const struct run_result *r);
} writers[] = {
	{ "summary.txt", report_summary_text },
	{ "report.ktap", report_ktap_text },
	{ "junit.xml", report_junit_text },
	{ "report.json", report_json_text },
};

int report_write_all(const struct run_result *r, const char *dir, const char **failed)
{
	int first_err = 0;

	*failed = NULL;
	/* every file is tried: a smaller one may still fit where a larger did not */
	for (size_t i = 0; i < ARRAY_SIZE(writers); i++) {
		char *path = xasprintf("%s/%s", dir, writers[i].file);
		char *text = writers[i].text(r);
		int ret = write_file(path, text, strlen(text)), err = errno;

		free(path);
		free(text);
		if (ret < 0 && !first_err) {
			first_err = err;
			*failed = writers[i].file;
		}
	}
	errno = first_err;
	return first_err ? -1 : 0;
}
