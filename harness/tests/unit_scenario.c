// SPDX-License-Identifier: GPL-2.0
/* The scenario parser: what valid files mean, and where each bad one breaks. */
#include "check.h"
#include "common/errnames.h"
#include "common/scenario.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int parse(const char *text, struct scn_file *f, struct scn_diags *d)
{
	memset(d, 0, sizeof(*d));
	return scn_parse("t.scn", text, f, d);
}

void test_parse_full_scenario(void)
{
	struct scn_diags d;
	struct scn_file f;
	const struct scn_step *st;

	CHECK_INT(parse("# comment\n"
			"scenario  a persistent tap   # trailing comment\n"
			"tags      persist dac\n"
			"requires  kvm vhost\n"
			"timeout   90\n"
			"\n"
			"as root   create tap lab0 persist owner=1000 => ok\n"
			"as 1001:100,27 attach tap lab0 => EPERM\n"
			"l2 boot vm1 net=lab0 vhost=off ip=169.254.3.2/16 => ok\n"
			"  l2 ping vm1 169.254.3.1 count=2   => fail\n",
			&f, &d), 0);
	CHECK_INT(d.n, 0);
	CHECK_INT(f.nscenarios, 1);
	CHECK_STR(f.scenarios[0].title, "a persistent tap");
	CHECK_INT(f.scenarios[0].line, 2);
	CHECK_INT(f.scenarios[0].ntags, 2);
	CHECK(scn_has_tag(&f.scenarios[0], "dac"));
	CHECK_INT(f.scenarios[0].requires, SCN_REQ_KVM | SCN_REQ_VHOST);
	CHECK_INT(f.scenarios[0].timeout_s, 90);
	CHECK_INT(f.scenarios[0].nsteps, 4);

	st = &f.scenarios[0].steps[0];
	CHECK_INT(st->line, 7);
	CHECK(st->actor.root);
	CHECK_INT(st->action, SCN_CREATE);
	CHECK_INT(st->argc, 4);
	CHECK(scn_flag(st, "persist"));
	CHECK_STR(scn_arg(st, "owner"), "1000");
	CHECK_INT(st->expect, SCN_EXPECT_OK);
	CHECK_STR(st->text, "as root   create tap lab0 persist owner=1000 => ok");

	st = &f.scenarios[0].steps[1];
	CHECK(!st->actor.root);
	CHECK_INT(st->actor.uid, 1001);
	CHECK_INT(st->actor.gid, 100);
	CHECK_INT(st->actor.ngroups, 1);
	CHECK_INT(st->actor.groups[0], 27);
	CHECK_INT(st->expect, SCN_EXPECT_ERRNO);
	CHECK_INT(st->expect_errno, EPERM);

	st = &f.scenarios[0].steps[2];
	CHECK_INT(st->action, SCN_L2_BOOT);
	CHECK_STR(st->argv[0], "vm1");
	CHECK_STR(scn_arg(st, "vhost"), "off");
	CHECK_INT(f.scenarios[0].steps[3].expect, SCN_EXPECT_FAIL);
	scn_file_free(&f);
	scn_diags_free(&d);
}

void test_parse_uid_actor_defaults_gid_to_uid(void)
{
	struct scn_diags d;
	struct scn_file f;

	CHECK_INT(parse("scenario s\nas 1000 link lo => ok\n", &f, &d), 0);
	CHECK_INT(f.scenarios[0].steps[0].actor.uid, 1000);
	CHECK_INT(f.scenarios[0].steps[0].actor.gid, 1000);
	CHECK_INT(f.scenarios[0].steps[0].actor.ngroups, 0);
	scn_file_free(&f);
	scn_diags_free(&d);
}

void test_parse_several_scenarios_per_file(void)
{
	struct scn_diags d;
	struct scn_file f;

	CHECK_INT(parse("scenario one\nlink lo => ok\n\nscenario two\ntags x\nlink lo => ENODEV\n",
			&f, &d), 0);
	CHECK_INT(f.nscenarios, 2);
	CHECK_INT(f.scenarios[1].index, 1);
	CHECK_INT(f.scenarios[1].line, 4);
	CHECK_INT(f.scenarios[1].steps[0].expect_errno, ENODEV);
	CHECK(!scn_has_tag(&f.scenarios[0], "x"));
	scn_file_free(&f);
	scn_diags_free(&d);
}

void test_parse_reports_every_error_not_just_the_first(void)
{
	struct scn_diags d;
	struct scn_file f;

	CHECK_INT(parse("scenario s\nfoo => ok\nlink lo => EWHAT\ncreate tap => ok\n", &f, &d), -1);
	CHECK_INT(d.n, 3);
	CHECK_INT(d.v[0].line, 2);
	CHECK_INT(d.v[1].line, 3);
	CHECK_INT(d.v[2].line, 4);
	scn_file_free(&f);
	scn_diags_free(&d);
}

void test_parse_crlf_and_tabs(void)
{
	struct scn_diags d;
	struct scn_file f;

	CHECK_INT(parse("scenario\tcrlf\r\n\tlink\tlo\t=>\tok\r\n", &f, &d), 0);
	CHECK_STR(f.scenarios[0].title, "crlf");
	CHECK_INT(f.scenarios[0].steps[0].expect, SCN_EXPECT_OK);
	scn_file_free(&f);
	scn_diags_free(&d);
}

void test_parse_unreadable_file(void)
{
	struct scn_diags d = { 0 };
	struct scn_file f;

	CHECK_INT(scn_parse_file("/nonexistent/x.scn", &f, &d), -1);
	CHECK_INT(d.n, 1);
	CHECK_CONTAINS(d.v[0].msg, "cannot read");
	scn_file_free(&f);
	scn_diags_free(&d);
}

void test_parse_policy_mode_and_decisions(void)
{
	struct scn_diags d;
	struct scn_file f;
	const struct scn_step *st;

	CHECK_INT(parse("scenario s\nrequires tunguard\nmode permissive\n"
			"policy default deny\npolicy allow create uid=0 type=tap name=lab*\n"
			"as 1000 attach tap lab0 => ok decision open allow, attach_queue allow rule=2 uid=1000\n"
			"as 1001 attach tap lab0 => EPERM decision none\n"
			"link lo => ok\n", &f, &d), 0);
	CHECK_INT(d.n, 0);
	CHECK_STR(f.scenarios[0].policy, "default deny\nallow create uid=0 type=tap name=lab*\n");
	CHECK_STR(f.scenarios[0].mode, "permissive");
	CHECK_INT(f.scenarios[0].requires, SCN_REQ_TUNGUARD);
	scn_file_free(&f);
	scn_diags_free(&d);
	/* the kernel version, for what differs from one lab kernel to the other */
	CHECK_INT(parse("scenario s\nrequires tun linux-6.12\nlink lo => ok\n", &f, &d), 0);
	CHECK_INT(d.n, 0);
	CHECK_INT(f.scenarios[0].requires, SCN_REQ_TUN | SCN_REQ_LINUX_6_12);
	CHECK_STR(scn_feature_name(SCN_REQ_LINUX_6_1), "linux-6.1");
	scn_file_free(&f);
	scn_diags_free(&d);
	CHECK_INT(parse("scenario s\nrequires tunguard\nmode permissive\n"
			"policy default deny\npolicy allow create uid=0 type=tap name=lab*\n"
			"as 1000 attach tap lab0 => ok decision open allow, attach_queue allow rule=2 uid=1000\n"
			"as 1001 attach tap lab0 => EPERM decision none\n"
			"link lo => ok\n", &f, &d), 0);
	st = &f.scenarios[0].steps[0];
	CHECK(st->check_decisions);
	CHECK_INT(st->ndecisions, 2);
	CHECK_STR(st->decisions[0].op, "open");
	CHECK_STR(st->decisions[1].verdict, "allow");
	CHECK_INT(st->decisions[1].nfields, 2);
	CHECK_STR(st->decisions[1].keys[1], "uid");
	CHECK_STR(st->decisions[1].vals[1], "1000");
	CHECK(f.scenarios[0].steps[1].check_decisions);
	CHECK_INT(f.scenarios[0].steps[1].ndecisions, 0);
	CHECK(!f.scenarios[0].steps[2].check_decisions);
	scn_file_free(&f);
	scn_diags_free(&d);
}

void test_errno_names_round_trip(void)
{
	CHECK_INT(errno_from_name("EPERM"), EPERM);
	CHECK_INT(errno_from_name("EBUSY"), EBUSY);
	CHECK_INT(errno_from_name("eperm"), -1);
	CHECK_STR(errno_name(EINVAL), "EINVAL");
	CHECK(!errno_name(0));
	CHECK(!errno_name(4000));
	/* a tool's message names its errno; the longer of two matches wins */
	CHECK_INT(errno_from_message("ioctl(TUNSETIFF): Device or resource busy"), EBUSY);
	CHECK_INT(errno_from_message("open /dev/x: No such device or address"), ENXIO);
	CHECK_INT(errno_from_message("open /dev/x: No such device"), ENODEV);
	CHECK_INT(errno_from_message("all is well"), -1);
}

/* Any errno the C library can name, not only a list of common ones. */
void test_every_errno_can_be_expected(void)
{
	struct scn_diags d;
	struct scn_file f;

	CHECK_INT(parse("scenario s\nlink lo => ENOTCONN\nlink lo => EHWPOISON\n"
			"link lo => ENOTSUP\n", &f, &d), 0);
	CHECK_INT(d.n, 0);
	CHECK_INT(f.scenarios[0].nsteps, 3);
	if (f.scenarios[0].nsteps == 3) {
		CHECK_INT(f.scenarios[0].steps[0].expect_errno, ENOTCONN);
		CHECK_INT(f.scenarios[0].steps[1].expect_errno, EHWPOISON);
		CHECK_INT(f.scenarios[0].steps[2].expect_errno, ENOTSUP);
	}
	scn_file_free(&f);
	scn_diags_free(&d);
	for (int e = 1; e < 4096; e++) {
		const char *name = strerrorname_np(e);

		if (name && errno_from_name(name) != e)
			check_fail(__FILE__, __LINE__, "%s does not name errno %d", name, e);
	}
}

/*
 * Each file in data/bad/ starts with "# expect LINE:COL: text": the first
 * diagnostic must be at that position and contain that text.
 */
void test_malformed_corpus(void)
{
	char *dir = xasprintf("%s/bad", check_data_dir);
	DIR *dp = opendir(dir);
	struct dirent *e;
	int files = 0;

	CHECK(dp != NULL);
	while (dp && (e = readdir(dp))) {
		struct scn_diags d = { 0 };
		struct scn_file f;
		char *path, *text, want[256];
		int line, col, off;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		text = read_file(path, NULL);
		if (!text || sscanf(text, "# expect %d:%d: %n", &line, &col, &off) != 2) {
			check_fail(__FILE__, __LINE__, "%s: no '# expect LINE:COL: text' header", path);
			free(path);
			free(text);
			continue;
		}
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(text + off, "\n"), text + off);
		files++;
		if (scn_parse_file(path, &f, &d) == 0 || d.n == 0) {
			check_fail(__FILE__, __LINE__, "%s: parsed without error", path);
		} else if (d.v[0].line != line || d.v[0].col != col || !strstr(d.v[0].msg, want)) {
			check_fail(__FILE__, __LINE__, "%s: got %d:%d: %s; expected %d:%d: ...%s...",
				   path, d.v[0].line, d.v[0].col, d.v[0].msg, line, col, want);
		}
		scn_file_free(&f);
		scn_diags_free(&d);
		free(path);
		free(text);
	}
	if (dp)
		closedir(dp);
	CHECK(files >= 30);
	free(dir);
}
