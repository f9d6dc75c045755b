/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A model of the tunguard policy, written from its documentation
 * (Documentation/admin-guide/LSM/tunguard.rst) and sharing no code with
 * the kernel: what it accepts, the canonical text it reads back as, and
 * the rule that decides a request. tgstress holds the kernel to it.
 */
#ifndef TGSTRESS_MODEL_H
#define TGSTRESS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tgm_op { TGM_CREATE, TGM_OPEN, TGM_ATTACH_QUEUE, TGM_NOPS };
enum tgm_type { TGM_TYPE_NONE, TGM_TYPE_TUN, TGM_TYPE_TAP };

#define TGM_MAX_RULES	2048
#define TGM_MAX_TEXT	(64 * 1024)
#define TGM_NAME_MAX	15	/* a literal name: IFNAMSIZ - 1 */
#define TGM_GLOB_MAX	64
#define TGM_ID_MAX	4294967294u	/* (uid_t)-1 is no id at all */

struct tgm_rule {
	bool allow;
	unsigned int ops;	/* 1 << enum tgm_op */
	unsigned int fields;	/* 1 << enum tgm_field (model.c) */
	uint32_t uid_lo, uid_hi, gid_lo, gid_hi;
	bool cap, init_userns, mq, init_netns, creator;
	enum tgm_type type;
	bool glob;
	char name[TGM_GLOB_MAX + 1];
};

struct tgm_policy {
	bool default_allow;
	size_t nrules;
	struct tgm_rule *rules;
};

/* Why a policy is refused: 0 (accepted), EINVAL or EFBIG, line and reason. */
struct tgm_verdict {
	int err;
	unsigned int line;	/* 0: the policy as a whole */
	const char *reason;
};

struct tgm_subject {
	uint32_t uid, gid;
	const uint32_t *groups;	/* supplementary groups */
	size_t ngroups;
	bool cap, init_userns;
};

struct tgm_object {
	const char *name;
	enum tgm_type type;
	bool mq, init_netns, creator;
};

extern const char *const tgm_op_names[TGM_NOPS];

/* Parse @len bytes of @text; on refusal @p is left empty. */
struct tgm_verdict tgm_parse(const char *text, size_t len, struct tgm_policy *p);
void tgm_free(struct tgm_policy *p);
/* The canonical text (malloc'ed): what reading the policy file gives. */
char *tgm_canonical(const struct tgm_policy *p);
/* The 1-based number of the rule deciding @op, 0 when the default does. */
size_t tgm_match(const struct tgm_policy *p, enum tgm_op op,
		 const struct tgm_subject *s, const struct tgm_object *o);
bool tgm_allows(const struct tgm_policy *p, size_t rule);

#endif
