// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel coverage's way from L1 to L0: the executor sends each counter
 * file under the kernel's gcov folder (executor/gcov.c), the runner keeps
 * it under the run's folder (runner/gcov.c, records.c); whatever stops a
 * file on the way is said, and loses no test result.
 */
#include "check.h"
#include "common/proto.h"
#include "common/util.h"
#include "executor/gcov.h"
#include "runner/boot.h"
#include "runner/gcov.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* bytes a counter file may hold: NUL, newline, tab, backslash, high bytes */
static const char counters[] = "adcg\0\0\0\x0a\t\\\xff\x01gcda";

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/tunlab-unit-gcov.XXXXXX";

	return xstrdup(mkdtemp(tmpl));
}

static void rm_tree(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	CHECK_INT(system(cmd), 0);
	free(cmd);
}

/* What gcov_send() wrote for @root, one record a line. */
static char *send_text(const char *root)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	gcov_send(f, root);
	fclose(f);
	return text;
}

void test_gcov_counters_travel_whole_from_l1_to_the_run_folder(void)
{
	char *root = tmpdir(), *run = tmpdir(), *text, *save, *line, *p, *got;
	const char *obj = "tmp/b/obj/security/tunguard";
	size_t len;
	int stored = 0;

	p = xasprintf("mkdir -p '%s/%s' '%s/tmp/b/obj/drivers/net' '%s/empty'", root, obj, root, root);
	CHECK_INT(system(p), 0);
	free(p);
	p = xasprintf("%s/%s/lsm.gcda", root, obj);
	CHECK_INT(write_file(p, counters, sizeof(counters)), 0);
	free(p);
	p = xasprintf("%s/tmp/b/obj/drivers/net/tun.gcda", root);
	CHECK_INT(write_file(p, "", 0), 0);
	free(p);
	/* the kernel's links to the build's .gcno, and its reset file: not sent */
	p = xasprintf("%s/%s/lsm.gcno", root, obj);
	CHECK_INT(symlink("/nonexistent/lsm.gcno", p), 0);
	free(p);
	p = xasprintf("%s/reset", root);
	CHECK_INT(write_file(p, "", 0), 0);
	free(p);

	text = send_text(root);
	CHECK_CONTAINS(text, "ok 1 the kernel keeps counters for the profiled files");
	p = xasprintf("ok 2 every counter file was read and sent: 2 of 2, %zu bytes", sizeof(counters));
	CHECK_CONTAINS(text, p);
	free(p);
	CHECK_CONTAINS(text, "suite\tgcov\t0\t");
	CHECK(!strstr(text, "gcno") && !strstr(text, "reset"));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[PROTO_MAX_FIELDS];

		if (proto_split(line, f, PROTO_MAX_FIELDS) == 3 && !strcmp(f[0], "gcov")) {
			char *why = gcov_store(run, 1, f[1], f[2]);

			if (why)
				check_fail(__FILE__, __LINE__, "%s", why);
			free(why);
			stored++;
		}
	}
	CHECK_INT(stored, 2);
	p = xasprintf("%s/gcov/boot-1/%s/lsm.gcda", run, obj);
	got = read_file(p, &len);
	CHECK_INT(len, sizeof(counters));
	CHECK(got && !memcmp(got, counters, sizeof(counters)));
	free(got);
	free(p);
	p = xasprintf("%s/gcov/boot-1/tmp/b/obj/drivers/net/tun.gcda", run);
	got = read_file(p, &len);
	CHECK(got && len == 0);
	free(got);
	free(p);
	free(text);
	rm_tree(root);
	rm_tree(run);
	free(root);
	free(run);
}

void test_gcov_missing_counters_fail_the_suite_saying_why(void)
{
	char *root = tmpdir(), *missing = xasprintf("%s/gcov", root), *text;

	/* a kernel without CONFIG_GCOV_KERNEL has no folder */
	text = send_text(missing);
	CHECK_CONTAINS(text, "No such file or directory (a kernel without CONFIG_GCOV_KERNEL");
	CHECK_CONTAINS(text, "not ok 1 the kernel keeps counters for the profiled files");
	CHECK_CONTAINS(text, "not ok 1 gcov");
	CHECK_CONTAINS(text, "suite\tgcov\t1\t");
	CHECK(!strstr(text, "\ngcov\t"));
	free(text);
	/* one without GCOV_PROFILE anywhere has a folder with no counters */
	text = send_text(root);
	CHECK_CONTAINS(text, "no .gcda file under");
	CHECK_CONTAINS(text, "not ok 2 every counter file was read and sent: 0 of 0");
	CHECK_CONTAINS(text, "suite\tgcov\t1\t");
	free(text);
	rm_tree(root);
	free(root);
	free(missing);
}

void test_gcov_store_keeps_l1_paths_inside_the_run_folder(void)
{
	static const char *const bad[] = {
		"../x.gcda", "/tmp/x.gcda", "a//b.gcda", "a/./b.gcda", "a/../../b.gcda",
		"a/b.gcno", ".gcda", "a/b c.gcda", "",
	};
	char *run = tmpdir(), *why;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		why = gcov_store(run, 1, bad[i], "Zm9v");
		CHECK_CONTAINS(why, "refusing the path");
		free(why);
	}
	why = gcov_store(run, 1, "a/b.gcda", "Zm9");
	CHECK_CONTAINS(why, "gcov counters of a/b.gcda: not base64 (3 characters)");
	free(why);
	why = gcov_store(run, 2, "a/b.gcda", "Zm9v");
	if (why)
		check_fail(__FILE__, __LINE__, "%s", why);
	free(why);
	rm_tree(run);
	free(run);
}

void test_gcov_counters_that_cannot_be_kept_are_the_runs_error(void)
{
	char *run = tmpdir(), *file = xasprintf("%s/gcov", run);
	char line[] = "gcov\ttmp/obj/drivers/net/tun.gcda\tZm9v";
	struct lab_opts o = { .run_dir = run };
	struct run_result r;
	struct boot b = { .o = &o, .inflight = -1 };
	FILE *quiet = fopen("/dev/null", "w");

	/* a file where the gcov folder should be: nothing can be written */
	CHECK_INT(write_file(file, "", 0), 0);
	run_init(&r, NULL, 0);
	b.r = &r;
	say_to = quiet;
	results_record(&b, line);
	say_to = NULL;
	fclose(quiet);
	CHECK_INT(r.gcov_sets, 1);
	CHECK_CONTAINS(r.infra_error, "cannot write");
	CHECK_CONTAINS(r.infra_error, "/gcov/boot-1/tmp/obj/drivers/net/tun.gcda");
	CHECK_INT(run_exit_code(&r), TL_EXIT_SETUP);
	run_free(&r);
	rm_tree(run);
	free(file);
	free(run);
}
