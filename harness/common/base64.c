// SPDX-License-Identifier: GPL-2.0
#include "base64.h"

#include <string.h>

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(struct sbuf *sb, const void *data, size_t len)
{
	const unsigned char *p = data;
	char quad[4];

	for (size_t i = 0; i < len; i += 3) {
		unsigned long v = (unsigned long)p[i] << 16;
		size_t left = len - i;

		if (left > 1)
			v |= (unsigned long)p[i + 1] << 8;
		if (left > 2)
			v |= p[i + 2];
		quad[0] = alphabet[v >> 18 & 63];
		quad[1] = alphabet[v >> 12 & 63];
		quad[2] = left > 1 ? alphabet[v >> 6 & 63] : '=';
		quad[3] = left > 2 ? alphabet[v & 63] : '=';
		sbuf_add(sb, quad, 4);
	}
	/* an empty file is an empty string, still NUL-terminated */
	if (!len)
		sbuf_add(sb, "", 0);
}

/* The value of @c in the alphabet, or -1. */
static int sextet(char c)
{
	const char *at = c ? strchr(alphabet, c) : NULL;

	return at ? (int)(at - alphabet) : -1;
}

int base64_decode(struct sbuf *sb, const char *text)
{
	size_t len = strlen(text);

	if (len % 4)
		return -1;
	if (!len)
		sbuf_add(sb, "", 0);
	for (size_t i = 0; i < len; i += 4) {
		const char *q = text + i;
		/* '=' only in the last quad, as its last one or two characters */
		int pad = q[3] == '=' ? (q[2] == '=' ? 2 : 1) : 0;
		unsigned long v = 0;
		char out[3];

		if (pad && i + 4 != len)
			return -1;
		for (int k = 0; k < 4 - pad; k++) {
			int s = sextet(q[k]);

			if (s < 0)
				return -1;
			v = v << 6 | (unsigned long)s;
		}
		v <<= 6 * pad;
		/* the bits of a padded quad past its last byte must be zero */
		if (v & ((1ul << (8 * pad)) - 1))
			return -1;
		out[0] = (char)(v >> 16);
		out[1] = (char)(v >> 8);
		out[2] = (char)v;
		sbuf_add(sb, out, 3 - (size_t)pad);
	}
	return 0;
}
