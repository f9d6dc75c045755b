/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one KTAP v1 writer (Documentation/dev-tools/ktap.rst): the run's
 * report.ktap, the L1 programs and the unit tests all print through it.
 * Lines are appended to an sbuf; @depth is the nesting level, four spaces
 * of indentation each (0: top level, 1: a subtest's lines).
 */
#ifndef TUNLAB_KTAP_H
#define TUNLAB_KTAP_H

#include <stdbool.h>
#include <stdio.h>

#include "util.h"

/* "KTAP version 1" */
void ktap_version(struct sbuf *sb, int depth);
/* "1..N" */
void ktap_plan(struct sbuf *sb, int depth, int planned);
/* A subtest's header: version, "# Subtest: NAME" and its plan. */
void ktap_subtest(struct sbuf *sb, int depth, const char *name, int planned);
/* A line of another KTAP producer, nested at @depth as it is. */
void ktap_nest(struct sbuf *sb, int depth, const char *line);
/* "# " before every line of @text. */
void ktap_diag(struct sbuf *sb, int depth, const char *text);
void ktap_diagf(struct sbuf *sb, int depth, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * "ok N NAME" or "not ok N NAME", with " # DIRECTIVE REASON" when
 * @directive (SKIP, TIMEOUT, ERROR, ...) is given. A '#' in @name or
 * @reason would start a directive and a newline would end the line: they
 * become '_' and ' '.
 */
void ktap_result(struct sbuf *sb, int depth, bool ok, int n, const char *name,
		 const char *directive, const char *reason);
/*
 * Whether @line can be part of a KTAP stream printed into the kernel log:
 * indented (a subtest's lines, a failed expectation's text), or a top-level
 * version, plan, result or diagnostic. Other kernel messages land between
 * KUnit's lines whenever they happen to be printed; they are none of these.
 */
bool ktap_syntax_line(const char *line);
/* Write what @sb holds to @out, flush it and empty @sb: for live output. */
void ktap_put(FILE *out, struct sbuf *sb);

#endif
