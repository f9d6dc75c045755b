// SPDX-License-Identifier: GPL-2.0
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void oom(void)
{
	fputs("tunlab: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct sbuf sb = { 0 };
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sb.cap = (size_t)n + 1;
	sb.buf = xmalloc(sb.cap);
	va_start(ap, fmt);
	vsnprintf(sb.buf, sb.cap, fmt, ap);
	va_end(ap);
	return sb.buf;
}

static void sbuf_grow(struct sbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	while (sb->len + extra + 1 > sb->cap)
		sb->cap = sb->cap ? sb->cap * 2 : 128;
	sb->buf = xrealloc(sb->buf, sb->cap);
}

void sbuf_add(struct sbuf *sb, const char *s, size_t n)
{
	sbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_puts(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_vprintf(struct sbuf *sb, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	sbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, again);
	va_end(again);
	sb->len += (size_t)n;
}

void sbuf_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbuf_vprintf(sb, fmt, ap);
	va_end(ap);
}

void sbuf_prefix_lines(struct sbuf *sb, const char *prefix, const char *text)
{
	for (const char *s = text; s && *s; ) {
		size_t len = strcspn(s, "\n");

		sbuf_printf(sb, "%s%.*s\n", prefix, (int)len, s);
		s += len;
		s += *s == '\n';
	}
}

void sbuf_free(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void sbuf_feed_lines(struct sbuf *buf, const char *data, size_t n,
		     void (*fn)(void *ctx, char *line), void *ctx)
{
	size_t start = 0;

	sbuf_add(buf, data, n);
	for (size_t i = 0; i < buf->len; i++) {
		if (buf->buf[i] != '\n')
			continue;
		buf->buf[i] = '\0';
		if (i > start && buf->buf[i - 1] == '\r')
			buf->buf[i - 1] = '\0';
		fn(ctx, buf->buf + start);
		start = i + 1;
	}
	memmove(buf->buf, buf->buf + start, buf->len - start);
	buf->len -= start;
	buf->buf[buf->len] = '\0';
}

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

char *read_file(const char *path, size_t *len)
{
	struct sbuf sb = { 0 };
	char chunk[65536];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	sbuf_add(&sb, "", 0);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			close(fd);
			sbuf_free(&sb);
			errno = err;
			return NULL;
		}
		sbuf_add(&sb, chunk, (size_t)n);
	}
	close(fd);
	if (len)
		*len = sb.len;
	return sb.buf;
}

int write_file(const char *path, const char *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	size_t off = 0;
	int fd, err;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			goto fail_unlink;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0)
		goto fail_unlink;
	free(tmp);
	return 0;

fail_unlink:
	err = errno;
	unlink(tmp);
	errno = err;
fail:
	err = errno;
	free(tmp);
	errno = err;
	return -1;
}

void argv_add(struct argv_builder *b, const char *word)
{
	b->v = xrealloc(b->v, sizeof(char *) * (size_t)(b->n + 2));
	b->v[b->n++] = xstrdup(word);
	b->v[b->n] = NULL;
}

void argv_addf(struct argv_builder *b, char *owned)
{
	argv_add(b, owned);
	free(owned);
}

void argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

char *argv_join(char *const *argv)
{
	struct sbuf sb = { 0 };

	sbuf_puts(&sb, "");
	for (char *const *p = argv; *p; p++) {
		if (p != argv)
			sbuf_puts(&sb, " ");
		if (**p && !strpbrk(*p, " \t\n'\"\\$`*?;&|<>()"))
			sbuf_puts(&sb, *p);
		else {
			sbuf_puts(&sb, "'");
			for (const char *s = *p; *s; s++) {
				if (*s == '\'')
					sbuf_puts(&sb, "'\\''");
				else
					sbuf_add(&sb, s, 1);
			}
			sbuf_puts(&sb, "'");
		}
	}
	return sb.buf;
}

char *kernel_cmdline_value(const char *key)
{
	char *cmdline = read_file("/proc/cmdline", NULL), *p, *v = NULL;
	size_t kl = strlen(key);

	for (p = cmdline; p && (p = strstr(p, key)); p += kl) {
		if ((p == cmdline || p[-1] == ' ') && p[kl] == '=') {
			free(v);
			v = xstrndup(p + kl + 1, strcspn(p + kl + 1, " \n"));
		}
	}
	free(cmdline);
	return v;
}

unsigned int lab_slowness(void)
{
	static unsigned int slow;
	char *v;

	if (slow)
		return slow;
	v = kernel_cmdline_value("tunlab.slow");
	slow = v ? (unsigned int)strtoul(v, NULL, 10) : 1;
	if (slow < 1 || slow > 100)
		slow = 1;
	free(v);
	return slow;
}

int write_string(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), ret = 0, err;

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -1;
	err = errno;
	if (close(fd) < 0 && !ret)
		return -1;
	errno = err;
	return ret;
}
