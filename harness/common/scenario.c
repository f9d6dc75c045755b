// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario parser. Line oriented: every line is blank, a comment, a
 * directive (scenario, tags, requires, timeout) or a step
 * "[as ACTOR] ACTION ARGS... => EXPECT". Every problem is reported as
 * file:line:col with what was expected; parsing goes on after an error so
 * one run shows all of them.
 */
#include "scenario.h"
#include "errnames.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SCN_MAX_TOKENS 64
#define SCN_IFNAMSIZ 16

struct token {
	const char *s;
	size_t len;
	int col;
};

struct parser {
	const char *path;
	int line;
	struct scn_diags *diags;
	struct scn_file *file;
	struct scenario *cur;
	int errors;
	int errors_at_scenario;	/* errors before the current scenario began */
};

static void diag(struct parser *p, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void diag(struct parser *p, int col, const char *fmt, ...)
{
	struct scn_diags *d = p->diags;
	struct scn_diag *e;
	struct sbuf sb = { 0 };
	va_list ap;
	char tmp[512];

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	sbuf_puts(&sb, tmp);

	d->v = xrealloc(d->v, sizeof(*d->v) * (size_t)(d->n + 1));
	e = &d->v[d->n++];
	e->file = xstrdup(p->path);
	e->line = p->line;
	e->col = col;
	e->msg = sb.buf;
	p->errors++;
}

static bool tok_is(const struct token *t, const char *s)
{
	return t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

static char *tok_dup(const struct token *t)
{
	return xstrndup(t->s, t->len);
}

/* Split @line into whitespace-separated tokens; '#' starts a comment. */
static int tokenize(const char *line, struct token *tok, int max, int *overflow_col)
{
	const char *s = line;
	int n = 0;

	*overflow_col = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			break;
		if (n == max) {
			*overflow_col = (int)(s - line) + 1;
			break;
		}
		tok[n].s = s;
		tok[n].col = (int)(s - line) + 1;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		tok[n].len = (size_t)(s - tok[n].s);
		n++;
	}
	return n;
}

static const char *const action_names[] = {
	[SCN_CREATE] = "create", [SCN_ATTACH] = "attach",
	[SCN_DELETE] = "delete", [SCN_LINK] = "link",
	[SCN_IP] = "ip", [SCN_L2_BOOT] = "l2 boot",
	[SCN_L2_PING] = "l2 ping", [SCN_L2_STOP] = "l2 stop",
	[SCN_CLOSE] = "close", [SCN_QUEUE] = "queue", [SCN_SET] = "set",
	[SCN_SEND] = "send", [SCN_TG_POLICY] = "tunguard policy",
	[SCN_TG_MODE] = "tunguard mode", [SCN_PROBE] = "probe",
};

const char *scn_action_name(enum scn_action a)
{
	return action_names[a];
}

static const struct {
	const char *name;
	unsigned int bit;
} features[] = {
	{ "kvm", SCN_REQ_KVM }, { "vhost", SCN_REQ_VHOST },
	{ "tun", SCN_REQ_TUN }, { "svm", SCN_REQ_SVM },
	{ "vmx", SCN_REQ_VMX }, { "tunguard", SCN_REQ_TUNGUARD },
};

const char *scn_feature_name(unsigned int bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(features); i++)
		if (features[i].bit == bit)
			return features[i].name;
	return "?";
}

bool scn_has_tag(const struct scenario *s, const char *tag)
{
	for (int i = 0; i < s->ntags; i++)
		if (!strcmp(s->tags[i], tag))
			return true;
	return false;
}

const char *scn_arg(const struct scn_step *st, const char *key)
{
	size_t kl = strlen(key);

	for (int i = 0; i < st->argc; i++)
		if (!strncmp(st->argv[i], key, kl) && st->argv[i][kl] == '=')
			return st->argv[i] + kl + 1;
	return NULL;
}

bool scn_flag(const struct scn_step *st, const char *word)
{
	for (int i = 0; i < st->argc; i++)
		if (!strcmp(st->argv[i], word))
			return true;
	return false;
}

/* Decimal id in [0, UINT32_MAX - 1]; (uid_t)-1 means "no change". */
static bool parse_id(const char *s, size_t len, unsigned long *out)
{
	unsigned long v = 0;

	if (!len || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v >= 4294967295UL)
		return false;
	*out = v;
	return true;
}

static bool parse_uint_range(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static bool valid_word(const char *s, size_t len)
{
	if (!len || len >= SCN_NAME_MAX || !islower((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) &&
		    s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

static const struct scn_actor *find_proc(const struct scenario *sc, const char *s, size_t len)
{
	for (int i = 0; i < sc->nprocs; i++)
		if (strlen(sc->procs[i].proc) == len && !memcmp(sc->procs[i].proc, s, len))
			return &sc->procs[i];
	return NULL;
}

/* UID[:GID[,GID...]] or root, then +net_admin, +userns, +netns */
static void parse_ids(struct parser *p, const char *s, const char *end, int col,
		      struct scn_actor *a)
{
	const char *plus = memchr(s, '+', (size_t)(end - s)), *idend = plus ? plus : end;
	const char *sep;
	unsigned long v;

	if ((size_t)(idend - s) == 4 && !memcmp(s, "root", 4)) {
		a->root = true;
	} else {
		sep = memchr(s, ':', (size_t)(idend - s));
		if (!parse_id(s, (size_t)((sep ? sep : idend) - s), &v)) {
			diag(p, col, "bad actor '%.*s': expected root, UID[:GID[,GID...]] or a process name",
			     (int)(idend - s), s);
			return;
		}
		a->uid = (uid_t)v;
		a->gid = (gid_t)v;
		for (const char *g = sep ? sep + 1 : NULL; g; ) {
			const char *comma = memchr(g, ',', (size_t)(idend - g));
			const char *stop = comma ? comma : idend;

			if (!parse_id(g, (size_t)(stop - g), &v)) {
				diag(p, col + (int)(g - s),
				     "bad group id '%.*s' in actor: expected a decimal gid",
				     (int)(stop - g), g);
				return;
			}
			if (g == sep + 1) {
				a->gid = (gid_t)v;
			} else if (a->ngroups == SCN_MAX_GROUPS) {
				diag(p, col + (int)(g - s),
				     "too many supplementary groups (at most %d)", SCN_MAX_GROUPS);
				return;
			} else {
				a->groups[a->ngroups++] = (gid_t)v;
			}
			g = comma ? comma + 1 : NULL;
		}
	}
	while (plus) {
		const char *m = plus + 1, *next = memchr(m, '+', (size_t)(end - m));
		size_t len = (size_t)((next ? next : end) - m);

		if (len == 9 && !memcmp(m, "net_admin", 9))
			a->net_admin = true;
		else if (len == 6 && !memcmp(m, "userns", 6))
			a->userns = true;
		else if (len == 5 && !memcmp(m, "netns", 5))
			a->netns = true;
		else
			diag(p, col + (int)(m - s),
			     "unknown actor modifier '+%.*s': expected +net_admin, +userns or +netns",
			     (int)len, m);
		plus = next;
	}
	if (a->root && a->net_admin)
		diag(p, col, "root always holds CAP_NET_ADMIN: '+net_admin' is for a UID");
}

/*
 * as ACTOR | as NAME=ACTOR (a named process, kept across steps with its
 * descriptors) | as NAME (that process again).
 */
static void parse_actor(struct parser *p, const struct token *t, struct scn_actor *a)
{
	const char *eq = memchr(t->s, '=', t->len);
	struct scenario *sc = p->cur;

	memset(a, 0, sizeof(*a));
	if (eq) {
		size_t nl = (size_t)(eq - t->s);

		if (!valid_word(t->s, nl) || (nl == 4 && !memcmp(t->s, "root", 4))) {
			diag(p, t->col, "bad process name '%.*s': expected [a-z][a-z0-9_-], at most %d characters",
			     (int)nl, t->s, SCN_NAME_MAX - 1);
			return;
		}
		if (find_proc(sc, t->s, nl)) {
			diag(p, t->col, "process '%.*s' is already defined in this scenario: use 'as %.*s'",
			     (int)nl, t->s, (int)nl, t->s);
			return;
		}
		parse_ids(p, eq + 1, t->s + t->len, t->col + (int)nl + 1, a);
		memcpy(a->proc, t->s, nl);
		a->proc[nl] = '\0';
		sc->procs = xrealloc(sc->procs, sizeof(*sc->procs) * (size_t)(sc->nprocs + 1));
		sc->procs[sc->nprocs++] = *a;
		return;
	}
	if (islower((unsigned char)t->s[0]) && !tok_is(t, "root") &&
	    !(t->len > 4 && !strncmp(t->s, "root+", 5))) {
		const struct scn_actor *known = find_proc(sc, t->s, t->len);

		if (!known)
			diag(p, t->col, "no process '%.*s' in this scenario: define it first with 'as %.*s=ACTOR'",
			     (int)t->len, t->s, (int)t->len, t->s);
		else
			*a = *known;
		return;
	}
	parse_ids(p, t->s, t->s + t->len, t->col, a);
}

static bool valid_ifname(const struct token *t)
{
	if (!t->len || t->len >= SCN_IFNAMSIZ)
		return false;
	for (size_t i = 0; i < t->len; i++) {
		unsigned char c = (unsigned char)t->s[i];

		if (c == '/' || c == ':' || isspace(c) || !isprint(c))
			return false;
	}
	return !tok_is(t, ".") && !tok_is(t, "..");
}

static bool valid_guest_name(const struct token *t)
{
	if (!t->len || t->len > 15)
		return false;
	for (size_t i = 0; i < t->len; i++) {
		unsigned char c = (unsigned char)t->s[i];

		if (!islower(c) && !isdigit(c) && c != '-' && c != '_')
			return false;
	}
	return true;
}

static bool valid_ipv4(const char *s, size_t len, bool prefix)
{
	char buf[32];
	unsigned int a, b, c, d, pl;
	char extra;
	int n;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (prefix)
		n = sscanf(buf, "%u.%u.%u.%u/%u%c", &a, &b, &c, &d, &pl, &extra);
	else
		n = sscanf(buf, "%u.%u.%u.%u%c", &a, &b, &c, &d, &extra);
	if (n != (prefix ? 5 : 4))
		return false;
	if (a > 255 || b > 255 || c > 255 || d > 255)
		return false;
	return !prefix || pl <= 32;
}

/* "key=value": returns the value's token, or false if @t is not key=... */
static bool kv(const struct token *t, const char *key, struct token *val)
{
	size_t kl = strlen(key);

	if (t->len <= kl || memcmp(t->s, key, kl) || t->s[kl] != '=')
		return false;
	val->s = t->s + kl + 1;
	val->len = t->len - kl - 1;
	val->col = t->col + (int)kl + 1;
	return true;
}

static void need_id_value(struct parser *p, const struct token *v, const char *what)
{
	unsigned long id;

	if (!parse_id(v->s, v->len, &id))
		diag(p, v->col, "bad %s '%.*s': expected a decimal id", what,
		     (int)v->len, v->s);
}

/* keep=HANDLE: a descriptor a named process keeps open after the step */
static void check_keep(struct parser *p, const struct token *v)
{
	if (!valid_word(v->s, v->len))
		diag(p, v->col, "bad handle '%.*s': expected [a-z][a-z0-9_-], at most %d characters",
		     (int)v->len, v->s, SCN_NAME_MAX - 1);
}

static bool handle_known(const struct scenario *sc, const struct token *t)
{
	for (int i = 0; i < sc->nhandles; i++)
		if (tok_is(t, sc->handles[i]))
			return true;
	return false;
}

static void check_handle(struct parser *p, const struct token *t)
{
	if (!handle_known(p->cur, t))
		diag(p, t->col, "no handle '%.*s' in this scenario (no earlier step with keep=%.*s)",
		     (int)t->len, t->s, (int)t->len, t->s);
}

static void check_type_and_name(struct parser *p, const char *verb,
				const struct token *args, int nargs, int end_col)
{
	if (nargs < 1) {
		diag(p, end_col, "%s: expected 'tun' or 'tap'", verb);
		return;
	}
	if (!tok_is(&args[0], "tun") && !tok_is(&args[0], "tap"))
		diag(p, args[0].col, "%s: expected 'tun' or 'tap', got '%.*s'",
		     verb, (int)args[0].len, args[0].s);
	if (nargs < 2)
		diag(p, end_col, "%s: expected a device name after '%.*s'", verb,
		     (int)args[0].len, args[0].s);
	else if (!valid_ifname(&args[1]))
		diag(p, args[1].col,
		     "%s: bad device name '%.*s': 1-15 printable characters without '/', ':' or spaces",
		     verb, (int)args[1].len, args[1].s);
}

static bool one_of(const struct token *t, const char *const *words)
{
	for (; *words; words++)
		if (tok_is(t, *words))
			return true;
	return false;
}

static void check_args(struct parser *p, enum scn_action act,
		       const struct token *a, int n, int end_col)
{
	struct token v;

	switch (act) {
	case SCN_CREATE:
	case SCN_ATTACH:
		check_type_and_name(p, scn_action_name(act), a, n, end_col);
		for (int i = 2; i < n; i++) {
			if (tok_is(&a[i], "multi_queue") || tok_is(&a[i], "vnet_hdr"))
				continue;
			if (act == SCN_CREATE && (tok_is(&a[i], "persist") || tok_is(&a[i], "excl")))
				continue;
			if (kv(&a[i], "keep", &v))
				check_keep(p, &v);
			else if (act == SCN_CREATE && kv(&a[i], "owner", &v))
				need_id_value(p, &v, "owner");
			else if (act == SCN_CREATE && kv(&a[i], "group", &v))
				need_id_value(p, &v, "group");
			else
				diag(p, a[i].col, act == SCN_CREATE
				     ? "create: unknown option '%.*s': expected persist, owner=UID, group=GID, multi_queue, vnet_hdr, excl or keep=HANDLE"
				     : "attach: unknown option '%.*s': expected multi_queue, vnet_hdr or keep=HANDLE",
				     (int)a[i].len, a[i].s);
		}
		break;
	case SCN_DELETE:
		check_type_and_name(p, scn_action_name(act), a, n, end_col);
		for (int i = 2; i < n; i++)
			if (!tok_is(&a[i], "multi_queue"))
				diag(p, a[i].col, "delete: unknown option '%.*s': expected multi_queue",
				     (int)a[i].len, a[i].s);
		break;
	case SCN_TG_POLICY: {
		static const char *const first[] = { "allow", "deny", "default", NULL };
		bool rule_start = true;

		if (!n)
			diag(p, end_col, "tunguard policy: expected rules, separated by ';'");
		for (int i = 0; i < n; i++) {
			if (rule_start && !one_of(&a[i], first)) {
				diag(p, a[i].col, "tunguard policy: a rule starts with allow, deny or default, got '%.*s'",
				     (int)a[i].len, a[i].s);
				break;
			}
			rule_start = tok_is(&a[i], ";") || a[i].s[a[i].len - 1] == ';';
		}
		break;
	}
	case SCN_TG_MODE: {
		static const char *const modes[] = { "enforce", "permissive", "off", NULL };

		if (n != 1 || !one_of(&a[0], modes))
			diag(p, n ? a[0].col : end_col, "tunguard mode: expected enforce, permissive or off");
		break;
	}
	case SCN_PROBE: {
		static const char *const probes[] = { "ioeventfd", "irqfd", "realmode", NULL };

		if (n < 1 || !one_of(&a[0], probes))
			diag(p, n ? a[0].col : end_col, "probe: expected ioeventfd, irqfd or realmode");
		for (int i = 1; i < n; i++)
			if (!tok_is(&a[i], "--wrong") && !tok_is(&a[i], "--bench"))
				diag(p, a[i].col, "probe: unknown option '%.*s': expected --bench or --wrong",
				     (int)a[i].len, a[i].s);
		break;
	}
	case SCN_CLOSE:
		if (n != 1)
			diag(p, n ? a[1].col : end_col, "close: expected exactly one handle");
		else
			check_handle(p, &a[0]);
		break;
	case SCN_QUEUE:
		if (n != 2 || (!tok_is(&a[1], "attach") && !tok_is(&a[1], "detach"))) {
			diag(p, n > 1 ? a[1].col : end_col, "queue: expected 'queue HANDLE attach' or 'queue HANDLE detach'");
			break;
		}
		check_handle(p, &a[0]);
		break;
	case SCN_SET:
		if (n < 2) {
			diag(p, end_col, "set: expected a handle and persist=on|off, owner=UID or group=GID");
			break;
		}
		check_handle(p, &a[0]);
		for (int i = 1; i < n; i++) {
			if (kv(&a[i], "persist", &v)) {
				if (!(v.len == 2 && !memcmp(v.s, "on", 2)) &&
				    !(v.len == 3 && !memcmp(v.s, "off", 3)))
					diag(p, v.col, "set: persist must be 'on' or 'off'");
			} else if (kv(&a[i], "owner", &v)) {
				need_id_value(p, &v, "owner");
			} else if (kv(&a[i], "group", &v)) {
				need_id_value(p, &v, "group");
			} else {
				diag(p, a[i].col, "set: unknown option '%.*s': expected persist=on|off, owner=UID or group=GID",
				     (int)a[i].len, a[i].s);
			}
		}
		break;
	case SCN_SEND:
		if (n != 3 || !tok_is(&a[1], "to")) {
			diag(p, n > 1 ? a[1].col : end_col, "send: expected 'send HANDLE to PROCESS'");
			break;
		}
		check_handle(p, &a[0]);
		if (!find_proc(p->cur, a[2].s, a[2].len))
			diag(p, a[2].col, "send: no process '%.*s' in this scenario", (int)a[2].len, a[2].s);
		break;
	case SCN_LINK:
		if (n != 1 || !valid_ifname(&a[0]))
			diag(p, n ? a[n > 1 ? 1 : 0].col : end_col,
			     "link: expected exactly one device name");
		break;
	case SCN_IP:
		if (n < 1)
			diag(p, end_col, "ip: expected iproute2 arguments, e.g. 'ip tuntap add lab0 mode tap'");
		break;
	case SCN_L2_BOOT: {
		bool have_net = false;

		if (n < 1 || !valid_guest_name(&a[0])) {
			diag(p, n ? a[0].col : end_col,
			     "l2 boot: expected a VM name ([a-z0-9_-], at most 15 characters)");
			break;
		}
		for (int i = 1; i < n; i++) {
			if (kv(&a[i], "net", &v)) {
				if (!valid_ifname(&v))
					diag(p, v.col, "l2 boot: bad tap name '%.*s'",
					     (int)v.len, v.s);
				have_net = true;
			} else if (kv(&a[i], "fd", &v)) {
				/* fd=PROC:H: the tap descriptor a named process holds,
				 * handed to QEMU as libvirt does (-netdev tap,fd=N) */
				const char *colon = memchr(v.s, ':', v.len);
				struct token h;

				have_net = true;
				if (!colon || !find_proc(p->cur, v.s, (size_t)(colon - v.s))) {
					diag(p, v.col, "l2 boot: fd= expects PROCESS:HANDLE of a named process of this scenario");
					continue;
				}
				h = (struct token){ colon + 1, v.len - (size_t)(colon - v.s) - 1,
						    v.col + (int)(colon - v.s) + 1 };
				check_handle(p, &h);
			} else if (kv(&a[i], "vhost", &v)) {
				if (!(v.len == 2 && !memcmp(v.s, "on", 2)) &&
				    !(v.len == 3 && !memcmp(v.s, "off", 3)))
					diag(p, v.col, "l2 boot: vhost must be 'on' or 'off'");
			} else if (kv(&a[i], "ip", &v)) {
				if (!valid_ipv4(v.s, v.len, true))
					diag(p, v.col, "l2 boot: bad address '%.*s': expected A.B.C.D/PREFIX",
					     (int)v.len, v.s);
			} else {
				diag(p, a[i].col,
				     "l2 boot: unknown option '%.*s': expected net=TAP, fd=PROCESS:HANDLE, vhost=on|off or ip=A.B.C.D/PREFIX",
				     (int)a[i].len, a[i].s);
			}
		}
		if (!have_net)
			diag(p, end_col, "l2 boot: missing net=TAP or fd=PROCESS:HANDLE");
		break;
	}
	case SCN_L2_PING:
		if (n < 2) {
			diag(p, end_col, "l2 ping: expected a VM name and an IPv4 address");
			break;
		}
		if (!valid_ipv4(a[1].s, a[1].len, false))
			diag(p, a[1].col, "l2 ping: bad address '%.*s': expected A.B.C.D",
			     (int)a[1].len, a[1].s);
		for (int i = 2; i < n; i++) {
			long cnt;
			char *val;

			if (!kv(&a[i], "count", &v)) {
				diag(p, a[i].col, "l2 ping: unknown option '%.*s': expected count=N",
				     (int)a[i].len, a[i].s);
				continue;
			}
			val = tok_dup(&v);
			if (!parse_uint_range(val, 1, 100, &cnt))
				diag(p, v.col, "l2 ping: count must be 1..100");
			free(val);
		}
		break;
	case SCN_L2_STOP:
		if (n != 1)
			diag(p, n ? a[1].col : end_col, "l2 stop: expected exactly one VM name");
		break;
	}
}

/* l2 ping/stop must name a VM booted earlier in the same scenario. */
static void check_guest_known(struct parser *p, const struct scenario *s,
			   const struct token *vm)
{
	for (;;) {
		for (int i = 0; i < s->nsteps; i++) {
			const struct scn_step *st = &s->steps[i];

			if (st->action == SCN_L2_BOOT && st->argc &&
			    tok_is(vm, st->argv[0]))
				return;
		}
		if (!s->continues)
			break;
		s = &p->file->scenarios[s->index - 1];
	}
	diag(p, vm->col, "no VM '%.*s' in this scenario (no earlier 'l2 boot %.*s')",
	     (int)vm->len, vm->s, (int)vm->len, vm->s);
}

/*
 * decision none | decision OP VERDICT [KEY=VALUE...] [, OP VERDICT ...]
 * A comma ends a record; it may stand alone or end a word.
 */
static void parse_decisions(struct parser *p, struct scn_step *st, struct token *t,
			    int n, int end_col)
{
	static const char *const ops[] = { "create", "open", "attach", "attach_queue", NULL };
	static const char *const verdicts[] = { "allow", "deny", NULL };
	static const char *const keys[] = { "rule", "uid", "gid", "dev", "type", "mode",
					    "comm", NULL };
	struct scn_decision *d = NULL;
	int want = 0;	/* 0: an op, 1: a verdict, 2: fields or a comma */

	st->check_decisions = true;
	if (n == 1 && tok_is(&t[0], "none"))
		return;
	if (!n) {
		diag(p, end_col, "decision: expected 'none' or OP VERDICT (e.g. 'decision create allow')");
		return;
	}
	for (int i = 0; i < n; i++) {
		struct token w = t[i];
		bool comma = w.len && w.s[w.len - 1] == ',';

		if (comma)
			w.len--;
		if (w.len) {
			if (want == 0) {
				if (!one_of(&w, ops)) {
					diag(p, w.col, "decision: unknown operation '%.*s': expected create, open, attach or attach_queue",
					     (int)w.len, w.s);
					return;
				}
				st->decisions = xrealloc(st->decisions, sizeof(*d) * (size_t)(st->ndecisions + 1));
				d = &st->decisions[st->ndecisions++];
				memset(d, 0, sizeof(*d));
				d->op = tok_dup(&w);
				want = 1;
			} else if (want == 1) {
				if (!one_of(&w, verdicts)) {
					diag(p, w.col, "decision: expected 'allow' or 'deny' after '%s', got '%.*s'",
					     d->op, (int)w.len, w.s);
					return;
				}
				d->verdict = tok_dup(&w);
				want = 2;
			} else {
				const char *eq = memchr(w.s, '=', w.len);
				struct token k = { w.s, eq ? (size_t)(eq - w.s) : w.len, w.col };

				if (!eq || eq == w.s + w.len - 1 || !one_of(&k, keys)) {
					diag(p, w.col, "decision: bad field '%.*s': expected rule=, uid=, gid=, dev=, type=, mode= or comm= with a value, or ',' before the next record",
					     (int)w.len, w.s);
					return;
				}
				if (d->nfields == SCN_MAX_DFIELDS) {
					diag(p, w.col, "decision: at most %d fields per record", SCN_MAX_DFIELDS);
					return;
				}
				d->keys[d->nfields] = tok_dup(&k);
				d->vals[d->nfields++] = xstrndup(eq + 1, (size_t)(w.s + w.len - eq - 1));
			}
		}
		if (comma) {
			if (want != 2) {
				diag(p, w.col + (int)w.len, "decision: ',' before the record was complete (OP VERDICT)");
				return;
			}
			want = 0;
		}
	}
	if (want != 2)
		diag(p, t[n - 1].col + (int)t[n - 1].len,
		     "decision: the last record is incomplete: expected OP VERDICT");
}

static void parse_step(struct parser *p, const char *line, struct token *t, int n)
{
	struct scenario *s = p->cur;
	struct scn_step st = { 0 };
	int i = 0, arrow = -1, errors = p->errors, argstart, end_col;

	end_col = (int)strlen(line) + 1;
	st.line = p->line;
	st.actor.root = true;
	if (tok_is(&t[0], "as")) {
		if (n < 2) {
			diag(p, end_col, "expected an actor after 'as' (root or UID[:GID[,GID...]])");
			return;
		}
		parse_actor(p, &t[1], &st.actor);
		i = 2;
	}
	for (int k = i; k < n; k++)
		if (tok_is(&t[k], "=>")) {
			arrow = k;
			break;
		}
	if (arrow < 0) {
		diag(p, end_col, "missing expectation: expected '=> ok', '=> fail' or '=> ERRNO' at the end of the step");
		return;
	}
	if (i >= arrow) {
		diag(p, t[arrow].col, "expected an action before '=>'");
		return;
	}

	if (tok_is(&t[i], "tunguard")) {
		if (i + 1 < arrow && tok_is(&t[i + 1], "policy")) {
			st.action = SCN_TG_POLICY;
		} else if (i + 1 < arrow && tok_is(&t[i + 1], "mode")) {
			st.action = SCN_TG_MODE;
		} else {
			diag(p, i + 1 < arrow ? t[i + 1].col : t[i].col + 8,
			     "tunguard: expected 'policy RULE [; RULE...]' or 'mode enforce|permissive|off'");
			return;
		}
		argstart = i + 2;
	} else if (tok_is(&t[i], "l2")) {
		if (i + 1 >= arrow) {
			diag(p, t[i].col + 2, "l2: expected 'boot', 'ping' or 'stop'");
			return;
		}
		if (tok_is(&t[i + 1], "boot"))
			st.action = SCN_L2_BOOT;
		else if (tok_is(&t[i + 1], "ping"))
			st.action = SCN_L2_PING;
		else if (tok_is(&t[i + 1], "stop"))
			st.action = SCN_L2_STOP;
		else {
			diag(p, t[i + 1].col, "l2: unknown action '%.*s': expected boot, ping or stop",
			     (int)t[i + 1].len, t[i + 1].s);
			return;
		}
		argstart = i + 2;
	} else {
		static const struct {
			const char *w;
			enum scn_action a;
		} words[] = {
			{ "create", SCN_CREATE }, { "attach", SCN_ATTACH },
			{ "delete", SCN_DELETE }, { "link", SCN_LINK },
			{ "ip", SCN_IP }, { "close", SCN_CLOSE },
			{ "queue", SCN_QUEUE }, { "set", SCN_SET },
			{ "send", SCN_SEND }, { "probe", SCN_PROBE },
		};
		size_t k;

		for (k = 0; k < ARRAY_SIZE(words); k++)
			if (tok_is(&t[i], words[k].w))
				break;
		if (k == ARRAY_SIZE(words)) {
			diag(p, t[i].col,
			     "unknown action '%.*s': expected create, attach, delete, link, ip, close, queue, set, send, tunguard, probe or l2",
			     (int)t[i].len, t[i].s);
			return;
		}
		st.action = words[k].a;
		argstart = i + 1;
	}
	check_args(p, st.action, &t[argstart], arrow - argstart, t[arrow].col);
	if ((st.action == SCN_L2_PING || st.action == SCN_L2_STOP) &&
	    arrow > argstart)
		check_guest_known(p, s, &t[argstart]);

	if (arrow + 1 >= n) {
		diag(p, t[arrow].col + 2, "expected 'ok', 'fail' or an errno name (EPERM, EBUSY, ...) after '=>'");
	} else {
		const struct token *e = &t[arrow + 1];

		if (tok_is(e, "ok")) {
			st.expect = SCN_EXPECT_OK;
		} else if (tok_is(e, "fail")) {
			st.expect = SCN_EXPECT_FAIL;
		} else {
			char *name = tok_dup(e);

			st.expect = SCN_EXPECT_ERRNO;
			st.expect_errno = errno_from_name(name);
			if (st.expect_errno < 0)
				diag(p, e->col, "unknown expectation '%s': expected 'ok', 'fail' or an errno name such as EPERM",
				     name);
			free(name);
		}
		if (arrow + 2 < n && tok_is(&t[arrow + 2], "decision"))
			parse_decisions(p, &st, &t[arrow + 3], n - arrow - 3,
					t[arrow + 2].col + 8);
		else if (arrow + 2 < n)
			diag(p, t[arrow + 2].col, "unexpected '%.*s' after the expectation: expected 'decision ...' or the end of the step",
			     (int)t[arrow + 2].len, t[arrow + 2].s);
	}
	for (int k = argstart; k < arrow; k++) {
		struct token v;

		if ((st.action == SCN_CREATE || st.action == SCN_ATTACH) && kv(&t[k], "keep", &v) &&
		    !st.actor.proc[0])
			diag(p, t[k].col, "keep=%.*s needs a named process to keep it: 'as NAME=ACTOR'",
			     (int)v.len, v.s);
	}
	if ((st.action == SCN_L2_BOOT || st.action == SCN_IP || st.action == SCN_LINK ||
	     st.action == SCN_L2_PING || st.action == SCN_L2_STOP || st.action == SCN_PROBE ||
	     st.action == SCN_TG_POLICY || st.action == SCN_TG_MODE) && st.actor.proc[0])
		diag(p, t[1].col, "%s runs as a fresh process: name an actor, not a process",
		     scn_action_name(st.action));
	if (p->errors != errors)
		return;
	for (int k = argstart; k < arrow; k++) {
		struct token v;

		if ((st.action == SCN_CREATE || st.action == SCN_ATTACH) && kv(&t[k], "keep", &v) &&
		    !handle_known(s, &v)) {
			s->handles = xrealloc(s->handles, sizeof(char *) * (size_t)(s->nhandles + 1));
			s->handles[s->nhandles++] = tok_dup(&v);
		}
	}

	st.argc = arrow - argstart;
	st.argv = xcalloc((size_t)st.argc + 1, sizeof(char *));
	for (int k = 0; k < st.argc; k++)
		st.argv[k] = tok_dup(&t[argstart + k]);
	{
		const char *from = t[0].s;
		const char *to = t[n - 1].s + t[n - 1].len;

		st.text = xstrndup(from, (size_t)(to - from));
	}
	s->steps = xrealloc(s->steps, sizeof(*s->steps) * (size_t)(s->nsteps + 1));
	s->steps[s->nsteps++] = st;
}

static void finish_scenario(struct parser *p)
{
	struct scenario *s = p->cur;
	int line = p->line;

	/* a scenario whose steps were all wrong has been reported already */
	if (s && !s->nsteps && p->errors == p->errors_at_scenario) {
		p->line = s->line;
		diag(p, 1, "scenario '%s' has no steps", s->title);
		p->line = line;
	}
}

/* A continuing scenario knows the processes and handles it takes over. */
static void inherit_context(struct scenario *sc, const struct scenario *prev)
{
	sc->continues = true;
	for (int i = 0; i < prev->nprocs; i++) {
		sc->procs = xrealloc(sc->procs, sizeof(*sc->procs) * (size_t)(sc->nprocs + 1));
		sc->procs[sc->nprocs++] = prev->procs[i];
	}
	for (int i = 0; i < prev->nhandles; i++) {
		sc->handles = xrealloc(sc->handles, sizeof(char *) * (size_t)(sc->nhandles + 1));
		sc->handles[sc->nhandles++] = xstrdup(prev->handles[i]);
	}
}

static void parse_directive_scenario(struct parser *p, const char *line,
				     struct token *t, int n)
{
	struct scn_file *f = p->file;
	struct scenario *s;
	const char *from, *to;

	finish_scenario(p);
	if (n < 2) {
		diag(p, t[0].col + (int)t[0].len, "scenario: expected a title");
		p->cur = NULL;
		return;
	}
	(void)line;
	from = t[1].s;
	to = t[n - 1].s + t[n - 1].len;
	f->scenarios = xrealloc(f->scenarios, sizeof(*f->scenarios) * (size_t)(f->nscenarios + 1));
	s = &f->scenarios[f->nscenarios];
	memset(s, 0, sizeof(*s));
	s->file = xstrdup(p->path);
	s->line = p->line;
	s->index = f->nscenarios++;
	s->title = xstrndup(from, (size_t)(to - from));
	p->cur = s;
	p->errors_at_scenario = p->errors;
}

static void parse_line(struct parser *p, const char *line)
{
	struct token t[SCN_MAX_TOKENS];
	int overflow, n = tokenize(line, t, SCN_MAX_TOKENS, &overflow);

	if (overflow) {
		diag(p, overflow, "line has more than %d words", SCN_MAX_TOKENS);
		return;
	}
	if (!n)
		return;
	if (tok_is(&t[0], "scenario")) {
		parse_directive_scenario(p, line, t, n);
		return;
	}
	if (!p->cur) {
		diag(p, t[0].col, "'%.*s' outside a scenario: a file starts with 'scenario TITLE'",
		     (int)t[0].len, t[0].s);
		return;
	}
	if (tok_is(&t[0], "tags")) {
		if (n < 2)
			diag(p, t[0].col + 4, "tags: expected at least one tag");
		for (int i = 1; i < n; i++) {
			struct scenario *s = p->cur;

			s->tags = xrealloc(s->tags, sizeof(char *) * (size_t)(s->ntags + 1));
			s->tags[s->ntags++] = tok_dup(&t[i]);
		}
	} else if (tok_is(&t[0], "requires")) {
		if (n < 2)
			diag(p, t[0].col + 8, "requires: expected a feature (kvm, vhost, tun, svm, vmx, tunguard)");
		for (int i = 1; i < n; i++) {
			size_t k;

			for (k = 0; k < ARRAY_SIZE(features); k++)
				if (tok_is(&t[i], features[k].name))
					break;
			if (k == ARRAY_SIZE(features))
				diag(p, t[i].col, "requires: unknown feature '%.*s': expected kvm, vhost, tun, svm, vmx or tunguard",
				     (int)t[i].len, t[i].s);
			else
				p->cur->requires |= features[k].bit;
		}
	} else if (tok_is(&t[0], "policy")) {
		struct scenario *sc = p->cur;
		const char *from, *to;
		char *old;
		static const char *const first[] = { "allow", "deny", "default", NULL };

		if (n < 2 || !one_of(&t[1], first)) {
			diag(p, n > 1 ? t[1].col : t[0].col + 6,
			     "policy: expected a tunguard rule ('allow ...', 'deny ...') or 'default allow|deny'");
			return;
		}
		from = t[1].s;
		to = t[n - 1].s + t[n - 1].len;
		old = sc->policy;
		sc->policy = xasprintf("%s%.*s\n", old ? old : "", (int)(to - from), from);
		free(old);
	} else if (tok_is(&t[0], "continues")) {
		if (n != 1)
			diag(p, t[1].col, "continues: takes no argument");
		else if (p->cur->index == 0)
			diag(p, t[0].col, "continues: the first scenario of a file has nothing to continue");
		else
			inherit_context(p->cur, &p->file->scenarios[p->cur->index - 1]);
	} else if (tok_is(&t[0], "netns")) {
		if (n != 2 || (!tok_is(&t[1], "init") && !tok_is(&t[1], "fresh"))) {
			diag(p, n > 1 ? t[1].col : t[0].col + 5,
			     "netns: expected 'fresh' (the default) or 'init'");
			return;
		}
		p->cur->init_netns = tok_is(&t[1], "init");
	} else if (tok_is(&t[0], "mode")) {
		static const char *const modes[] = { "enforce", "permissive", "off", NULL };

		if (n != 2 || !one_of(&t[1], modes)) {
			diag(p, n > 1 ? t[1].col : t[0].col + 4,
			     "mode: expected enforce, permissive or off");
			return;
		}
		free(p->cur->mode);
		p->cur->mode = tok_dup(&t[1]);
	} else if (tok_is(&t[0], "timeout")) {
		long v;
		char *val = n == 2 ? tok_dup(&t[1]) : NULL;

		if (!val || !parse_uint_range(val, 1, 3600, &v))
			diag(p, n > 1 ? t[1].col : t[0].col + 7,
			     "timeout: expected one number of seconds (1..3600)");
		else
			p->cur->timeout_s = (int)v;
		free(val);
	} else {
		parse_step(p, line, t, n);
	}
}

int scn_parse(const char *path, const char *text, struct scn_file *out,
	      struct scn_diags *diags)
{
	struct parser p = { .path = path, .diags = diags, .file = out };
	const char *s = text;

	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = xstrndup(s, len);

		p.line++;
		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		parse_line(&p, line);
		free(line);
		s += len;
		if (*s == '\n')
			s++;
	}
	p.line++;
	finish_scenario(&p);
	if (!out->nscenarios && !p.errors) {
		p.line = 1;
		diag(&p, 1, "no scenario in file: expected a 'scenario TITLE' line");
	}
	return p.errors ? -1 : 0;
}

int scn_parse_file(const char *path, struct scn_file *out, struct scn_diags *diags)
{
	struct parser p = { .path = path, .diags = diags };
	size_t len;
	char *text = read_file(path, &len);
	int ret;

	if (!text) {
		memset(out, 0, sizeof(*out));
		out->path = xstrdup(path);
		diag(&p, 0, "cannot read: %s", strerror(errno));
		return -1;
	}
	if (strlen(text) != len) {
		int line = 1;

		for (size_t i = 0; i < strlen(text); i++)
			line += text[i] == '\n';
		memset(out, 0, sizeof(*out));
		out->path = xstrdup(path);
		p.line = line;
		diag(&p, 1, "NUL byte in file: scenario files are text");
		free(text);
		return -1;
	}
	ret = scn_parse(path, text, out, diags);
	free(text);
	return ret;
}

void scn_file_free(struct scn_file *f)
{
	for (int i = 0; i < f->nscenarios; i++) {
		struct scenario *s = &f->scenarios[i];

		for (int j = 0; j < s->nsteps; j++) {
			for (int k = 0; k < s->steps[j].ndecisions; k++) {
				struct scn_decision *d = &s->steps[j].decisions[k];

				for (int f = 0; f < d->nfields; f++) {
					free(d->keys[f]);
					free(d->vals[f]);
				}
				free(d->op);
				free(d->verdict);
			}
			free(s->steps[j].decisions);
			for (int k = 0; k < s->steps[j].argc; k++)
				free(s->steps[j].argv[k]);
			free(s->steps[j].argv);
			free(s->steps[j].text);
		}
		for (int j = 0; j < s->ntags; j++)
			free(s->tags[j]);
		for (int j = 0; j < s->nhandles; j++)
			free(s->handles[j]);
		free(s->handles);
		free(s->procs);
		free(s->tags);
		free(s->policy);
		free(s->mode);
		free(s->steps);
		free(s->title);
		free(s->file);
	}
	free(f->scenarios);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

void scn_diags_print(const struct scn_diags *d, FILE *out)
{
	for (int i = 0; i < d->n; i++) {
		const struct scn_diag *e = &d->v[i];

		if (e->line)
			fprintf(out, "%s:%d:%d: error: %s\n", e->file, e->line, e->col, e->msg);
		else
			fprintf(out, "%s: error: %s\n", e->file, e->msg);
	}
}

void scn_diags_free(struct scn_diags *d)
{
	for (int i = 0; i < d->n; i++) {
		free(d->v[i].file);
		free(d->v[i].msg);
	}
	free(d->v);
	d->v = NULL;
	d->n = 0;
}
