// SPDX-License-Identifier: GPL-2.0
/* common/: spawning programs, splitting lines, capabilities, base64. */
#include "check.h"
#include "common/base64.h"
#include "common/caps.h"
#include "common/ktap.h"
#include "common/spawn.h"
#include "common/util.h"

#include <linux/capability.h>
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

static unsigned long long cap_field(const char *name)
{
	char *status = read_file("/proc/self/status", NULL), *p;
	unsigned long long v = ~0ULL;

	p = status ? strstr(status, name) : NULL;
	if (p)
		v = strtoull(p + strlen(name), NULL, 16);
	free(status);
	return v;
}

void test_caps_keep_only_what_is_asked(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		/* in a child: the test process keeps its own capabilities */
		unsigned long long prm = cap_field("CapPrm:"), keep = CAP_BIT(CAP_NET_ADMIN);

		if (caps_keep_only(keep, true) < 0)
			_exit(2);
		_exit(cap_field("CapPrm:") == (prm & keep) && cap_field("CapEff:") == (prm & keep) &&
		      cap_field("CapInh:") == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
}

void test_ktap_syntax_line_tells_kunit_from_other_kernel_messages(void)
{
	/* what KUnit prints at the top level and nested */
	CHECK(ktap_syntax_line("KTAP version 1"));
	CHECK(ktap_syntax_line("1..3"));
	CHECK(ktap_syntax_line("ok 1 tunguard_policy"));
	CHECK(ktap_syntax_line("not ok 2 tunguard_policy # SKIP no"));
	CHECK(ktap_syntax_line("# Totals: pass:53 fail:0 skip:0 total:53"));
	CHECK(ktap_syntax_line("    # Subtest: tunguard_policy"));
	CHECK(ktap_syntax_line("    Expected ret == 0, but"));
	/* what the kernel logs in between, whenever it happens to */
	CHECK(!ktap_syntax_line("tsc: Refined TSC clocksource calibration: 2445.417 MHz"));
	CHECK(!ktap_syntax_line("clocksource: Switched to clocksource tsc"));
	CHECK(!ktap_syntax_line("1..x"));
	CHECK(!ktap_syntax_line("okay"));
	CHECK(!ktap_syntax_line(""));
}

void test_base64_matches_rfc4648_vectors(void)
{
	static const char *const vec[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(vec); i++) {
		struct sbuf enc = { 0 }, dec = { 0 };

		base64_encode(&enc, vec[i][0], strlen(vec[i][0]));
		CHECK_STR(enc.buf, vec[i][1]);
		CHECK_INT(base64_decode(&dec, vec[i][1]), 0);
		CHECK_STR(dec.buf, vec[i][0]);
		sbuf_free(&enc);
		sbuf_free(&dec);
	}
}

void test_base64_round_trips_every_byte_at_every_length(void)
{
	unsigned char data[300];

	/* every byte value, NUL and newline among them, at lengths of each remainder */
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);
	for (size_t len = 0; len <= sizeof(data); len++) {
		struct sbuf enc = { 0 }, dec = { 0 };

		base64_encode(&enc, data, len);
		CHECK_INT(enc.len, (len + 2) / 3 * 4);
		CHECK(!strpbrk(enc.buf, "\t\n\\"));
		CHECK_INT(base64_decode(&dec, enc.buf), 0);
		CHECK_INT(dec.len, len);
		CHECK(len == 0 || !memcmp(dec.buf, data, len));
		sbuf_free(&enc);
		sbuf_free(&dec);
	}
}

void test_base64_refuses_what_is_not_base64(void)
{
	/* a cut record, a stray byte, padding inside, bits past the last byte */
	static const char *const bad[] = {
		"Zm9", "Zm9v!A==", "Zg==Zm9v", "Zm=v", "Z===", "Zh==", "Zm9=", "Zm9v\n",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct sbuf dec = { 0 };

		if (base64_decode(&dec, bad[i]) == 0)
			check_fail(__FILE__, __LINE__, "\"%s\" decoded to %zu bytes", bad[i], dec.len);
		sbuf_free(&dec);
	}
}
