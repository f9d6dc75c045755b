// SPDX-License-Identifier: GPL-2.0
/* SELinux in the scenario language, and AVC records against expectations. */
#include "check.h"
#include "common/scenario.h"
#include "executor/avc.h"
#include "common/util.h"

#include <errno.h>

static int parse(const char *text, struct scn_file *f, struct scn_diags *d)
{
	memset(d, 0, sizeof(*d));
	return scn_parse("t.scn", text, f, d);
}

void test_parse_contexts_modes_and_avc_clauses(void)
{
	struct scn_diags d;
	struct scn_file f;
	const struct scenario *sc;
	const struct scn_step *st;

	CHECK_INT(parse("scenario s\nselinux permissive\nlsm selinux,tunguard\n"
			"as p=root ctx=tunlab_tuntap_t create tap t0 multi_queue keep=q => ok"
			"  avc granted { create } tclass=tun_socket scontext=tunlab_tuntap_t\n"
			"as p queue q attach => EACCES avc denied { attach_queue } permissive=0,"
			" granted { relabelfrom relabelto } decision attach_queue allow\n"
			"as 1000+net_admin ctx=system_u:system_r:tunlab_vmm_t create tap t1"
			" => EPERM decision none avc none\n"
			"link lo => ok\n", &f, &d), 0);
	CHECK_INT(d.n, 0);
	sc = &f.scenarios[0];
	CHECK_STR(sc->selinux_mode, "permissive");
	CHECK_STR(sc->lsm_order, "selinux,tunguard");
	CHECK_INT(sc->requires, SCN_REQ_SELINUX | SCN_REQ_TUNGUARD);
	/* the named process keeps the context it was started in */
	CHECK_STR(sc->procs[0].ctx, "tunlab_tuntap_t");
	CHECK_STR(sc->steps[1].actor.ctx, "tunlab_tuntap_t");

	st = &sc->steps[0];
	CHECK(st->check_avcs);
	CHECK(!st->check_decisions);
	CHECK_INT(st->navcs, 1);
	CHECK_STR(st->avcs[0].verdict, "granted");
	CHECK_INT(st->avcs[0].nperms, 1);
	CHECK_STR(st->avcs[0].perms[0], "create");
	CHECK_INT(st->avcs[0].nfields, 2);
	CHECK_STR(st->avcs[0].keys[1], "scontext");
	CHECK_STR(st->avcs[0].vals[1], "tunlab_tuntap_t");

	st = &sc->steps[1];
	CHECK_INT(st->expect_errno, EACCES);
	CHECK_INT(st->navcs, 2);
	CHECK_STR(st->avcs[0].vals[0], "0");
	CHECK_INT(st->avcs[1].nperms, 2);
	CHECK_STR(st->avcs[1].perms[1], "relabelto");
	CHECK(st->check_decisions);
	CHECK_INT(st->ndecisions, 1);

	st = &sc->steps[2];
	CHECK_STR(st->actor.ctx, "system_u:system_r:tunlab_vmm_t");
	CHECK(st->actor.net_admin);
	CHECK(st->check_avcs);
	CHECK_INT(st->navcs, 0);
	CHECK(st->check_decisions);
	CHECK(!sc->steps[3].check_avcs);
	CHECK(!sc->steps[3].actor.ctx[0]);
	scn_file_free(&f);
	scn_diags_free(&d);
}

void test_a_context_alone_requires_selinux(void)
{
	struct scn_diags d;
	struct scn_file f;

	CHECK_INT(parse("scenario s\nas 1000 ctx=tunlab_user_t link lo => ok\n"
			"scenario t\nlink lo => ok\n", &f, &d), 0);
	CHECK_INT(f.scenarios[0].requires, SCN_REQ_SELINUX);
	CHECK_INT(f.scenarios[1].requires, 0);
	CHECK_STR(scn_feature_name(SCN_REQ_SELINUX), "selinux");
	scn_file_free(&f);
	scn_diags_free(&d);
}

static struct scn_avc avc(const char *verdict, const char *perm, const char *key,
			  const char *val)
{
	struct scn_avc a = { .verdict = (char *)verdict, .nperms = 1 };

	a.perms[0] = (char *)perm;
	if (key) {
		a.keys[0] = (char *)key;
		a.vals[0] = (char *)val;
		a.nfields = 1;
	}
	return a;
}

#define DENIED_QUEUE "avc: denied { attach_queue } for pid=7 comm=\"tunlab-exec\"" \
	" scontext=system_u:system_r:tunlab_noqueue_t" \
	" tcontext=system_u:system_r:tunlab_tuntap_t tclass=tun_socket permissive=0"

void test_avc_records_match_verdict_permissions_and_fields(void)
{
	struct scn_avc a = avc("denied", "attach_queue", NULL, NULL);

	CHECK(avc_matches(&a, DENIED_QUEUE));
	a = avc("granted", "attach_queue", NULL, NULL);
	CHECK(!avc_matches(&a, DENIED_QUEUE));
	a = avc("denied", "create", NULL, NULL);
	CHECK(!avc_matches(&a, DENIED_QUEUE));
	/* a bare type matches the type of a context, and nothing else */
	a = avc("denied", "attach_queue", "tcontext", "tunlab_tuntap_t");
	CHECK(avc_matches(&a, DENIED_QUEUE));
	a = avc("denied", "attach_queue", "tcontext", "tunlab_tuntap");
	CHECK(!avc_matches(&a, DENIED_QUEUE));
	a = avc("denied", "attach_queue", "scontext", "system_u:system_r:tunlab_noqueue_t");
	CHECK(avc_matches(&a, DENIED_QUEUE));
	a = avc("denied", "attach_queue", "scontext", "system_u:object_r:tunlab_noqueue_t");
	CHECK(!avc_matches(&a, DENIED_QUEUE));
	a = avc("denied", "attach_queue", "comm", "tunlab-exec");
	CHECK(avc_matches(&a, DENIED_QUEUE));
	a = avc("denied", "attach_queue", "permissive", "1");
	CHECK(!avc_matches(&a, DENIED_QUEUE));
	/* a field the record lacks does not match */
	a = avc("denied", "attach_queue", "tclass", "capability");
	CHECK(!avc_matches(&a, DENIED_QUEUE));
	CHECK(!avc_matches(&a, "type=1300 audit(1.2:3): arch=c000003e syscall=16"));
}

void test_avc_permissions_are_a_set(void)
{
	struct scn_avc a = avc("granted", "relabelto", NULL, NULL);
	const char *both = "avc: granted { relabelfrom relabelto } for pid=1 tclass=tun_socket";

	CHECK(!avc_matches(&a, both));
	a.perms[a.nperms++] = (char *)"relabelfrom";
	CHECK(avc_matches(&a, both));
	a.perms[a.nperms++] = (char *)"create";
	CHECK(!avc_matches(&a, both));
}

void test_lsm_order(void)
{
	CHECK(lsm_order_holds("tunguard,selinux", "capability,tunguard,selinux\n"));
	CHECK(!lsm_order_holds("selinux,tunguard", "capability,tunguard,selinux\n"));
	CHECK(lsm_order_holds("selinux,tunguard", "capability,selinux,yama,tunguard"));
	CHECK(!lsm_order_holds("tunguard,selinux", "capability,tunguard,yama"));
	/* whole names only */
	CHECK(!lsm_order_holds("tunguard,selinux", "capability,tunguard,selinuxx"));
}
