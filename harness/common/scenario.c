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
#include "safetext.h"
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

	va_start(ap, fmt);
	sbuf_vprintf(&sb, fmt, ap);
	va_end(ap);

	d->v = xrealloc(d->v, sizeof(*d->v) * (size_t)(d->n + 1));
	e = &d->v[d->n++];
	e->file = xstrdup(p->path);
	e->line = p->line;
	e->col = col;
	/* the file's own bytes are quoted: never raw, never a whole long line */
	e->msg = safe_line(sb.buf);
	sbuf_free(&sb);
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

static const struct {
	const char *name;
	unsigned int bit;
} features[] = {
	{ "kvm", SCN_REQ_KVM }, { "vhost", SCN_REQ_VHOST },
	{ "tun", SCN_REQ_TUN }, { "svm", SCN_REQ_SVM },
	{ "vmx", SCN_REQ_VMX }, { "tunguard", SCN_REQ_TUNGUARD },
	{ "selinux", SCN_REQ_SELINUX },
	{ "linux-6.1", SCN_REQ_LINUX_6_1 }, { "linux-6.12", SCN_REQ_LINUX_6_12 },
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

int scn_ping_count(const struct scn_step *st)
{
	const char *count = scn_arg(st, "count");

	return count ? atoi(count) : SCN_PING_DEFAULT_COUNT;
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

static struct scn_actor *find_proc(struct scenario *sc, const char *s, size_t len)
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

static const char *const modes[] = { "enforce", "permissive", "off", NULL };

/* TUNSETIFF flags a create or an attach may name */
static const char *const tun_flags[] = { "multi_queue", "vnet_hdr", "napi", "napi_frags", NULL };

/* create|attach tun|tap NAME [options] */
static void check_create_attach(struct parser *p, enum scn_action act,
				const struct token *a, int n, int end_col)
{
	struct token v;

	check_type_and_name(p, scn_action_name(act), a, n, end_col);
	for (int i = 2; i < n; i++) {
		if (one_of(&a[i], tun_flags))
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
			     ? "create: unknown option '%.*s': expected persist, owner=UID, group=GID, multi_queue, vnet_hdr, napi, napi_frags, excl or keep=HANDLE"
			     : "attach: unknown option '%.*s': expected multi_queue, vnet_hdr, napi, napi_frags or keep=HANDLE",
			     (int)a[i].len, a[i].s);
	}
}

static void check_delete(struct parser *p, enum scn_action act,
			 const struct token *a, int n, int end_col)
{
	check_type_and_name(p, scn_action_name(act), a, n, end_col);
	for (int i = 2; i < n; i++)
		if (!tok_is(&a[i], "multi_queue"))
			diag(p, a[i].col, "delete: unknown option '%.*s': expected multi_queue",
			     (int)a[i].len, a[i].s);
}

/* tunguard policy RULE [; RULE...]: each rule starts with allow, deny or default */
static void check_tg_policy(struct parser *p, enum scn_action act,
			    const struct token *a, int n, int end_col)
{
	static const char *const first[] = { "allow", "deny", "default", NULL };
	bool rule_start = true;

	(void)act;
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
}

static void check_tg_mode(struct parser *p, enum scn_action act,
			  const struct token *a, int n, int end_col)
{
	(void)act;
	if (n != 1 || !one_of(&a[0], modes))
		diag(p, n ? a[0].col : end_col, "tunguard mode: expected enforce, permissive or off");
}

static void check_probe(struct parser *p, enum scn_action act,
			const struct token *a, int n, int end_col)
{
	static const char *const probes[] = { "ioeventfd", "irqfd", "realmode", NULL };

	(void)act;
	if (n < 1 || !one_of(&a[0], probes))
		diag(p, n ? a[0].col : end_col, "probe: expected ioeventfd, irqfd or realmode");
	for (int i = 1; i < n; i++)
		if (!tok_is(&a[i], "--wrong") && !tok_is(&a[i], "--bench"))
			diag(p, a[i].col, "probe: unknown option '%.*s': expected --bench or --wrong",
			     (int)a[i].len, a[i].s);
}

static void check_run(struct parser *p, enum scn_action act,
		      const struct token *a, int n, int end_col)
{
	(void)act;
	(void)a;
	if (n < 1)
		diag(p, end_col, "run: expected a program and its arguments, e.g. 'run /usr/lib/tunlab/kselftest/net/tun'");
}

static void check_close(struct parser *p, enum scn_action act,
			const struct token *a, int n, int end_col)
{
	(void)act;
	if (n != 1)
		diag(p, n ? a[1].col : end_col, "close: expected exactly one handle");
	else
		check_handle(p, &a[0]);
}

static void check_queue(struct parser *p, enum scn_action act,
			const struct token *a, int n, int end_col)
{
	(void)act;
	if (n != 2 || (!tok_is(&a[1], "attach") && !tok_is(&a[1], "detach"))) {
		diag(p, n > 1 ? a[1].col : end_col, "queue: expected 'queue HANDLE attach' or 'queue HANDLE detach'");
		return;
	}
	check_handle(p, &a[0]);
}

static bool on_off(const struct token *v)
{
	return (v->len == 2 && !memcmp(v->s, "on", 2)) || (v->len == 3 && !memcmp(v->s, "off", 3));
}

static void check_set(struct parser *p, enum scn_action act,
		      const struct token *a, int n, int end_col)
{
	struct token v;

	(void)act;
	if (n < 2) {
		diag(p, end_col, "set: expected a handle and persist=on|off, owner=UID or group=GID");
		return;
	}
	check_handle(p, &a[0]);
	for (int i = 1; i < n; i++) {
		if (kv(&a[i], "persist", &v)) {
			if (!on_off(&v))
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
}

static void check_send(struct parser *p, enum scn_action act,
		       const struct token *a, int n, int end_col)
{
	(void)act;
	if (n != 3 || !tok_is(&a[1], "to")) {
		diag(p, n > 1 ? a[1].col : end_col, "send: expected 'send HANDLE to PROCESS'");
		return;
	}
	check_handle(p, &a[0]);
	if (!find_proc(p->cur, a[2].s, a[2].len))
		diag(p, a[2].col, "send: no process '%.*s' in this scenario", (int)a[2].len, a[2].s);
}

static void check_link(struct parser *p, enum scn_action act,
		       const struct token *a, int n, int end_col)
{
	(void)act;
	if (n != 1 || !valid_ifname(&a[0]))
		diag(p, n ? a[n > 1 ? 1 : 0].col : end_col, "link: expected exactly one device name");
}

static void check_ip(struct parser *p, enum scn_action act,
		     const struct token *a, int n, int end_col)
{
	(void)act;
	(void)a;
	if (n < 1)
		diag(p, end_col, "ip: expected iproute2 arguments, e.g. 'ip tuntap add lab0 mode tap'");
}

/*
 * fd=PROC:H: the tap descriptor a named process holds, handed to QEMU as
 * libvirt does (-netdev tap,fd=N).
 */
static void check_boot_fd(struct parser *p, const struct token *v)
{
	const char *colon = memchr(v->s, ':', v->len);
	struct token h;

	if (!colon || !find_proc(p->cur, v->s, (size_t)(colon - v->s))) {
		diag(p, v->col, "l2 boot: fd= expects PROCESS:HANDLE of a named process of this scenario");
		return;
	}
	h = (struct token){ colon + 1, v->len - (size_t)(colon - v->s) - 1,
			    v->col + (int)(colon - v->s) + 1 };
	check_handle(p, &h);
}

/*
 * One option of l2 boot; the guest's tap options (net=, fd=, tap=) are
 * kept in @tap for check_l2_boot() to hold against the launcher.
 */
static void check_boot_option(struct parser *p, const struct token *a, const struct token **tap,
			      bool *libvirt, const struct token **ioeventfd)
{
	struct token v;

	if (kv(a, "net", &v) || kv(a, "tap", &v)) {
		if (!valid_ifname(&v))
			diag(p, v.col, "l2 boot: bad tap name '%.*s'", (int)v.len, v.s);
		if (*tap)
			diag(p, a->col, "l2 boot: one of net=, tap= or fd= names the guest's tap, not two");
		*tap = a;
	} else if (kv(a, "fd", &v)) {
		check_boot_fd(p, &v);
		if (*tap)
			diag(p, a->col, "l2 boot: one of net=, tap= or fd= names the guest's tap, not two");
		*tap = a;
	} else if (kv(a, "launcher", &v)) {
		*libvirt = v.len == 7 && !memcmp(v.s, "libvirt", 7);
		if (!*libvirt && !(v.len == 4 && !memcmp(v.s, "qemu", 4)))
			diag(p, v.col, "l2 boot: launcher must be 'qemu' or 'libvirt'");
	} else if (kv(a, "vhost", &v)) {
		if (!on_off(&v))
			diag(p, v.col, "l2 boot: vhost must be 'on' or 'off'");
	} else if (kv(a, "ioeventfd", &v)) {
		if (!on_off(&v))
			diag(p, v.col, "l2 boot: ioeventfd must be 'on' or 'off'");
		*ioeventfd = a;
	} else if (kv(a, "ip", &v)) {
		if (!valid_ipv4(v.s, v.len, true))
			diag(p, v.col, "l2 boot: bad address '%.*s': expected A.B.C.D/PREFIX",
			     (int)v.len, v.s);
	} else {
		diag(p, a->col,
		     "l2 boot: unknown option '%.*s': expected net=TAP, tap=NAME, fd=PROCESS:HANDLE, launcher=qemu|libvirt, vhost=on|off, ioeventfd=on|off or ip=A.B.C.D/PREFIX",
		     (int)a->len, a->s);
	}
}

/*
 * QEMU started by the executor takes an existing tap (net=) or a
 * descriptor (fd=); libvirt opens an existing tap (net=, managed='no') or
 * creates one (tap=), and hands QEMU the descriptor itself.
 */
static void check_l2_boot(struct parser *p, enum scn_action act,
			  const struct token *a, int n, int end_col)
{
	const struct token *tap = NULL, *ioeventfd = NULL;
	bool libvirt = false;

	(void)act;
	if (n < 1 || !valid_guest_name(&a[0])) {
		diag(p, n ? a[0].col : end_col,
		     "l2 boot: expected a VM name ([a-z0-9_-], at most 15 characters)");
		return;
	}
	for (int i = 1; i < n; i++)
		check_boot_option(p, &a[i], &tap, &libvirt, &ioeventfd);
	if (libvirt && ioeventfd)
		diag(p, ioeventfd->col,
		     "l2 boot: ioeventfd= is for a QEMU the executor starts; launcher=libvirt keeps libvirt's default");
	if (!tap)
		diag(p, end_col, libvirt ? "l2 boot: missing net=TAP (an existing tap) or tap=NAME (libvirt creates it)" :
			      "l2 boot: missing net=TAP or fd=PROCESS:HANDLE");
	else if (libvirt && !strncmp(tap->s, "fd=", 3))
		diag(p, tap->col, "l2 boot: launcher=libvirt opens the tap itself: net=TAP or tap=NAME, not fd=");
	else if (!libvirt && !strncmp(tap->s, "tap=", 4))
		diag(p, tap->col, "l2 boot: tap=NAME is for launcher=libvirt (libvirt creates the tap); QEMU takes net=TAP");
}

/*
 * path= is judged on counters per packet sent and per reply: over fewer
 * than SCN_PATH_MIN_PINGS pings a stray wakeup or exit would decide it.
 */
static void check_l2_ping(struct parser *p, enum scn_action act,
			  const struct token *a, int n, int end_col)
{
	const struct token *path = NULL;
	struct token v, count = { 0 };
	long cnt = SCN_PING_DEFAULT_COUNT;

	(void)act;
	if (n < 2) {
		diag(p, end_col, "l2 ping: expected a VM name and an IPv4 address");
		return;
	}
	if (!valid_ipv4(a[1].s, a[1].len, false))
		diag(p, a[1].col, "l2 ping: bad address '%.*s': expected A.B.C.D",
		     (int)a[1].len, a[1].s);
	for (int i = 2; i < n; i++) {
		char *val;

		if (kv(&a[i], "path", &v)) {
			if (!tok_is(&v, "vhost") && !tok_is(&v, "userspace"))
				diag(p, v.col, "l2 ping: path must be 'vhost' or 'userspace'");
			path = &a[i];
			continue;
		}
		if (!kv(&a[i], "count", &v)) {
			diag(p, a[i].col,
			     "l2 ping: unknown option '%.*s': expected count=N or path=vhost|userspace",
			     (int)a[i].len, a[i].s);
			continue;
		}
		count = v;
		val = tok_dup(&v);
		if (!parse_uint_range(val, 1, 100, &cnt)) {
			diag(p, v.col, "l2 ping: count must be 1..100");
			cnt = SCN_PATH_MIN_PINGS;
		}
		free(val);
	}
	if (path && cnt < SCN_PATH_MIN_PINGS)
		diag(p, count.s ? count.col : path->col,
		     "l2 ping: path= needs count=%d or more (its counters are judged per reply), not %ld",
		     SCN_PATH_MIN_PINGS, cnt);
}

static void check_l2_stop(struct parser *p, enum scn_action act,
			  const struct token *a, int n, int end_col)
{
	(void)act;
	(void)a;
	if (n != 1)
		diag(p, n ? a[1].col : end_col, "l2 stop: expected exactly one VM name");
}

/* What an action is called, how its words are checked, and what it allows. */
enum {
	ACT_KEEPS = 1 << 0,	/* keep=HANDLE: a named process keeps the descriptor */
	ACT_FRESH = 1 << 1,	/* runs as a fresh process, never a named one */
	ACT_GUEST = 1 << 2,	/* names a guest booted earlier */
};

typedef void (*check_fn)(struct parser *p, enum scn_action act, const struct token *a,
			 int n, int end_col);

static const struct action_spec {
	const char *name;	/* one word, or a group word and its second */
	check_fn check;
	unsigned int flags;
} actions[] = {
	[SCN_CREATE] = { "create", check_create_attach, ACT_KEEPS },
	[SCN_ATTACH] = { "attach", check_create_attach, ACT_KEEPS },
	[SCN_DELETE] = { "delete", check_delete, 0 },
	[SCN_LINK] = { "link", check_link, ACT_FRESH },
	[SCN_IP] = { "ip", check_ip, ACT_FRESH },
	[SCN_L2_BOOT] = { "l2 boot", check_l2_boot, ACT_FRESH },
	[SCN_L2_PING] = { "l2 ping", check_l2_ping, ACT_FRESH | ACT_GUEST },
	[SCN_L2_STOP] = { "l2 stop", check_l2_stop, ACT_FRESH | ACT_GUEST },
	[SCN_CLOSE] = { "close", check_close, 0 },
	[SCN_QUEUE] = { "queue", check_queue, 0 },
	[SCN_SET] = { "set", check_set, 0 },
	[SCN_SEND] = { "send", check_send, 0 },
	[SCN_TG_POLICY] = { "tunguard policy", check_tg_policy, ACT_FRESH },
	[SCN_TG_MODE] = { "tunguard mode", check_tg_mode, ACT_FRESH },
	[SCN_PROBE] = { "probe", check_probe, ACT_FRESH },
	[SCN_RUN] = { "run", check_run, ACT_FRESH },
};

/* Group words: an action of theirs needs a second word. */
static const struct {
	const char *word;
	const char *missing;		/* no second word */
	const char *unknown;		/* an unknown one; NULL: as @missing */
} groups[] = {
	{ "tunguard", "tunguard: expected 'policy RULE [; RULE...]' or 'mode enforce|permissive|off'",
	  NULL },
	{ "l2", "l2: expected 'boot', 'ping' or 'stop'",
	  "l2: unknown action '%.*s': expected boot, ping or stop" },
};

const char *scn_action_name(enum scn_action a)
{
	return actions[a].name;
}

/* @t is @name's word @part (0 or 1), @name being "word" or "word second". */
static bool tok_is_part(const struct token *t, const char *name, int part)
{
	const char *sp = strchr(name, ' ');
	const char *w = part ? (sp ? sp + 1 : NULL) : name;
	size_t len = part ? (w ? strlen(w) : 0) : (sp ? (size_t)(sp - name) : strlen(name));

	return w && t->len == len && !memcmp(t->s, w, len);
}

static int find_action(const struct token *w1, const struct token *w2)
{
	for (size_t k = 0; k < ARRAY_SIZE(actions); k++)
		if (tok_is_part(w1, actions[k].name, 0) &&
		    (!strchr(actions[k].name, ' ') || (w2 && tok_is_part(w2, actions[k].name, 1))))
			return (int)k;
	return -1;
}

/*
 * The action of the step whose words run from @t[i] to the arrow at @t[arrow];
 * its arguments start at *@argstart. -1 after a diagnostic.
 */
static int step_action(struct parser *p, const struct token *t, int i, int arrow, int *argstart)
{
	const struct token *w2 = i + 1 < arrow ? &t[i + 1] : NULL;
	int k = find_action(&t[i], w2);

	for (size_t g = 0; k < 0 && g < ARRAY_SIZE(groups); g++) {
		if (!tok_is(&t[i], groups[g].word))
			continue;
		if (!w2 || !groups[g].unknown)
			diag(p, w2 ? w2->col : t[i].col + (int)t[i].len, "%s", groups[g].missing);
		else
			diag(p, w2->col, groups[g].unknown, (int)w2->len, w2->s);
		return -1;
	}
	if (k < 0) {
		diag(p, t[i].col,
		     "unknown action '%.*s': expected create, attach, delete, link, ip, close, queue, set, send, tunguard, probe or l2",
		     (int)t[i].len, t[i].s);
		return -1;
	}
	*argstart = i + (strchr(actions[k].name, ' ') ? 2 : 1);
	return k;
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

enum decision_want { WANT_OP, WANT_VERDICT, WANT_FIELD };

static bool decision_op(struct parser *p, struct scn_step *st, const struct token *w)
{
	static const char *const ops[] = { "create", "open", "attach_queue", NULL };
	struct scn_decision *d;

	/* tunguard no longer decides on tun_dev_attach: say so, not "unknown" */
	if (tok_is(w, "attach")) {
		diag(p, w->col, "decision: tunguard records no 'attach': TUNSETIFF on a device is 'open', TUNSETQUEUE is 'attach_queue'");
		return false;
	}
	if (!one_of(w, ops)) {
		diag(p, w->col, "decision: unknown operation '%.*s': expected create, open or attach_queue",
		     (int)w->len, w->s);
		return false;
	}
	st->decisions = xrealloc(st->decisions, sizeof(*d) * (size_t)(st->ndecisions + 1));
	d = &st->decisions[st->ndecisions++];
	memset(d, 0, sizeof(*d));
	d->op = tok_dup(w);
	return true;
}

static bool decision_verdict(struct parser *p, struct scn_decision *d, const struct token *w)
{
	static const char *const verdicts[] = { "allow", "deny", NULL };

	if (!one_of(w, verdicts)) {
		diag(p, w->col, "decision: expected 'allow' or 'deny' after '%s', got '%.*s'",
		     d->op, (int)w->len, w->s);
		return false;
	}
	d->verdict = tok_dup(w);
	return true;
}

static bool decision_field(struct parser *p, struct scn_decision *d, const struct token *w)
{
	static const char *const keys[] = { "rule", "uid", "gid", "dev", "type", "mode",
					    "comm", NULL };
	const char *eq = memchr(w->s, '=', w->len);
	struct token k = { w->s, eq ? (size_t)(eq - w->s) : w->len, w->col };

	if (!eq || eq == w->s + w->len - 1 || !one_of(&k, keys)) {
		diag(p, w->col, "decision: bad field '%.*s': expected rule=, uid=, gid=, dev=, type=, mode= or comm= with a value, or ',' before the next record",
		     (int)w->len, w->s);
		return false;
	}
	if (d->nfields == SCN_MAX_DFIELDS) {
		diag(p, w->col, "decision: at most %d fields per record", SCN_MAX_DFIELDS);
		return false;
	}
	d->keys[d->nfields] = tok_dup(&k);
	d->vals[d->nfields++] = xstrndup(eq + 1, (size_t)(w->s + w->len - eq - 1));
	return true;
}

/* One word of a record, as what comes next; false after a diagnostic. */
static bool decision_word(struct parser *p, struct scn_step *st, const struct token *w,
			  enum decision_want *want)
{
	struct scn_decision *d = st->ndecisions ? &st->decisions[st->ndecisions - 1] : NULL;

	switch (*want) {
	case WANT_OP:
		*want = WANT_VERDICT;
		return decision_op(p, st, w);
	case WANT_VERDICT:
		*want = WANT_FIELD;
		return decision_verdict(p, d, w);
	case WANT_FIELD:
		break;
	}
	return decision_field(p, d, w);
}

/*
 * decision none | decision OP VERDICT [KEY=VALUE...] [, OP VERDICT ...]
 * A comma ends a record; it may stand alone or end a word.
 */
static void parse_decisions(struct parser *p, struct scn_step *st, struct token *t,
			    int n, int end_col)
{
	enum decision_want want = WANT_OP;

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
		if (w.len && !decision_word(p, st, &w, &want))
			return;
		if (comma && want != WANT_FIELD) {
			diag(p, w.col + (int)w.len, "decision: ',' before the record was complete (OP VERDICT)");
			return;
		}
		if (comma)
			want = WANT_OP;
	}
	if (want != WANT_FIELD)
		diag(p, t[n - 1].col + (int)t[n - 1].len,
		     "decision: the last record is incomplete: expected OP VERDICT");
}

/*
 * ctx=TYPE or ctx=USER:ROLE:TYPE[:LEVEL]: the SELinux context an actor
 * execs into. Whether the policy has it is for L1 to say (a setup error
 * naming the context); here only its shape is checked.
 */
static void parse_ctx(struct parser *p, const struct token *t, struct scn_actor *a)
{
	struct token v;
	int colons = 0;

	kv(t, "ctx", &v);
	for (size_t i = 0; i < v.len && colons >= 0; i++) {
		colons += v.s[i] == ':';
		if (!islower((unsigned char)v.s[i]) && !isdigit((unsigned char)v.s[i]) &&
		    !strchr("_:.,-", v.s[i]))
			colons = -1;
	}
	if (!v.len || v.len >= SCN_CTX_MAX || !islower((unsigned char)v.s[0]) || colons < 0 ||
	    colons == 1 || (colons == 0 && memchr(v.s, '.', v.len))) {
		diag(p, t->col, "bad context '%.*s': expected an SELinux type (ctx=tunlab_vmm_t) or user:role:type",
		     (int)t->len, t->s);
		return;
	}
	memcpy(a->ctx, v.s, v.len);
	a->ctx[v.len] = '\0';
	p->cur->requires |= SCN_REQ_SELINUX;
}

/*
 * The ctx= word after an actor. A named process starts in the context
 * its defining step gives and keeps it.
 */
static void step_ctx(struct parser *p, const struct token *who, const struct token *t,
		     struct scn_actor *actor)
{
	bool defines = memchr(who->s, '=', who->len) != NULL;
	struct scn_actor *proc;

	if (actor->proc[0] && !defines) {
		diag(p, t->col, "process '%s' keeps the context it started in: ctx= goes on its first step ('as %s=ACTOR ctx=...')",
		     actor->proc, actor->proc);
		return;
	}
	parse_ctx(p, t, actor);
	proc = actor->proc[0] ? find_proc(p->cur, actor->proc, strlen(actor->proc)) : NULL;
	if (proc)
		memcpy(proc->ctx, actor->ctx, sizeof(actor->ctx));
}

enum avc_want { WANT_AVC_VERDICT, WANT_OPEN, WANT_PERM, WANT_AVC_FIELD };

static bool avc_verdict(struct parser *p, struct scn_step *st, const struct token *w)
{
	static const char *const verdicts[] = { "denied", "granted", NULL };
	struct scn_avc *a;

	if (!one_of(w, verdicts)) {
		diag(p, w->col, "avc: unknown verdict '%.*s': expected denied or granted",
		     (int)w->len, w->s);
		return false;
	}
	st->avcs = xrealloc(st->avcs, sizeof(*a) * (size_t)(st->navcs + 1));
	a = &st->avcs[st->navcs++];
	memset(a, 0, sizeof(*a));
	a->verdict = tok_dup(w);
	return true;
}

/* A permission, or the '}' after them; @want moves on at the '}'. */
static bool avc_perm(struct parser *p, struct scn_avc *a, const struct token *w,
		     enum avc_want *want)
{
	if (tok_is(w, "}")) {
		if (!a->nperms) {
			diag(p, w->col, "avc: no permission between '{' and '}'");
			return false;
		}
		*want = WANT_AVC_FIELD;
		return true;
	}
	if (memchr(w->s, '=', w->len) || memchr(w->s, '{', w->len)) {
		diag(p, w->col, "avc: expected a permission or '}', got '%.*s'", (int)w->len, w->s);
		return false;
	}
	if (a->nperms == SCN_MAX_AVC_PERMS) {
		diag(p, w->col, "avc: at most %d permissions per record", SCN_MAX_AVC_PERMS);
		return false;
	}
	a->perms[a->nperms++] = tok_dup(w);
	return true;
}

static bool avc_field(struct parser *p, struct scn_avc *a, const struct token *w)
{
	static const char *const keys[] = { "tclass", "scontext", "tcontext", "permissive",
					    "comm", NULL };
	const char *eq = memchr(w->s, '=', w->len);
	struct token k = { w->s, eq ? (size_t)(eq - w->s) : w->len, w->col };

	if (!eq || eq == w->s + w->len - 1 || !one_of(&k, keys)) {
		diag(p, w->col, "avc: bad field '%.*s': expected tclass=, scontext=, tcontext=, permissive= or comm= with a value, or ',' before the next record",
		     (int)w->len, w->s);
		return false;
	}
	if (a->nfields == SCN_MAX_DFIELDS) {
		diag(p, w->col, "avc: at most %d fields per record", SCN_MAX_DFIELDS);
		return false;
	}
	a->keys[a->nfields] = tok_dup(&k);
	a->vals[a->nfields++] = xstrndup(eq + 1, (size_t)(w->s + w->len - eq - 1));
	return true;
}

/* One word of an AVC record, as what comes next; false after a diagnostic. */
static bool avc_word(struct parser *p, struct scn_step *st, const struct token *w,
		     enum avc_want *want)
{
	struct scn_avc *a = st->navcs ? &st->avcs[st->navcs - 1] : NULL;

	switch (*want) {
	case WANT_AVC_VERDICT:
		*want = WANT_OPEN;
		return avc_verdict(p, st, w);
	case WANT_OPEN:
		if (!tok_is(w, "{")) {
			diag(p, w->col, "avc: expected '{' after '%s', got '%.*s'", a->verdict,
			     (int)w->len, w->s);
			return false;
		}
		*want = WANT_PERM;
		return true;
	case WANT_PERM:
		return avc_perm(p, a, w, want);
	case WANT_AVC_FIELD:
		break;
	}
	return avc_field(p, a, w);
}

/*
 * avc none | avc VERDICT { PERM... } [KEY=VALUE...] [, VERDICT { ... } ...]
 * The braces are words of their own, as in the kernel's records; a comma
 * ends a record, standing alone or ending a word.
 */
static void parse_avcs(struct parser *p, struct scn_step *st, struct token *t, int n,
		       int end_col)
{
	enum avc_want want = WANT_AVC_VERDICT;

	st->check_avcs = true;
	p->cur->requires |= SCN_REQ_SELINUX;
	if (n == 1 && tok_is(&t[0], "none"))
		return;
	if (!n) {
		diag(p, end_col, "avc: expected 'none' or VERDICT { PERM... } (e.g. 'avc denied { create } tclass=tun_socket')");
		return;
	}
	for (int i = 0; i < n; i++) {
		struct token w = t[i];
		bool comma = w.len && w.s[w.len - 1] == ',';

		if (comma)
			w.len--;
		if (w.len && !avc_word(p, st, &w, &want))
			return;
		if (comma && want != WANT_AVC_FIELD) {
			diag(p, w.col + (int)w.len, "avc: ',' before the record was complete (VERDICT { PERM... })");
			return;
		}
		if (comma)
			want = WANT_AVC_VERDICT;
	}
	if (want == WANT_PERM)
		diag(p, t[n - 1].col + (int)t[n - 1].len, "avc: missing '}' after the permissions");
	else if (want != WANT_AVC_FIELD)
		diag(p, t[n - 1].col + (int)t[n - 1].len,
		     "avc: the last record is incomplete: expected VERDICT { PERM... }");
}

/*
 * not-ok NAME...: the tests of a run step's TAP output that must end "not
 * ok", and no other (the program's own names, e.g. tun.reattach_close_delete).
 */
static void parse_not_ok(struct parser *p, struct scn_step *st, const struct token *clause,
			 struct token *t, int n)
{
	if (st->action != SCN_RUN) {
		diag(p, clause->col, "not-ok: only a run step has TAP tests to name");
		return;
	}
	if (st->nnot_ok || n == 0) {
		diag(p, n ? clause->col : clause->col + 6,
		     n ? "not-ok: given twice in one step" : "not-ok: expected the names of the tests that must fail");
		return;
	}
	if (st->expect != SCN_EXPECT_FAIL)
		diag(p, clause->col, "not-ok: failing tests make the step '=> fail'");
	st->not_ok = xcalloc((size_t)n, sizeof(char *));
	for (int k = 0; k < n; k++)
		st->not_ok[st->nnot_ok++] = tok_dup(&t[k]);
}

static bool clause_word(const struct token *t)
{
	return tok_is(t, "avc") || tok_is(t, "decision") || tok_is(t, "not-ok");
}

/*
 * What follows the expectation: a decision clause, an avc clause, a
 * not-ok clause (run steps), in any order, or nothing. Each clause runs to
 * the next one.
 */
static void step_clauses(struct parser *p, struct scn_step *st, struct token *t, int n)
{
	for (int i = 0, end; i < n; i = end) {
		bool avc = tok_is(&t[i], "avc");

		if (!clause_word(&t[i])) {
			diag(p, t[i].col, "unexpected '%.*s' after the expectation: expected 'decision ...', 'avc ...', 'not-ok ...' or the end of the step",
			     (int)t[i].len, t[i].s);
			return;
		}
		for (end = i + 1; end < n; end++)
			if (clause_word(&t[end]))
				break;
		if (tok_is(&t[i], "not-ok")) {
			parse_not_ok(p, st, &t[i], &t[i + 1], end - i - 1);
			continue;
		}
		if (avc ? st->check_avcs : st->check_decisions) {
			diag(p, t[i].col, "%s: given twice in one step", avc ? "avc" : "decision");
			return;
		}
		if (avc)
			parse_avcs(p, st, &t[i + 1], end - i - 1, t[i].col + 3);
		else
			parse_decisions(p, st, &t[i + 1], end - i - 1, t[i].col + 8);
	}
}

/* [as ACTOR [ctx=CONTEXT]]: the index of the word after it, or -1 after a diagnostic. */
static int step_actor(struct parser *p, const struct token *t, int n, int end_col,
		      struct scn_actor *actor)
{
	actor->root = true;
	if (!tok_is(&t[0], "as"))
		return 0;
	if (n < 2) {
		diag(p, end_col, "expected an actor after 'as' (root or UID[:GID[,GID...]])");
		return -1;
	}
	parse_actor(p, &t[1], actor);
	if (n < 3 || strncmp(t[2].s, "ctx=", 4))
		return 2;
	step_ctx(p, &t[1], &t[2], actor);
	return 3;
}

/* The "=>" after an action, or -1 after a diagnostic. */
static int step_arrow(struct parser *p, const struct token *t, int i, int n, int end_col)
{
	for (int k = i; k < n; k++) {
		if (!tok_is(&t[k], "=>"))
			continue;
		if (k == i) {
			diag(p, t[k].col, "expected an action before '=>'");
			return -1;
		}
		return k;
	}
	diag(p, end_col, "missing expectation: expected '=> ok', '=> fail' or '=> ERRNO' at the end of the step");
	return -1;
}

/* => ok | fail | ERRNO [decision ...] [avc ...] */
static void step_expectation(struct parser *p, struct scn_step *st, struct token *t,
			     int arrow, int n)
{
	const struct token *e = &t[arrow + 1];
	char *name;

	if (arrow + 1 >= n) {
		diag(p, t[arrow].col + 2, "expected 'ok', 'fail' or an errno name (EPERM, EBUSY, ...) after '=>'");
		return;
	}
	if (tok_is(e, "ok")) {
		st->expect = SCN_EXPECT_OK;
	} else if (tok_is(e, "fail")) {
		st->expect = SCN_EXPECT_FAIL;
	} else {
		name = tok_dup(e);
		st->expect = SCN_EXPECT_ERRNO;
		st->expect_errno = errno_from_name(name);
		if (st->expect_errno < 0)
			diag(p, e->col, "unknown expectation '%s': expected 'ok', 'fail' or an errno name such as EPERM",
			     name);
		free(name);
	}
	step_clauses(p, st, &t[arrow + 2], n - arrow - 2);
}

/* What the action allows of its actor: keep= needs a named process, some run fresh. */
static void step_actor_fits(struct parser *p, const struct scn_step *st, const struct token *t,
			    int argstart, int arrow)
{
	unsigned int flags = actions[st->action].flags;
	struct token v;

	for (int k = argstart; k < arrow && (flags & ACT_KEEPS); k++)
		if (kv(&t[k], "keep", &v) && !st->actor.proc[0])
			diag(p, t[k].col, "keep=%.*s needs a named process to keep it: 'as NAME=ACTOR'",
			     (int)v.len, v.s);
	if ((flags & ACT_FRESH) && st->actor.proc[0])
		diag(p, t[1].col, "%s runs as a fresh process: name an actor, not a process",
		     scn_action_name(st->action));
}

/* Handles the step keeps become known to the steps after it. */
static void step_add_handles(struct scenario *s, const struct scn_step *st,
			     const struct token *t, int argstart, int arrow)
{
	struct token v;

	if (!(actions[st->action].flags & ACT_KEEPS))
		return;
	for (int k = argstart; k < arrow; k++) {
		if (kv(&t[k], "keep", &v) && !handle_known(s, &v)) {
			s->handles = xrealloc(s->handles, sizeof(char *) * (size_t)(s->nhandles + 1));
			s->handles[s->nhandles++] = tok_dup(&v);
		}
	}
}

/* The valid step joins its scenario with its arguments and its text. */
static void step_store(struct scenario *s, struct scn_step *st, const struct token *t, int n,
		       int argstart, int arrow)
{
	char *raw;

	st->argc = arrow - argstart;
	st->argv = xcalloc((size_t)st->argc + 1, sizeof(char *));
	for (int k = 0; k < st->argc; k++)
		st->argv[k] = tok_dup(&t[argstart + k]);
	/* for reports and the terminal: the step as written, safe to echo */
	raw = xstrndup(t[0].s, (size_t)(t[n - 1].s + t[n - 1].len - t[0].s));
	st->text = safe_line(raw);
	free(raw);
	s->steps = xrealloc(s->steps, sizeof(*s->steps) * (size_t)(s->nsteps + 1));
	s->steps[s->nsteps++] = *st;
}

static void decisions_free(struct scn_step *st)
{
	for (int k = 0; k < st->ndecisions; k++) {
		struct scn_decision *d = &st->decisions[k];

		for (int f = 0; f < d->nfields; f++) {
			free(d->keys[f]);
			free(d->vals[f]);
		}
		free(d->op);
		free(d->verdict);
	}
	free(st->decisions);
	for (int k = 0; k < st->navcs; k++) {
		struct scn_avc *a = &st->avcs[k];

		for (int f = 0; f < a->nfields; f++) {
			free(a->keys[f]);
			free(a->vals[f]);
		}
		for (int f = 0; f < a->nperms; f++)
			free(a->perms[f]);
		free(a->verdict);
	}
	free(st->avcs);
	for (int k = 0; k < st->nnot_ok; k++)
		free(st->not_ok[k]);
	free(st->not_ok);
}

/* [as ACTOR [ctx=CONTEXT]] ACTION ARGS... => EXPECT [decision ...] [avc ...] */
static void parse_step(struct parser *p, const char *line, struct token *t, int n)
{
	struct scn_step st = { .line = p->line };
	int errors = p->errors, end_col = (int)strlen(line) + 1;
	int i, arrow, action = -1, argstart = 0;

	i = step_actor(p, t, n, end_col, &st.actor);
	if (i >= 0)
		arrow = step_arrow(p, t, i, n, end_col);
	if (i >= 0 && arrow >= 0)
		action = step_action(p, t, i, arrow, &argstart);
	if (action < 0)
		return;
	st.action = (enum scn_action)action;
	actions[st.action].check(p, st.action, &t[argstart], arrow - argstart, t[arrow].col);
	if ((actions[st.action].flags & ACT_GUEST) && arrow > argstart)
		check_guest_known(p, p->cur, &t[argstart]);
	step_expectation(p, &st, t, arrow, n);
	step_actor_fits(p, &st, t, argstart, arrow);
	if (p->errors != errors) {
		decisions_free(&st);
		return;
	}
	step_add_handles(p->cur, &st, t, argstart, arrow);
	step_store(p->cur, &st, t, n, argstart, arrow);
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

static void parse_directive_scenario(struct parser *p, const struct token *t, int n)
{
	struct scn_file *f = p->file;
	struct scenario *s;
	const char *from, *to;
	char *raw;

	finish_scenario(p);
	if (n < 2) {
		diag(p, t[0].col + (int)t[0].len, "scenario: expected a title");
		p->cur = NULL;
		return;
	}
	from = t[1].s;
	to = t[n - 1].s + t[n - 1].len;
	f->scenarios = xrealloc(f->scenarios, sizeof(*f->scenarios) * (size_t)(f->nscenarios + 1));
	s = &f->scenarios[f->nscenarios];
	memset(s, 0, sizeof(*s));
	s->file = xstrdup(p->path);
	s->line = p->line;
	s->index = f->nscenarios++;
	raw = xstrndup(from, (size_t)(to - from));
	s->title = safe_line(raw);
	free(raw);
	p->cur = s;
	p->errors_at_scenario = p->errors;
}

static void directive_tags(struct parser *p, const struct token *t, int n)
{
	struct scenario *s = p->cur;

	if (n < 2)
		diag(p, t[0].col + 4, "tags: expected at least one tag");
	for (int i = 1; i < n; i++) {
		s->tags = xrealloc(s->tags, sizeof(char *) * (size_t)(s->ntags + 1));
		s->tags[s->ntags++] = tok_dup(&t[i]);
	}
}

static void directive_requires(struct parser *p, const struct token *t, int n)
{
	if (n < 2)
		diag(p, t[0].col + 8, "requires: expected a feature (kvm, vhost, tun, svm, vmx, tunguard, selinux, linux-6.1, linux-6.12)");
	for (int i = 1; i < n; i++) {
		size_t k;

		for (k = 0; k < ARRAY_SIZE(features); k++)
			if (tok_is(&t[i], features[k].name))
				break;
		if (k == ARRAY_SIZE(features))
			diag(p, t[i].col, "requires: unknown feature '%.*s': expected kvm, vhost, tun, svm, vmx, tunguard, selinux, linux-6.1 or linux-6.12",
			     (int)t[i].len, t[i].s);
		else
			p->cur->requires |= features[k].bit;
	}
}

/* policy RULE: one line of the tunguard policy the scenario starts with */
static void directive_policy(struct parser *p, const struct token *t, int n)
{
	static const char *const first[] = { "allow", "deny", "default", NULL };
	struct scenario *sc = p->cur;
	char *old = sc->policy;

	if (n < 2 || !one_of(&t[1], first)) {
		diag(p, n > 1 ? t[1].col : t[0].col + 6,
		     "policy: expected a tunguard rule ('allow ...', 'deny ...') or 'default allow|deny'");
		return;
	}
	sc->policy = xasprintf("%s%.*s\n", old ? old : "",
			       (int)(t[n - 1].s + t[n - 1].len - t[1].s), t[1].s);
	free(old);
}

static void directive_continues(struct parser *p, const struct token *t, int n)
{
	if (n != 1)
		diag(p, t[1].col, "continues: takes no argument");
	else if (p->cur->index == 0)
		diag(p, t[0].col, "continues: the first scenario of a file has nothing to continue");
	else if (p->cur->continues)
		/* a second copy of the context would double it down the chain */
		diag(p, t[0].col, "continues: given twice in one scenario");
	else
		inherit_context(p->cur, &p->file->scenarios[p->cur->index - 1]);
}

static void directive_netns(struct parser *p, const struct token *t, int n)
{
	if (n != 2 || (!tok_is(&t[1], "init") && !tok_is(&t[1], "fresh"))) {
		diag(p, n > 1 ? t[1].col : t[0].col + 5,
		     "netns: expected 'fresh' (the default) or 'init'");
		return;
	}
	p->cur->init_netns = tok_is(&t[1], "init");
}

static void directive_mode(struct parser *p, const struct token *t, int n)
{
	if (n != 2 || !one_of(&t[1], modes)) {
		diag(p, n > 1 ? t[1].col : t[0].col + 4,
		     "mode: expected enforce, permissive or off");
		return;
	}
	free(p->cur->mode);
	p->cur->mode = tok_dup(&t[1]);
}

/* selinux enforcing|permissive: the SELinux mode the scenario runs in */
static void directive_selinux(struct parser *p, const struct token *t, int n)
{
	static const char *const se_modes[] = { "enforcing", "permissive", NULL };

	if (n != 2 || !one_of(&t[1], se_modes)) {
		diag(p, n > 1 ? t[1].col : t[0].col + 7, "selinux: expected enforcing or permissive");
		return;
	}
	free(p->cur->selinux_mode);
	p->cur->selinux_mode = tok_dup(&t[1]);
	p->cur->requires |= SCN_REQ_SELINUX;
}

/* lsm A,B: the scenario holds only with the modules in that order */
static void directive_lsm(struct parser *p, const struct token *t, int n)
{
	static const char *const orders[] = { "tunguard,selinux", "selinux,tunguard", NULL };

	if (n != 2 || !one_of(&t[1], orders)) {
		diag(p, n > 1 ? t[1].col : t[0].col + 3,
		     "lsm: expected the order the scenario needs, tunguard,selinux or selinux,tunguard");
		return;
	}
	free(p->cur->lsm_order);
	p->cur->lsm_order = tok_dup(&t[1]);
	p->cur->requires |= SCN_REQ_SELINUX | SCN_REQ_TUNGUARD;
}

static void directive_timeout(struct parser *p, const struct token *t, int n)
{
	char *val = n == 2 ? tok_dup(&t[1]) : NULL;
	long v;

	if (!val || !parse_uint_range(val, 1, 3600, &v))
		diag(p, n > 1 ? t[1].col : t[0].col + 7,
		     "timeout: expected one number of seconds (1..3600)");
	else
		p->cur->timeout_s = (int)v;
	free(val);
}

/* The lines of a scenario that are not steps. */
static const struct {
	const char *word;
	void (*parse)(struct parser *p, const struct token *t, int n);
} directives[] = {
	{ "tags", directive_tags }, { "requires", directive_requires },
	{ "policy", directive_policy }, { "continues", directive_continues },
	{ "netns", directive_netns }, { "mode", directive_mode },
	{ "timeout", directive_timeout }, { "selinux", directive_selinux },
	{ "lsm", directive_lsm },
};

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
		parse_directive_scenario(p, t, n);
		return;
	}
	if (!p->cur) {
		diag(p, t[0].col, "'%.*s' outside a scenario: a file starts with 'scenario TITLE'",
		     (int)t[0].len, t[0].s);
		return;
	}
	for (size_t k = 0; k < ARRAY_SIZE(directives); k++) {
		if (tok_is(&t[0], directives[k].word)) {
			directives[k].parse(p, t, n);
			return;
		}
	}
	parse_step(p, line, t, n);
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
			decisions_free(&s->steps[j]);
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
		free(s->selinux_mode);
		free(s->lsm_order);
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
