/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report files of a run, one writer per file, all over the one result
 * model (result.h): each returns the file's text, to be freed.
 */
#ifndef TUNLAB_REPORT_H
#define TUNLAB_REPORT_H

#include "result.h"

/* summary.txt, also printed at the end of a run (summary.c) */
char *report_summary_text(const struct run_result *r);
/* report.ktap (ktap.c) */
char *report_ktap_text(const struct run_result *r);
/* junit.xml (junit.c) */
char *report_junit_text(const struct run_result *r);
/* report.json, schema tunlab-report/1 in results/README.md (json.c) */
char *report_json_text(const struct run_result *r);

/*
 * Write every report file into @dir, each atomically (whole or not at
 * all); -1 with errno and *@failed naming the first that could not be.
 */
int report_write_all(const struct run_result *r, const char *dir, const char **failed);

#endif
