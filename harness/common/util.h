/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by every tunlab program: allocation that cannot
 * return NULL, growable string buffers, monotonic time.
 */
#ifndef TUNLAB_UTIL_H
#define TUNLAB_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable, always NUL-terminated byte buffer. */
struct sbuf {
	char *buf;
	size_t len;
	size_t cap;
};

void sbuf_add(struct sbuf *sb, const char *s, size_t n);
void sbuf_puts(struct sbuf *sb, const char *s);
void sbuf_printf(struct sbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sbuf_vprintf(struct sbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Every line of @text behind @prefix, so a message never breaks a table. */
void sbuf_prefix_lines(struct sbuf *sb, const char *prefix, const char *text);
void sbuf_free(struct sbuf *sb);
/*
 * Append @n bytes of @data to @buf, then hand every complete line in it to
 * @fn (without its "\n" or "\r\n") and drop it from @buf; what follows
 * the last newline stays for the next call.
 */
void sbuf_feed_lines(struct sbuf *buf, const char *data, size_t n,
		     void (*fn)(void *ctx, char *line), void *ctx);

/* A NULL-terminated argv grown one word at a time; free with argv_free(). */
struct argv_builder {
	char **v;
	int n;
};

void argv_add(struct argv_builder *b, const char *word);
/* Adds @owned and frees it: argv_addf(&b, xasprintf(...)). */
void argv_addf(struct argv_builder *b, char *owned);
void argv_free(char **argv);
/* Shell-quoted single line, for logs and error messages. */
char *argv_join(char *const *argv);

/* The value of KEY=VALUE on this kernel's command line (the last one, as
 * later parameters override earlier), or NULL. */
char *kernel_cmdline_value(const char *key);
/*
 * How many times slower than a usual L1 this one runs: tunlab.slow=N on
 * its command line (the debug kernel under TCG), else 1. A wait for what
 * must happen is multiplied by it, so slowness is not taken for a failure.
 */
unsigned int lab_slowness(void);

/* Write @text to @path in one write(), as sysfs, securityfs and procfs
 * files want it; -1 with errno. */
int write_string(const char *path, const char *text);

/* Milliseconds on CLOCK_MONOTONIC. */
double now_ms(void);

/* Read a whole file; NULL with errno set on failure. */
char *read_file(const char *path, size_t *len);
/* Write a whole file atomically (temp file + rename); -1 with errno. */
int write_file(const char *path, const char *data, size_t len);

#endif
