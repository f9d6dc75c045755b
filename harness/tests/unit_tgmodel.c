// SPDX-License-Identifier: GPL-2.0
/*
 * The tunguard policy model tgstress holds the kernel to: what it takes,
 * what it refuses and where, the canonical text and the deciding rule.
 */
#include "check.h"
#include "l1-programs/tgstress/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static struct tgm_verdict parse(const char *text, struct tgm_policy *p)
{
	return tgm_parse(text, strlen(text), p);
}

void test_tgmodel_canonical_form_orders_ops_and_fields(void)
{
	struct tgm_policy p;
	char *text;

	CHECK_INT(parse("# a comment\n"
			"allow attach_queue,create\tcreator=no gid=5-6 uid=7 name=vm*\r\n"
			"\n"
			"  default   deny\n"
			"\t#also a comment, after blanks\n"
			"deny open,attach_queue,create netns=other mq=yes type=tun "
			"userns=child cap=!net_admin\n", &p).err, 0);
	text = tgm_canonical(&p);
	CHECK_STR(text, "allow create,attach_queue uid=7 gid=5-6 name=vm* creator=no\n"
			"deny any cap=!net_admin userns=child type=tun mq=yes netns=other\n"
			"default deny\n");
	free(text);
	tgm_free(&p);
}

void test_tgmodel_refuses_with_line_and_reason(void)
{
	static const struct {
		const char *text;
		unsigned int line;
		const char *reason;
	} cases[] = {
		{ "allow any uid=01\ndefault allow\n", 1, "bad id" },
		{ "default allow\nallow any uid=4294967295\n", 2, "bad id" },
		{ "allow any gid=2-1\ndefault allow\n", 1, "reversed range" },
		{ "allow any,create\ndefault allow\n", 1, "unknown operation" },
		{ "allow create,,open\ndefault allow\n", 1, "empty operation in list" },
		{ "allow open,open\ndefault allow\n", 1, "operation listed twice" },
		{ "allow any uid=1 uid=1\ndefault allow\n", 1, "field given twice" },
		{ "allow any name=a:b\ndefault allow\n", 1, "character not allowed in a device name" },
		{ "allow any name=0123456789abcdef\ndefault allow\n", 1, "name too long" },
		{ "allow any type=none\ndefault allow\n", 1, "bad value" },
		{ "allow any uid\ndefault allow\n", 1, "expected field=value" },
		{ "permit any\ndefault allow\n", 1, "unknown verb" },
		{ "default allow\n\ndefault deny\n", 3, "second default line" },
		{ "default allow please\n", 1, "trailing text after default" },
		{ "allow any\n", 0, "no default line" },
		{ "allow any name=vm*  # why\ndefault allow\n", 1, "a comment must start its line" },
		{ "default allow # why\n", 1, "a comment must start its line" },
		{ "deny any\nallow open,attach\ndefault allow\n", 2,
		  "no operation attach: use open or attach_queue" },
		{ "allow any name=[^v]*\ndefault allow\n", 1,
		  "[^...] is not a negated class: write [!...]" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tgm_policy p;
		struct tgm_verdict v = parse(cases[i].text, &p);

		CHECK_INT(v.err, EINVAL);
		CHECK_INT(v.line, cases[i].line);
		CHECK_STR(v.reason, cases[i].reason);
		CHECK_INT(p.nrules, 0);
	}
}

static struct tgm_verdict parse_rules(size_t n)
{
	struct tgm_policy p;
	struct tgm_verdict v;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	for (size_t i = 0; i < n; i++)
		fprintf(f, "deny open name=r%zu\n", i);
	fputs("default allow\n", f);
	fclose(f);
	v = tgm_parse(text, size, &p);
	tgm_free(&p);
	free(text);
	return v;
}

void test_tgmodel_limits_and_one_past_them(void)
{
	struct tgm_policy p;
	char big[64 * 1024 + 2];
	struct tgm_verdict v;

	CHECK_INT(parse_rules(2048).err, 0);
	v = parse_rules(2049);
	CHECK_INT(v.err, EINVAL);
	CHECK_INT(v.line, 2049);
	CHECK_STR(v.reason, "too many rules");

	memset(big, '#', sizeof(big));
	memcpy(big, "default allow\n", 14);
	CHECK_INT(tgm_parse(big, 64 * 1024, &p).err, 0);
	tgm_free(&p);
	CHECK_INT(tgm_parse(big, 64 * 1024 + 1, &p).err, EFBIG);
	CHECK_INT(tgm_parse(big, 0, &p).err, EINVAL);
	v = tgm_parse("default allow\n\0", 15, &p);
	CHECK_INT(v.err, EINVAL);
	CHECK_STR(v.reason, "NUL byte in policy");

	CHECK_INT(parse("allow any uid=4294967294\ndefault deny\n", &p).err, 0);
	tgm_free(&p);
	CHECK_INT(parse("allow any name=0123456789abcde\ndefault deny\n", &p).err, 0);
	tgm_free(&p);
	CHECK_INT(parse("allow any name=*123456789012345678901234567890123456789012345678901234567890123\n"
			"default deny\n", &p).err, 0);
	tgm_free(&p);
	CHECK_INT(parse("allow any name=*1234567890123456789012345678901234567890123456789012345678901234\n"
			"default deny\n", &p).err, EINVAL);
}

void test_tgmodel_first_matching_rule_decides(void)
{
	static const uint32_t groups[] = { 2000 };
	struct tgm_subject user = { 1000, 1000, groups, 1, false, true };
	struct tgm_subject root = { 0, 0, NULL, 0, true, true };
	struct tgm_object vm1 = { "vm1", TGM_TYPE_TAP, false, true, false };
	struct tgm_object tun0 = { "tun0", TGM_TYPE_TUN, true, true, true };
	struct tgm_policy p;

	CHECK_INT(parse("allow create uid=0 type=tap name=vm*\n"
			"deny create\n"
			"allow open gid=2000 name=vm[0-9]\n"
			"deny any name=vm*\n"
			"allow attach_queue mq=yes creator=yes cap=net_admin\n"
			"default deny\n", &p).err, 0);
	CHECK_INT(tgm_match(&p, TGM_CREATE, &root, &vm1), 1);
	CHECK_INT(tgm_match(&p, TGM_CREATE, &root, &tun0), 2);
	/* a supplementary group counts like the effective gid */
	CHECK_INT(tgm_match(&p, TGM_OPEN, &user, &vm1), 3);
	CHECK(tgm_allows(&p, 3));
	CHECK_INT(tgm_match(&p, TGM_ATTACH_QUEUE, &user, &vm1), 4);
	CHECK(!tgm_allows(&p, 4));
	CHECK_INT(tgm_match(&p, TGM_ATTACH_QUEUE, &root, &tun0), 5);
	CHECK_INT(tgm_match(&p, TGM_OPEN, &root, &tun0), 0);
	CHECK(!tgm_allows(&p, 0));
	tgm_free(&p);

	/* '#' inside a word is part of it, as in an interface name */
	CHECK_INT(parse("deny open name=vm#1\ndefault allow\n", &p).err, 0);
	vm1.name = "vm#1";
	CHECK_INT(tgm_match(&p, TGM_OPEN, &user, &vm1), 1);
	vm1.name = "vm";
	CHECK_INT(tgm_match(&p, TGM_OPEN, &user, &vm1), 0);
	tgm_free(&p);
}
