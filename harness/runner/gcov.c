// SPDX-License-Identifier: GPL-2.0
#include "gcov.h"
#include "common/base64.h"
#include "common/util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * A path L1 names is written below the run's folder: relative, every
 * component a name (no "", ".", ".."), printable, a .gcda file.
 */
static bool safe_rel(const char *rel)
{
	size_t n = strlen(rel);
	const char *c = rel;

	if (n < 6 || strcmp(rel + n - 5, ".gcda"))
		return false;
	for (const char *p = rel; *p; p++)
		if (*p < 0x21 || *p > 0x7e || *p == '\\')
			return false;
	for (;;) {
		size_t len = strcspn(c, "/");

		if (!len || (len == 1 && c[0] == '.') || (len == 2 && !strncmp(c, "..", 2)))
			return false;
		if (!c[len])
			return true;
		c += len + 1;
	}
}

/* The folders above @path, made as needed; -1 with errno. */
static int make_parents(char *path)
{
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return 0;
}

char *gcov_store(const char *run_dir, int set, const char *rel, const char *b64)
{
	struct sbuf data = { 0 };
	char *path, *why = NULL;

	if (!safe_rel(rel))
		return xasprintf("gcov counters: refusing the path '%.200s' (not a .gcda below the kernel's gcov folder)",
				 rel);
	if (base64_decode(&data, b64) < 0) {
		sbuf_free(&data);
		return xasprintf("gcov counters of %s: not base64 (%zu characters)", rel,
				 strlen(b64));
	}
	path = xasprintf("%s/gcov/boot-%d/%s", run_dir, set, rel);
	if (make_parents(path) < 0 || write_file(path, data.buf, data.len) < 0)
		why = xasprintf("cannot write %s: %s", path, strerror(errno));
	free(path);
	sbuf_free(&data);
	return why;
}
