/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watch a kernel console for the reports that mean the kernel is no longer
 * trustworthy: panic, Oops, BUG, WARNING, KASAN/UBSAN, GPF. Only kernel
 * messages count (lines carrying a printk timestamp), so user space output
 * on the same console cannot trigger or hide a report.
 */
#ifndef TUNLAB_CONSOLE_H
#define TUNLAB_CONSOLE_H

#include <stdbool.h>

#include "common/util.h"

#define CONSOLE_EXCERPT_LINES 40

struct console_scan {
	const char *kind;	/* first report seen ("panic", "WARNING", ...) */
	int line_no;		/* its line number in the log, from 1 */
	int lines_seen;
	int excerpt_left;	/* lines still to copy into the excerpt */
	bool panic;		/* a panic (the kernel is gone) was seen */
	struct sbuf excerpt;	/* the first report and what follows it */
};

/* Feed one console line (without its newline). Returns the kind of report
 * this line starts, or NULL. */
const char *console_scan_line(struct console_scan *cs, const char *line);
void console_scan_free(struct console_scan *cs);

#endif
