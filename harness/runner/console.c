// SPDX-License-Identifier: GPL-2.0
#include "console.h"

#include <ctype.h>
#include <string.h>

static const struct {
	const char *needle;
	const char *kind;
} reports[] = {
	{ "Kernel panic - not syncing", "panic" },
	{ "KASAN:", "KASAN" },
	{ "UBSAN:", "UBSAN" },
	{ "kernel BUG at", "BUG" },
	{ "BUG:", "BUG" },
	{ "Oops:", "Oops" },
	{ "general protection fault", "general protection fault" },
	{ "WARNING:", "WARNING" },
	{ "Unable to handle kernel", "Oops" },
};

/* "[    1.234567] message" -> "message"; NULL for non-kernel lines. */
static const char *kernel_message(const char *line)
{
	const char *s = line;

	if (*s == '<') {	/* "<4>" level prefix from /dev/kmsg style logs */
		while (*s && *s != '>')
			s++;
		if (!*s)
			return NULL;
		s++;
	}
	if (*s++ != '[')
		return NULL;
	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return NULL;
	while (isdigit((unsigned char)*s))
		s++;
	if (*s++ != '.')
		return NULL;
	if (!isdigit((unsigned char)*s))
		return NULL;
	while (isdigit((unsigned char)*s))
		s++;
	if (*s++ != ']')
		return NULL;
	while (*s == ' ')
		s++;
	return s;
}

const char *console_scan_line(struct console_scan *cs, const char *line)
{
	const char *msg, *kind = NULL;

	cs->lines_seen++;
	if (cs->excerpt_left > 0) {
		sbuf_puts(&cs->excerpt, line);
		sbuf_puts(&cs->excerpt, "\n");
		cs->excerpt_left--;
	}
	msg = kernel_message(line);
	if (!msg)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(reports); i++) {
		if (strstr(msg, reports[i].needle)) {
			kind = reports[i].kind;
			break;
		}
	}
	if (!kind)
		return NULL;
	if (!strcmp(kind, "panic"))
		cs->panic = true;
	if (!cs->kind) {
		cs->kind = kind;
		cs->line_no = cs->lines_seen;
		sbuf_puts(&cs->excerpt, line);
		sbuf_puts(&cs->excerpt, "\n");
		cs->excerpt_left = CONSOLE_EXCERPT_LINES - 1;
	}
	return kind;
}

void console_scan_free(struct console_scan *cs)
{
	sbuf_free(&cs->excerpt);
}
