// SPDX-License-Identifier: GPL-2.0
#include "ktap.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void indent(struct sbuf *sb, int depth)
{
	for (int i = 0; i < depth; i++)
		sbuf_puts(sb, "    ");
}

void ktap_version(struct sbuf *sb, int depth)
{
	indent(sb, depth);
	sbuf_puts(sb, "KTAP version 1\n");
}

void ktap_plan(struct sbuf *sb, int depth, int planned)
{
	indent(sb, depth);
	sbuf_printf(sb, "1..%d\n", planned);
}

/* A test's name ends at '#' (a directive) and at a newline. */
static void name_text(struct sbuf *sb, const char *s)
{
	for (; *s; s++)
		sbuf_add(sb, *s == '#' ? "_" : *s == '\n' ? " " : s, 1);
}

void ktap_subtest(struct sbuf *sb, int depth, const char *name, int planned)
{
	ktap_version(sb, depth);
	indent(sb, depth);
	sbuf_puts(sb, "# Subtest: ");
	name_text(sb, name);
	sbuf_puts(sb, "\n");
	ktap_plan(sb, depth, planned);
}

void ktap_nest(struct sbuf *sb, int depth, const char *line)
{
	indent(sb, depth);
	sbuf_printf(sb, "%s\n", line);
}

void ktap_diag(struct sbuf *sb, int depth, const char *text)
{
	struct sbuf prefix = { 0 };

	indent(&prefix, depth);
	sbuf_puts(&prefix, "# ");
	sbuf_prefix_lines(sb, prefix.buf, text);
	sbuf_free(&prefix);
}

void ktap_diagf(struct sbuf *sb, int depth, const char *fmt, ...)
{
	struct sbuf text = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sbuf_vprintf(&text, fmt, ap);
	va_end(ap);
	ktap_diag(sb, depth, text.buf ? text.buf : "");
	sbuf_free(&text);
}

void ktap_result(struct sbuf *sb, int depth, bool ok, int n, const char *name,
		 const char *directive, const char *reason)
{
	indent(sb, depth);
	sbuf_printf(sb, "%s %d ", ok ? "ok" : "not ok", n);
	name_text(sb, name);
	if (directive) {
		sbuf_printf(sb, " # %s", directive);
		if (reason && *reason) {
			sbuf_puts(sb, " ");
			name_text(sb, reason);
		}
	}
	sbuf_puts(sb, "\n");
}

void ktap_put(FILE *out, struct sbuf *sb)
{
	if (sb->len)
		fputs(sb->buf, out);
	fflush(out);
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

bool ktap_syntax_line(const char *line)
{
	static const char *const starts[] = { "KTAP version ", "TAP version ", "ok ", "not ok ", "#" };

	if (*line == ' ' || *line == '\t')
		return true;
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (!strncmp(line, starts[i], strlen(starts[i])))
			return true;
	return !strncmp(line, "1..", 3) && line[3] >= '0' && line[3] <= '9';
}
