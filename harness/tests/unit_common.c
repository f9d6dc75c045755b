// SPDX-License-Identifier: GPL-2.0
/* common/: spawning programs, splitting lines. */
#include "check.h"
#include "common/spawn.h"
#include "common/util.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void test_spawn_captures_stdout_stderr_and_status(void)
{
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct spawn sp = { .argv = argv, .out = SPAWN_PIPE, .err = SPAWN_PIPE };
	struct sbuf out = { 0 };
	int status = spawn_capture(&sp, &out);

	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 3);
	CHECK_STR(out.buf, "out\nerr\n");
	sbuf_free(&out);
}

void test_spawn_of_a_missing_program_exits_127_saying_why(void)
{
	char *argv[] = { "tunlab-no-such-program", NULL };
	struct spawn sp = { .argv = argv, .out = SPAWN_PIPE, .err = SPAWN_PIPE };
	struct sbuf out = { 0 };
	int status = spawn_capture(&sp, &out);

	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 127);
	CHECK_CONTAINS(out.buf, "exec tunlab-no-such-program: No such file or directory");
	sbuf_free(&out);
}

void test_spawn_stderr_to_a_file_in_a_group_of_its_own(void)
{
	/* field 5 of /proc/PID/stat is the process group */
	char *argv[] = { "sh", "-c", "read -r p c s pp g r < /proc/$$/stat; "
			 "echo \"$p $g\"; echo to-file >&2", NULL };
	char path[] = "/tmp/tunlab-unit-XXXXXX";
	int fd = mkstemp(path);
	struct spawn sp = { .argv = argv, .out = SPAWN_PIPE, .err = SPAWN_FILE,
			    .err_file = path, .err_truncate = true, .new_pgrp = true };
	struct sbuf out = { 0 };
	char *text, pid[16], pgrp[16];

	close(fd);
	CHECK_INT(spawn_capture(&sp, &out), 0);
	CHECK(sscanf(out.buf, "%15s %15s", pid, pgrp) == 2);
	CHECK_STR(pgrp, pid);
	text = read_file(path, NULL);
	CHECK_STR(text, "to-file\n");
	free(text);
	unlink(path);
	sbuf_free(&out);
}

static void collect(void *ctx, char *line)
{
	sbuf_printf(ctx, "[%s]", line);
}

void test_lines_are_split_across_reads_without_cr(void)
{
	struct sbuf buf = { 0 }, seen = { 0 };

	sbuf_feed_lines(&buf, "one\r\ntw", 7, collect, &seen);
	CHECK_STR(seen.buf, "[one]");
	sbuf_feed_lines(&buf, "o\n\nthr", 6, collect, &seen);
	CHECK_STR(seen.buf, "[one][two][]");
	CHECK_STR(buf.buf, "thr");
	sbuf_free(&buf);
	sbuf_free(&seen);
}
