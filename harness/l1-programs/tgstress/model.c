// SPDX-License-Identifier: GPL-2.0
/*
 * The tunguard policy model. Every rule here is read off the policy
 * language as documented; where the documentation is silent (ids with
 * leading zeros, (uid_t)-1) the choice is the one a careful reader of
 * "plain decimal numbers" and "effective uid" makes, and tgstress
 * reports any place the kernel disagrees.
 */
#include "model.h"
#include "common/util.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tgm_field {
	F_UID, F_GID, F_CAP, F_USERNS, F_TYPE, F_NAME, F_MQ, F_NETNS, F_CREATOR,
	F_COUNT
};

/* The fixed order of the canonical form is this table's order. */
static const char *const field_names[F_COUNT] = {
	"uid", "gid", "cap", "userns", "type", "name", "mq", "netns", "creator",
};

const char *const tgm_op_names[TGM_NOPS] = {
	"create", "open", "attach_queue",
};

#define ALL_OPS ((1u << TGM_NOPS) - 1)

/* A line cut into words: spaces, tabs and carriage returns separate them. */
struct words {
	char *w[64];
	size_t n;
	bool overflow;
};

static void split_words(char *line, struct words *ws)
{
	char *s = line;

	ws->n = 0;
	ws->overflow = false;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (!*s)
			return;
		if (ws->n == sizeof(ws->w) / sizeof(ws->w[0])) {
			/* more words than any rule can have fields: still an
			 * error, found below as a field given twice */
			ws->overflow = true;
			return;
		}
		ws->w[ws->n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static const char *parse_id(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return "bad id";
	if (s[0] == '0' && s[1])
		return "bad id";	/* plain decimal: no leading zeros */
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return "bad id";
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > TGM_ID_MAX)
			return "bad id";
	}
	*out = (uint32_t)v;
	return NULL;
}

static const char *parse_range(char *s, uint32_t *lo, uint32_t *hi)
{
	char *dash = strchr(s, '-');
	const char *why;

	if (dash)
		*dash = '\0';
	why = parse_id(s, lo);
	if (why)
		return why;
	*hi = *lo;
	if (dash && (why = parse_id(dash + 1, hi)))
		return why;
	return *hi < *lo ? "reversed range" : NULL;
}

static const char *parse_flag(const char *v, const char *yes, const char *no, bool *out)
{
	if (!strcmp(v, yes))
		*out = true;
	else if (!strcmp(v, no))
		*out = false;
	else
		return "bad value";
	return NULL;
}

static const char *parse_name(const char *v, struct tgm_rule *r)
{
	size_t len = strlen(v);

	if (!len)
		return "empty name";
	r->glob = strpbrk(v, "*?[\\") != NULL;
	if (len > (r->glob ? TGM_GLOB_MAX : TGM_NAME_MAX))
		return "name too long";
	if (strpbrk(v, "/:"))
		return "character not allowed in a device name";
	/* "[^" is refused, not read as a class of '^': the guide's "[!...]" */
	if (strstr(v, "[^"))
		return "[^...] is not a negated class: write [!...]";
	memcpy(r->name, v, len + 1);
	return NULL;
}

static const char *parse_field(char *word, struct tgm_rule *r)
{
	char *eq = strchr(word, '=');
	int f;

	/* a '#' after a rule's first word is no comment, and no field */
	if (word[0] == '#')
		return "a comment must start its line";
	if (!eq)
		return "expected field=value";
	*eq = '\0';
	for (f = 0; f < F_COUNT && strcmp(word, field_names[f]); f++)
		;
	if (f == F_COUNT)
		return "unknown field";
	if (r->fields & (1u << f))
		return "field given twice";
	r->fields |= 1u << f;
	const char *v = eq + 1;

	switch (f) {
	case F_UID:
		return parse_range(eq + 1, &r->uid_lo, &r->uid_hi);
	case F_GID:
		return parse_range(eq + 1, &r->gid_lo, &r->gid_hi);
	case F_CAP:
		return parse_flag(v, "net_admin", "!net_admin", &r->cap);
	case F_USERNS:
		return parse_flag(v, "init", "child", &r->init_userns);
	case F_TYPE:
		if (!strcmp(v, "tun"))
			r->type = TGM_TYPE_TUN;
		else if (!strcmp(v, "tap"))
			r->type = TGM_TYPE_TAP;
		else
			return "bad value";
		return NULL;
	case F_NAME:
		return parse_name(v, r);
	case F_MQ:
		return parse_flag(v, "yes", "no", &r->mq);
	case F_NETNS:
		return parse_flag(v, "init", "other", &r->init_netns);
	default:
		return parse_flag(v, "yes", "no", &r->creator);
	}
}

static const char *parse_ops(char *list, unsigned int *ops)
{
	char *next;
	int op;

	*ops = 0;
	if (!strcmp(list, "any")) {
		*ops = ALL_OPS;
		return NULL;
	}
	for (; list; list = next) {
		next = strchr(list, ',');
		if (next)
			*next++ = '\0';
		if (!*list)
			return "empty operation in list";
		/* the old series' fourth operation, named as such */
		if (!strcmp(list, "attach"))
			return "no operation attach: use open or attach_queue";
		for (op = 0; op < TGM_NOPS && strcmp(list, tgm_op_names[op]); op++)
			;
		if (op == TGM_NOPS)
			return "unknown operation";
		if (*ops & (1u << op))
			return "operation listed twice";
		*ops |= 1u << op;
	}
	return NULL;
}

/* A rule line: 1; a default line: 2; nothing: 0; otherwise the reason. */
static int parse_line(char *line, struct tgm_rule *r, bool *dflt, const char **why)
{
	struct words ws;

	split_words(line, &ws);
	/* a comment is a line whose first word starts with '#', nothing else */
	if (!ws.n || ws.w[0][0] == '#')
		return 0;
	if (!strcmp(ws.w[0], "default")) {
		if (ws.n != 2 || ws.overflow || (strcmp(ws.w[1], "allow") && strcmp(ws.w[1], "deny"))) {
			if (ws.n < 2 || (strcmp(ws.w[1], "allow") && strcmp(ws.w[1], "deny")))
				*why = "default must be allow or deny";
			else if (ws.w[2][0] == '#')
				*why = "a comment must start its line";
			else
				*why = "trailing text after default";
			return -1;
		}
		*dflt = !strcmp(ws.w[1], "allow");
		return 2;
	}
	memset(r, 0, sizeof(*r));
	if (!strcmp(ws.w[0], "allow"))
		r->allow = true;
	else if (strcmp(ws.w[0], "deny")) {
		*why = "unknown verb";
		return -1;
	}
	if (ws.n < 2) {
		*why = "missing operation list";
		return -1;
	}
	if ((*why = parse_ops(ws.w[1], &r->ops)))
		return -1;
	for (size_t i = 2; i < ws.n; i++)
		if ((*why = parse_field(ws.w[i], r)))
			return -1;
	if (ws.overflow) {
		*why = "field given twice";
		return -1;
	}
	return 1;
}

struct tgm_verdict tgm_parse(const char *text, size_t len, struct tgm_policy *p)
{
	struct tgm_verdict v = { 0 };
	bool have_default = false;
	unsigned int lineno = 0;
	char *copy, *line, *next;
	size_t cap = 0;

	memset(p, 0, sizeof(*p));
	if (len > TGM_MAX_TEXT)
		return (struct tgm_verdict){ EFBIG, 0, "policy larger than 64 KiB" };
	if (!len)
		return (struct tgm_verdict){ EINVAL, 0, "empty policy" };
	if (memchr(text, '\0', len))
		return (struct tgm_verdict){ EINVAL, 0, "NUL byte in policy" };
	copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = copy; line; line = next) {
		struct tgm_rule r;
		bool dflt;
		int kind;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		kind = parse_line(line, &r, &dflt, &v.reason);
		if (kind == 1 && p->nrules == TGM_MAX_RULES) {
			v.reason = "too many rules";
			kind = -1;
		}
		if (kind == 2 && have_default) {
			v.reason = "second default line";
			kind = -1;
		}
		if (kind < 0) {
			v.err = EINVAL;
			v.line = lineno;
			break;
		}
		if (kind == 2) {
			have_default = true;
			p->default_allow = dflt;
		} else if (kind == 1) {
			if (p->nrules == cap) {
				cap = cap ? cap * 2 : 16;
				p->rules = xrealloc(p->rules, cap * sizeof(*p->rules));
			}
			p->rules[p->nrules++] = r;
		}
	}
	free(copy);
	if (!v.err && !have_default)
		v = (struct tgm_verdict){ EINVAL, 0, "no default line" };
	if (v.err)
		tgm_free(p);
	return v;
}

void tgm_free(struct tgm_policy *p)
{
	free(p->rules);
	memset(p, 0, sizeof(*p));
}

static void put_range(FILE *f, const char *key, uint32_t lo, uint32_t hi)
{
	if (lo == hi)
		fprintf(f, " %s=%u", key, lo);
	else
		fprintf(f, " %s=%u-%u", key, lo, hi);
}

char *tgm_canonical(const struct tgm_policy *p)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		abort();
	for (size_t i = 0; i < p->nrules; i++) {
		const struct tgm_rule *r = &p->rules[i];
		const char *sep = "";

		fprintf(f, "%s ", r->allow ? "allow" : "deny");
		if (r->ops == ALL_OPS) {
			fputs("any", f);
		} else {
			for (int op = 0; op < TGM_NOPS; op++) {
				if (r->ops & (1u << op)) {
					fprintf(f, "%s%s", sep, tgm_op_names[op]);
					sep = ",";
				}
			}
		}
		for (int fl = 0; fl < F_COUNT; fl++) {
			if (!(r->fields & (1u << fl)))
				continue;
			switch (fl) {
			case F_UID: put_range(f, "uid", r->uid_lo, r->uid_hi); break;
			case F_GID: put_range(f, "gid", r->gid_lo, r->gid_hi); break;
			case F_CAP: fputs(r->cap ? " cap=net_admin" : " cap=!net_admin", f); break;
			case F_USERNS: fputs(r->init_userns ? " userns=init" : " userns=child", f); break;
			case F_TYPE: fputs(r->type == TGM_TYPE_TUN ? " type=tun" : " type=tap", f); break;
			case F_NAME: fprintf(f, " name=%s", r->name); break;
			case F_MQ: fputs(r->mq ? " mq=yes" : " mq=no", f); break;
			case F_NETNS: fputs(r->init_netns ? " netns=init" : " netns=other", f); break;
			default: fputs(r->creator ? " creator=yes" : " creator=no", f); break;
			}
		}
		fputc('\n', f);
	}
	fprintf(f, "default %s\n", p->default_allow ? "allow" : "deny");
	fclose(f);
	return text;
}

static bool in(uint32_t lo, uint32_t hi, uint32_t v)
{
	return lo <= v && v <= hi;
}

static bool rule_matches(const struct tgm_rule *r, const struct tgm_subject *s,
			 const struct tgm_object *o)
{
	unsigned int f = r->fields;

	if ((f & 1u << F_UID) && !in(r->uid_lo, r->uid_hi, s->uid))
		return false;
	if (f & 1u << F_GID) {
		bool any = in(r->gid_lo, r->gid_hi, s->gid);

		for (size_t i = 0; i < s->ngroups && !any; i++)
			any = in(r->gid_lo, r->gid_hi, s->groups[i]);
		if (!any)
			return false;
	}
	if ((f & 1u << F_CAP) && r->cap != s->cap)
		return false;
	if ((f & 1u << F_USERNS) && r->init_userns != s->init_userns)
		return false;
	if ((f & 1u << F_TYPE) && r->type != o->type)
		return false;
	if ((f & 1u << F_MQ) && r->mq != o->mq)
		return false;
	if ((f & 1u << F_NETNS) && r->init_netns != o->init_netns)
		return false;
	if ((f & 1u << F_CREATOR) && r->creator != o->creator)
		return false;
	/* glibc's fnmatch(), not the kernel's glob_match(): the same
	 * language for the patterns tgstress writes */
	if ((f & 1u << F_NAME) &&
	    (r->glob ? fnmatch(r->name, o->name, 0) != 0 : strcmp(r->name, o->name)))
		return false;
	return true;
}

size_t tgm_match(const struct tgm_policy *p, enum tgm_op op,
		 const struct tgm_subject *s, const struct tgm_object *o)
{
	for (size_t i = 0; i < p->nrules; i++)
		if ((p->rules[i].ops & (1u << op)) && rule_matches(&p->rules[i], s, o))
			return i + 1;
	return 0;
}

bool tgm_allows(const struct tgm_policy *p, size_t rule)
{
	return rule ? p->rules[rule - 1].allow : p->default_allow;
}
