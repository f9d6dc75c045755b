/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Base64 (RFC 4648, the standard alphabet, '=' padding, no line breaks):
 * how binary files, the kernel's gcov counters, travel in the results
 * protocol's text records.
 */
#ifndef TUNLAB_BASE64_H
#define TUNLAB_BASE64_H

#include <stddef.h>

#include "util.h"

/* Append @len bytes of @data to @sb, encoded. */
void base64_encode(struct sbuf *sb, const void *data, size_t len);
/*
 * Decode @text (NUL-terminated) and append the bytes to @sb. Returns 0,
 * or -1 when @text is not base64: a byte outside the alphabet, a length
 * that is not a multiple of four, padding anywhere but at the end, or
 * bits set after the last byte. @sb may hold part of the output then.
 */
int base64_decode(struct sbuf *sb, const char *text);

#endif
