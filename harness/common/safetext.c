// SPDX-License-Identifier: GPL-2.0
#include "safetext.h"

#include <string.h>

void sbuf_add_safe(struct sbuf *sb, const char *s, size_t len, size_t max,
		   enum safe_newlines nl)
{
	size_t word = 0, shown = 0, i;

	sbuf_add(sb, "", 0);
	for (i = 0; i < len && shown < max; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t before = sb->len;

		if (c == ' ' || (c == '\n' && nl == SAFE_KEEP_LINES)) {
			word = 0;
		} else if (++word > SAFE_WORD_MAX) {
			/* the rest of a long word: said once, then skipped */
			if (word == SAFE_WORD_MAX + 1)
				sbuf_puts(sb, "...");
			shown += sb->len - before;
			continue;
		}
		if ((c >= 0x20 && c < 0x7f && c != '\\') || (c == '\n' && nl == SAFE_KEEP_LINES))
			sbuf_add(sb, s + i, 1);
		else if (c == '\\')
			sbuf_puts(sb, "\\\\");
		else
			sbuf_printf(sb, "\\x%02x", c);
		shown += sb->len - before;
	}
	if (i < len)
		sbuf_printf(sb, "... (%zu bytes)", len);
}

char *safe_line(const char *s)
{
	struct sbuf sb = { 0 };

	sbuf_add_safe(&sb, s, strlen(s), SAFE_LINE_MAX, SAFE_ONE_LINE);
	return sb.buf;
}

char *safe_lines(const char *s, size_t max)
{
	struct sbuf sb = { 0 };

	sbuf_add_safe(&sb, s, strlen(s), max, SAFE_KEEP_LINES);
	return sb.buf;
}
