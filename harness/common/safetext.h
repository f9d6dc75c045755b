/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text from outside (a scenario file, a policy, QEMU's or libvirt's
 * messages, a console) made safe to echo on a terminal or into a report:
 * printable ASCII only, and never a megabyte of it.
 */
#ifndef TUNLAB_SAFETEXT_H
#define TUNLAB_SAFETEXT_H

#include <stddef.h>

#include "util.h"

/* a word (bytes between spaces) is cut after this many bytes, with "..." */
#define SAFE_WORD_MAX	64
/* what a one-line message or a quoted line shows at most */
#define SAFE_LINE_MAX	512

enum safe_newlines {
	SAFE_ONE_LINE,		/* a newline is \x0a like any control byte */
	SAFE_KEEP_LINES,	/* a newline stays: a message of several lines */
};

/*
 * Append @len bytes of @s to @sb: each byte outside printable ASCII as
 * \xNN and a backslash as \\, so nothing is lost but nothing reaches the
 * reader raw (no terminal escapes, no invalid UTF-8 in JSON or XML); a
 * word longer than SAFE_WORD_MAX is cut with "...", and after @max bytes
 * of output the rest is summed up as "... (N bytes)".
 */
void sbuf_add_safe(struct sbuf *sb, const char *s, size_t len, size_t max,
		   enum safe_newlines nl);
/* @s (NUL-terminated) as one safe line of at most SAFE_LINE_MAX bytes: malloc'ed. */
char *safe_line(const char *s);
/* @s as safe lines, newlines kept, at most @max bytes: malloc'ed. */
char *safe_lines(const char *s, size_t max);

#endif
