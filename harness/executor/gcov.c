// SPDX-License-Identifier: GPL-2.0
/*
 * The gcov counters, to L0. The kernel shows one .gcda file per profiled
 * object under GCOV_DIR, at the path its object had in the build (with a
 * .gcno link beside it into a build tree L1 does not have); reading one
 * gives its counters as they are now, in gcc's own format. They travel as
 * they are, base64 in a record, and the runner writes them under the
 * run's folder; lcov pairs them with the .gcno files the build kept.
 */
#include "gcov.h"
#include "common/base64.h"
#include "common/ktap.h"
#include "common/proto.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct gcov_walk {
	FILE *out;
	const char *root;
	struct sbuf *ktap;
	int sent;
	int failed;
	size_t bytes;
};

static bool is_gcda(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && !strcmp(name + n - 5, ".gcda");
}

static void send_file(struct gcov_walk *w, const char *rel)
{
	char *path = xasprintf("%s/%s", w->root, rel), *data;
	struct sbuf b64 = { 0 };
	size_t len;

	data = read_file(path, &len);
	if (!data) {
		ktap_diagf(w->ktap, 1, "read %s: %s", path, strerror(errno));
		w->failed++;
		free(path);
		return;
	}
	base64_encode(&b64, data, len);
	if (proto_emit(w->out, "gcov", 2, rel, b64.buf) < 0) {
		ktap_diagf(w->ktap, 1, "sending %s: %s", rel, strerror(errno));
		w->failed++;
	} else {
		ktap_diagf(w->ktap, 1, "%s: %zu bytes", rel, len);
		w->sent++;
		w->bytes += len;
	}
	sbuf_free(&b64);
	free(data);
	free(path);
}

/* Every .gcda below @rel ("" for the root), in name order. */
static void walk(struct gcov_walk *w, const char *rel)
{
	char *dir = *rel ? xasprintf("%s/%s", w->root, rel) : xstrdup(w->root);
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	if (n < 0) {
		/* the root's absence is the suite's first check */
		if (*rel) {
			ktap_diagf(w->ktap, 1, "scandir %s: %s", dir, strerror(errno));
			w->failed++;
		}
		free(dir);
		return;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *sub = *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);
		char *full = xasprintf("%s/%s", dir, name);
		struct stat st;

		/* the .gcno entries are links into the build tree: not followed */
		if (strcmp(name, ".") && strcmp(name, "..") && lstat(full, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				walk(w, sub);
			else if (S_ISREG(st.st_mode) && is_gcda(name))
				send_file(w, sub);
		}
		free(full);
		free(sub);
		free(names[i]);
	}
	free(names);
	free(dir);
}

void gcov_send(FILE *out, const char *root)
{
	struct sbuf ktap = { 0 }, head = { 0 };
	struct gcov_walk w = { .out = out, .root = root, .ktap = &ktap };
	double t0 = now_ms();
	char *save, *line, ms[32], *found;
	struct stat st;
	bool have, failed;

	if (stat(root, &st) < 0) {
		ktap_diagf(&ktap, 1, "%s: %s (a kernel without CONFIG_GCOV_KERNEL, "
			   "or debugfs not mounted)", root, strerror(errno));
		have = false;
	} else {
		walk(&w, "");
		have = w.sent + w.failed > 0;
		if (!have)
			ktap_diagf(&ktap, 1, "no .gcda file under %s: the kernel profiles no file "
				   "(GCOV_PROFILE, kernel/build.sh's KERNEL_GCOV_PROFILE)", root);
	}
	ktap_result(&ktap, 1, have, 1, "the kernel keeps counters for the profiled files",
		    NULL, NULL);
	found = xasprintf("every counter file was read and sent: %d of %d, %zu bytes",
			  w.sent, w.sent + w.failed, w.bytes);
	ktap_result(&ktap, 1, have && !w.failed, 2, found, NULL, NULL);
	free(found);

	/* the suite's lines, then its end, the way a KTAP program's travel */
	ktap_version(&head, 0);
	ktap_plan(&head, 0, 1);
	ktap_subtest(&head, 1, "gcov", 2);
	sbuf_add(&head, ktap.buf, ktap.len);
	failed = !have || w.failed;
	ktap_result(&head, 0, !failed, 1, "gcov", NULL, NULL);
	for (line = strtok_r(head.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		proto_emit(out, "ktap", 2, "gcov", line);
	snprintf(ms, sizeof(ms), "%.1f", now_ms() - t0);
	proto_emit(out, "suite", 3, "gcov", failed ? "1" : "0", ms);
	sbuf_free(&head);
	sbuf_free(&ktap);
}
