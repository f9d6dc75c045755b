/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scenario language: one parser shared by the L0 runner (which
 * validates every file before anything boots) and the L1 executor (which
 * runs the steps). host-scenarios/README.md is the reference.
 */
#ifndef TUNLAB_SCENARIO_H
#define TUNLAB_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define SCN_MAX_GROUPS 8

enum scn_action {
	SCN_CREATE,	/* create tun|tap NAME [persist] [owner=U] [group=G] */
	SCN_ATTACH,	/* attach tun|tap NAME */
	SCN_DELETE,	/* delete tun|tap NAME: clear persist on the device */
	SCN_LINK,	/* link NAME: the link exists (ENODEV if not) */
	SCN_IP,		/* ip ARGS...: iproute2 */
	SCN_L2_BOOT,	/* l2 boot VM net=TAP|fd=P:H|tap=NAME [launcher=qemu|libvirt] [vhost=on|off]
			   [ioeventfd=on|off] [ip=A/P] */
	SCN_L2_PING,	/* l2 ping VM ADDR [count=N] [path=vhost|userspace] */
	SCN_L2_STOP,	/* l2 stop VM */
	SCN_CLOSE,	/* close H: a descriptor a named process keeps */
	SCN_QUEUE,	/* queue H attach|detach: TUNSETQUEUE */
	SCN_SET,	/* set H persist=on|off owner=U group=G */
	SCN_SEND,	/* send H to PROC: SCM_RIGHTS over a unix socket */
	SCN_TG_POLICY,	/* tunguard policy RULE [; RULE...]: replace the policy */
	SCN_TG_MODE,	/* tunguard mode enforce|permissive|off */
	SCN_PROBE,	/* probe ioeventfd|irqfd|realmode: a KVM probe in L1 */
	SCN_RUN,	/* run PROGRAM ARGS...: any program in L1, as the step's actor */
};

enum scn_expect_kind {
	SCN_EXPECT_OK,
	SCN_EXPECT_FAIL,	/* any failure */
	SCN_EXPECT_ERRNO,	/* this errno and no other */
};

/* l2 ping: pings without count=, and the fewest a path= is judged on */
#define SCN_PING_DEFAULT_COUNT 3
#define SCN_PATH_MIN_PINGS 10

#define SCN_NAME_MAX 16
/* an SELinux type, or user:role:type[:level] */
#define SCN_CTX_MAX 128

struct scn_actor {
	bool root;
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[SCN_MAX_GROUPS];
	bool net_admin;		/* +net_admin: keeps CAP_NET_ADMIN (non-root) */
	bool userns;		/* +userns: root of a new user namespace */
	bool netns;		/* +netns: in a new network namespace */
	char proc[SCN_NAME_MAX];/* named process keeping descriptors, or "" */
	char ctx[SCN_CTX_MAX];	/* ctx=: the SELinux context it execs into, or "" */
};

/* One tunguard decision record a step must produce. */
#define SCN_MAX_DFIELDS 8

struct scn_decision {
	char *op;		/* create, open, attach, attach_queue */
	char *verdict;		/* allow, deny */
	int nfields;		/* further fields that must match: rule=, uid=, ... */
	char *keys[SCN_MAX_DFIELDS];
	char *vals[SCN_MAX_DFIELDS];
};

/* One SELinux AVC record a step must produce. */
#define SCN_MAX_AVC_PERMS 8

struct scn_avc {
	char *verdict;		/* denied, granted */
	int nperms;		/* the permissions between { and } */
	char *perms[SCN_MAX_AVC_PERMS];
	int nfields;		/* tclass=, scontext=, tcontext=, permissive=, comm= */
	char *keys[SCN_MAX_DFIELDS];
	char *vals[SCN_MAX_DFIELDS];
};

struct scn_step {
	int line;
	char *text;		/* the step as written, for reports */
	struct scn_actor actor;
	enum scn_action action;
	int argc;		/* words after the action keyword(s) */
	char **argv;
	enum scn_expect_kind expect;
	int expect_errno;
	bool check_decisions;	/* a decision clause was given */
	int ndecisions;		/* 0 with check_decisions: "decision none" */
	struct scn_decision *decisions;
	bool check_avcs;	/* an avc clause was given */
	int navcs;		/* 0 with check_avcs: "avc none" */
	struct scn_avc *avcs;
	int nnot_ok;		/* run: the TAP tests that must fail, and only they */
	char **not_ok;
};

/* Optional features a scenario needs; missing ones make it a SKIP. */
enum scn_feature {
	SCN_REQ_KVM = 1 << 0,
	SCN_REQ_VHOST = 1 << 1,
	SCN_REQ_TUN = 1 << 2,
	SCN_REQ_SVM = 1 << 3,
	SCN_REQ_VMX = 1 << 4,
	SCN_REQ_TUNGUARD = 1 << 5,
	SCN_REQ_SELINUX = 1 << 6,	/* SELinux with the lab's policy loaded */
	/* L1's kernel is that version (uname -r): for what TUN or the
	 * selftests do differently from one lab kernel to the other */
	SCN_REQ_LINUX_6_1 = 1 << 7,
	SCN_REQ_LINUX_6_12 = 1 << 8,
};
#define SCN_REQ_LAST SCN_REQ_LINUX_6_12

struct scenario {
	char *file;		/* path as given to the parser */
	int line;		/* line of the `scenario` directive */
	int index;		/* position within its file, from 0 */
	char *title;
	int ntags;
	char **tags;
	unsigned int requires;
	int timeout_s;		/* 0: the runner's default */
	char *policy;		/* tunguard policy text (policy lines), or NULL */
	char *mode;		/* tunguard mode for the scenario, or NULL */
	char *selinux_mode;	/* enforcing, permissive, or NULL: as L1 booted */
	char *lsm_order;	/* "tunguard,selinux": runs only in that order */
	bool init_netns;	/* netns init: run in L1's own network namespace */
	bool continues;		/* runs in the context the previous scenario left */
	int nsteps;
	struct scn_step *steps;
	int nprocs;		/* named processes, in order of first use */
	struct scn_actor *procs;
	int nhandles;		/* descriptor handles kept by some step */
	char **handles;
};

struct scn_file {
	char *path;
	int nscenarios;
	struct scenario *scenarios;
};

/* One diagnostic: file:line:col: message. */
struct scn_diag {
	char *file;
	int line;
	int col;
	char *msg;
};

struct scn_diags {
	int n;
	struct scn_diag *v;
};

/*
 * Parse @text (a whole file called @path). Returns 0 when the file is
 * valid; otherwise -1 with every problem found appended to @diags. @out
 * is filled in either case and must be released with scn_file_free().
 */
int scn_parse(const char *path, const char *text, struct scn_file *out,
	      struct scn_diags *diags);
/* Read and parse @path; an unreadable file is one diagnostic. */
int scn_parse_file(const char *path, struct scn_file *out,
		   struct scn_diags *diags);
void scn_file_free(struct scn_file *f);

void scn_diags_print(const struct scn_diags *d, FILE *out);
void scn_diags_free(struct scn_diags *d);

const char *scn_action_name(enum scn_action a);
const char *scn_feature_name(unsigned int bit);
bool scn_has_tag(const struct scenario *s, const char *tag);

/* Value of "key=value" among @argv, or NULL. */
const char *scn_arg(const struct scn_step *st, const char *key);
/* l2 ping: its count=, or SCN_PING_DEFAULT_COUNT */
int scn_ping_count(const struct scn_step *st);
bool scn_flag(const struct scn_step *st, const char *word);

#endif
