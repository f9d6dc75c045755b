// SPDX-License-Identifier: GPL-2.0
/*
 * The policy fuzzer: random policies and mutations of valid ones
 * (truncation, byte flips, stray tokens, splices, huge and nested globs,
 * every limit and one past it) written to the policy file while other
 * processes create and attach devices and read the decision records.
 * For every write the model says whether the kernel must take it; the
 * policy read back must then be the model's canonical text, or, after a
 * refusal, the old policy byte for byte.
 */
#include "tgstress.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/if_tun.h>

#define REPORT_MAX	5	/* mismatches shown in full, per kind */

static const char *const fuzz_names[] = {
	"fz0", "fz1", "fzd00", "fzd10", "tap0", "vm0", "a", "fzdddddddddddd0",
	"fz*", "fzd?0", "*", "[!a]*", "fz[0-9]", "\\*", "fz[]]", "*d*d*", "fz#1", "[^f]*",
};

static const uint32_t fuzz_ids[] = { 0, 1, 999, 1000, 1001, 65534, 100000, 4294967294u };

static const struct vocab fuzz_vocab = {
	fuzz_names, sizeof(fuzz_names) / sizeof(fuzz_names[0]),
	fuzz_ids, sizeof(fuzz_ids) / sizeof(fuzz_ids[0]),
};

enum kind { K_VALID, K_TRUNCATED, K_FLIPPED, K_TOKEN, K_VALUE, K_SPLICED, K_LIMIT, K_RANDOM,
	    K_COUNT };

static const char *const kind_names[K_COUNT] = {
	"valid", "truncated", "byte-flipped", "stray token", "odd value", "spliced", "limit",
	"random bytes",
};

/* Values at and around what each field takes, for a valid rule's field. */
static const char *const id_values[] = {
	"4294967293", "4294967294", "4294967295", "4294967296", "18446744073709551615",
	"18446744073709551616", "99999999999999999999", "0", "00", "01", "-1", "+1", "1-0",
	"0-4294967294", "0-4294967295", "4294967294-4294967294", "0x10", "1-", "-", "1--2",
	"1-2-3", "", " 1", "1.0", "\x31",
};

static const struct {
	const char *field;
	const char *values[12];
} field_values[] = {
	{ "cap", { "net_admin", "!net_admin", "!!net_admin", "NET_ADMIN", "!", "", "net_admin!",
		   "net_raw", NULL } },
	{ "userns", { "init", "child", "Init", "initial", "", "child\\", NULL } },
	{ "type", { "tun", "tap", "none", "TAP", "", "tuntap", NULL } },
	{ "mq", { "yes", "no", "Yes", "1", "", "yes,no", NULL } },
	{ "netns", { "init", "other", "", "others", "init\\", NULL } },
	{ "creator", { "yes", "no", "y", "", "noo", NULL } },
	{ "name", { "fzdecimal01234", "fzdecimal012345", "fzdecimal0123456", "a/b", "a:b", "\\",
		    "[", "[]", "*\\", "fz\\0", "\\x00", NULL } },
};

/* Bytes and words the parser gives meaning to: the likeliest to confuse it. */
static const char special_bytes[] = { 0, '\n', '#', ' ', '\t', '\r', '=', ',', '-',
				      '*', '?', '[', ']', '!', '\\', '/', ':', '0', '9',
				      (char)0x80, (char)0xff, '\v' };

static const char *const tokens[] = {
	"allow", "deny", "default", "any", "create", "open,attach", "attach_queue",
	"create,create", ",", ",open", "=", "uid=", "gid=0-", "uid=01", "uid=4294967295",
	"gid=4294967294", "uid=2-1", "cap=net_admin", "cap=!", "userns=init", "type=tun",
	"type=none", "name=", "name=fz*", "name=a/b", "name=a:b", "mq=yes", "netns=other",
	"creator=no", "creator=yes", "#", "\n", "\n\n", "\t", "\r", "default allow\n",
	"default deny\n", "unknown=1", "uid=1 uid=2", "\\", "*", "[", "[!", "]",
};

static void gen_valid(struct rng *r, struct sbuf *t)
{
	uint32_t n = rng_chance(r, 50) ? rng_below(r, 400) : rng_below(r, 12);

	gen_policy(r, &fuzz_vocab, n, t);
}

static void mutate_flip(struct rng *r, struct sbuf *t)
{
	uint32_t n = 1 + rng_below(r, 4);

	if (!t->len)
		return;
	for (uint32_t i = 0; i < n; i++) {
		size_t at = rng_below(r, (uint32_t)t->len);

		if (rng_chance(r, 3))
			t->buf[at] ^= (char)(1u << rng_below(r, 8));
		else
			t->buf[at] = special_bytes[rng_below(r, sizeof(special_bytes))];
	}
}

static void insert_at(struct sbuf *t, size_t at, const char *s, size_t len)
{
	struct sbuf out = { 0 };

	sbuf_add(&out, t->buf, at);
	sbuf_add(&out, s, len);
	sbuf_add(&out, t->buf + at, t->len - at);
	sbuf_free(t);
	*t = out;
}

static void mutate_token(struct rng *r, struct sbuf *t)
{
	const char *tok = tokens[rng_below(r, sizeof(tokens) / sizeof(tokens[0]))];
	size_t at = t->len ? rng_below(r, (uint32_t)t->len + 1) : 0;
	char buf[64];

	/* mostly as a separate word, sometimes glued to its neighbours */
	snprintf(buf, sizeof(buf), rng_chance(r, 3) ? "%s" : " %s ", tok);
	insert_at(t, at, buf, strlen(buf));
}

/* Replace the value of one field=value of the text with an odd one. */
static void mutate_value(struct rng *r, struct sbuf *t)
{
	struct sbuf out = { 0 };
	const char *eq = NULL, *key, *end, *v = NULL;
	uint32_t n = 0, pick;

	for (const char *p = strchr(t->buf, '='); p; p = strchr(p + 1, '='))
		n++;
	if (!n)
		return;
	pick = rng_below(r, n);
	for (eq = strchr(t->buf, '='); pick--; eq = strchr(eq + 1, '='))
		;
	for (key = eq; key > t->buf && !strchr(" \t\r\n", key[-1]); key--)
		;
	end = eq + 1 + strcspn(eq + 1, " \t\r\n");
	if (!strncmp(key, "uid=", 4) || !strncmp(key, "gid=", 4))
		v = id_values[rng_below(r, sizeof(id_values) / sizeof(id_values[0]))];
	for (size_t i = 0; !v && i < sizeof(field_values) / sizeof(field_values[0]); i++) {
		size_t kl = strlen(field_values[i].field), nv = 0;

		if (strncmp(key, field_values[i].field, kl) || key + kl != eq)
			continue;
		while (field_values[i].values[nv])
			nv++;
		v = field_values[i].values[rng_below(r, (uint32_t)nv)];
	}
	if (!v)
		v = id_values[rng_below(r, sizeof(id_values) / sizeof(id_values[0]))];
	sbuf_add(&out, t->buf, (size_t)(eq + 1 - t->buf));
	if (!strcmp(v, "\\x00"))
		sbuf_add(&out, "", 1);	/* a NUL inside a value */
	else
		sbuf_add(&out, v, strlen(v));
	sbuf_add(&out, end, t->len - (size_t)(end - t->buf));
	sbuf_free(t);
	*t = out;
}

static void mutate_splice(struct rng *r, struct sbuf *t)
{
	struct sbuf other = { 0 }, out = { 0 };
	size_t a, b;

	switch (rng_below(r, 3)) {
	case 0:		/* the head of one valid policy on the tail of another */
		gen_valid(r, &other);
		a = rng_below(r, (uint32_t)t->len + 1);
		b = rng_below(r, (uint32_t)other.len + 1);
		sbuf_add(&out, t->buf, a);
		sbuf_add(&out, other.buf + b, other.len - b);
		break;
	case 1:		/* a second default line */
		sbuf_add(&out, t->buf, t->len);
		sbuf_printf(&out, "default %s\n", rng_chance(r, 2) ? "allow" : "deny");
		break;
	default: {	/* the default line taken out */
		const char *d = strstr(t->buf, "default ");
		const char *end = d ? strchr(d, '\n') : NULL;

		if (!d || !end) {
			sbuf_add(&out, t->buf, t->len);
			break;
		}
		sbuf_add(&out, t->buf, (size_t)(d - t->buf));
		sbuf_add(&out, end + 1, t->len - (size_t)(end + 1 - t->buf));
	}
	}
	sbuf_free(&other);
	sbuf_free(t);
	*t = out;
}

/* A glob pattern of exactly @len bytes, made of one repeated motif. */
static void put_glob(struct rng *r, struct sbuf *t, size_t len)
{
	static const char *const motifs[] = { "*", "?", "[", "[!", "[]", "[[]]", "\\*", "*?",
					      "[a-z]", "[!]]", "fz*", "\\", "[*", "*]" };
	const char *m = motifs[rng_below(r, sizeof(motifs) / sizeof(motifs[0]))];
	size_t ml = strlen(m), start = t->len;

	while (t->len - start < len)
		sbuf_add(t, m, ml < len - (t->len - start) ? ml : len - (t->len - start));
	/* a motif without a glob character makes a literal: keep it a glob */
	if (!strpbrk(t->buf + start, "*?[\\"))
		t->buf[start] = '*';
}

static void gen_limit(struct rng *r, struct sbuf *t)
{
	static const char *const ops[] = {
		"create,create", "any,create", "create,", ",create", "open,,attach", "any,any",
		"attach_queue,attach,open,create", "ANY", "create;open", "attach_queue,attach_queue",
	};
	int off = (int)rng_below(r, 3) - 1;	/* the limit, one below, one above */
	size_t n;

	switch (rng_below(r, 7)) {
	case 0:		/* rule count */
		n = (size_t)(TGM_MAX_RULES + off);
		for (size_t i = 0; i < n; i++)
			sbuf_printf(t, "deny open name=fz%zu\n", i);
		sbuf_add(t, "default allow\n", 14);
		break;
	case 1:		/* text size, padded with a comment */
		n = (size_t)(TGM_MAX_TEXT + off);
		sbuf_add(t, "default allow\n#", 15);
		while (t->len < n - 1)
			sbuf_add(t, "#", 1);
		sbuf_add(t, "\n", 1);
		break;
	case 2:		/* ids */
		sbuf_printf(t, "allow any %s=%s\ndefault deny\n", rng_chance(r, 2) ? "uid" : "gid",
			    id_values[rng_below(r, sizeof(id_values) / sizeof(id_values[0]))]);
		break;
	case 3:		/* literal names */
		n = (size_t)(TGM_NAME_MAX + off);
		sbuf_add(t, "deny create name=", 17);
		for (size_t i = 0; i < n; i++)
			sbuf_add(t, "fzdecimal0123456789" + i % 19, 1);
		sbuf_add(t, "\ndefault allow\n", 15);
		break;
	case 4:		/* globs, huge and nested */
		sbuf_add(t, "deny any name=", 14);
		put_glob(r, t, (size_t)(TGM_GLOB_MAX + off));
		sbuf_add(t, "\ndefault allow\n", 15);
		break;
	case 6:		/* operation lists */
		sbuf_printf(t, "deny %s\ndefault allow\n", ops[rng_below(r, sizeof(ops) / sizeof(ops[0]))]);
		break;
	default:	/* a glob far past the limit */
		sbuf_add(t, "deny any name=", 14);
		put_glob(r, t, 200 + rng_below(r, 4000));
		sbuf_add(t, "\ndefault allow\n", 15);
		break;
	}
}

static enum kind make_case(struct rng *r, const struct sbuf *base, struct sbuf *t)
{
	uint32_t dice = rng_below(r, 100);

	t->len = 0;
	if (dice < 20) {
		gen_valid(r, t);
		return K_VALID;
	}
	if (dice < 95)
		sbuf_add(t, base->buf, base->len);
	if (dice < 35) {
		t->len = rng_below(r, (uint32_t)t->len + 1);
		return K_TRUNCATED;
	}
	if (dice < 60) {
		mutate_flip(r, t);
		return K_FLIPPED;
	}
	if (dice < 70) {
		mutate_token(r, t);
		return K_TOKEN;
	}
	if (dice < 80) {
		mutate_value(r, t);
		return K_VALUE;
	}
	if (dice < 90) {
		mutate_splice(r, t);
		return K_SPLICED;
	}
	if (dice < 95) {
		t->len = 0;
		gen_limit(r, t);
		return K_LIMIT;
	}
	for (uint32_t i = 0, n = 1 + rng_below(r, 200); i < n; i++) {
		char c = rng_chance(r, 2) ? (char)(0x20 + rng_below(r, 95)) : (char)rng_next(r);

		sbuf_add(t, &c, 1);
	}
	return K_RANDOM;
}

/* ---- decisions in parallel ---------------------------------------------- */

struct decider_stats {
	volatile int stop;
	unsigned long ops[8];
	unsigned long records[8];
	unsigned long unexpected[8];
	int first_unexpected[8];
	char unexpected_what[8][64];
};

static void note_err(struct decider_stats *st, int id, int err, const char *what)
{
	if (!err || err == -EACCES || err == -EBUSY)
		return;
	if (!st->unexpected[id]++) {
		st->first_unexpected[id] = -err;
		snprintf(st->unexpected_what[id], sizeof(st->unexpected_what[id]), "%s", what);
	}
}

/* Create a multiqueue tap, re-attach a queue, attach a second file, close. */
static void decider(struct decider_stats *st, int id)
{
	char name[16];
	int j = 0;

	while (!st->stop) {
		int a = open(TUN_PATH, O_RDWR), b = open(TUN_PATH, O_RDWR), err;

		snprintf(name, sizeof(name), "fzd%d%d", id, j++ % 2);
		err = tun_setiff(a, name, IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE);
		note_err(st, id, err, "TUNSETIFF create");
		if (!err) {
			note_err(st, id, tun_setqueue(a, IFF_DETACH_QUEUE), "TUNSETQUEUE detach");
			note_err(st, id, tun_setqueue(a, IFF_ATTACH_QUEUE), "TUNSETQUEUE attach");
			note_err(st, id, tun_setiff(b, name, IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE),
				 "TUNSETIFF attach");
		}
		close(b);
		close(a);
		st->ops[id]++;
	}
	_exit(0);
}

/* Read the decision records as fast as they come: a reader beside the writers. */
static void record_reader(struct decider_stats *st, int id)
{
	int fd = open(TG_DECISIONS, O_RDONLY);
	static char buf[1 << 16];
	ssize_t n;

	while (!st->stop) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			note_err(st, id, -errno, "read decisions");
			break;
		}
		for (ssize_t i = 0; i < n; i++)
			st->records[id] += buf[i] == '\n';
		if (!n)
			usleep(1000);
	}
	close(fd);
	_exit(0);
}

/* ---- the fuzz loop ------------------------------------------------------ */

/* How often each of the model's refusal reasons came up: the paths reached. */
struct reasons {
	const char *why[32];
	unsigned long n[32];
	int count;
};

static void count_reason(struct reasons *rs, const char *why)
{
	int i;

	for (i = 0; i < rs->count && strcmp(rs->why[i], why); i++)
		;
	if (i == rs->count) {
		if (rs->count == 32)
			return;
		rs->why[rs->count++] = why;
	}
	rs->n[i]++;
}

void run_fuzz(const struct fuzz_opts *o, struct ktest *t)
{
	unsigned long tried[K_COUNT] = { 0 }, taken[K_COUNT] = { 0 };
	unsigned long disagree = 0, not_kept = 0, not_canonical = 0, efbig = 0;
	unsigned long total = 0, total_taken = 0, ops = 0, unexpected = 0;
	struct reasons reasons = { 0 };
	struct decider_stats *st;
	struct rng r = { o->seed | 1 };
	struct sbuf base = { 0 }, text = { 0 };
	pid_t pids[8];
	int nproc = o->deciders + 1, fd;
	char *current;
	size_t current_len;
	double t0 = now_ms(), next_note = t0 + 30000;

	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fd = open(TG_POLICY, O_WRONLY | O_CLOEXEC);
	current = read_file(TG_POLICY, &current_len);
	if (st == MAP_FAILED || fd < 0 || !current || tg_set_mode("enforce")) {
		ktest_broken(t, "opening %s and setting enforce mode: %s", TG_POLICY, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(current);
		return;
	}
	memset((void *)st, 0, sizeof(*st));
	for (int i = 0; i < nproc; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			if (i < o->deciders)
				decider(st, i);
			record_reader(st, i);
		}
	}

	gen_valid(&r, &base);
	for (unsigned long i = 0; i < o->policies; i++) {
		struct tgm_policy model;
		struct tgm_verdict v;
		enum kind k = make_case(&r, &base, &text);
		char *back, *want = NULL;
		size_t back_len;
		int err;

		if (k == K_VALID) {
			base.len = 0;
			sbuf_add(&base, text.buf, text.len);
		}
		tried[k]++;
		v = tgm_parse(text.buf, text.len, &model);
		if (v.err)
			count_reason(&reasons, v.reason);
		err = tg_write(fd, text.buf, text.len);
		back = read_file(TG_POLICY, &back_len);
		if (!back) {
			ktest_broken(t, "reading %s back: %s", TG_POLICY, strerror(errno));
			tgm_free(&model);
			break;
		}
		efbig += err == -EFBIG;
		taken[k] += !err;
		if (err != -v.err) {
			if (disagree++ < REPORT_MAX) {
				ktest_diag(t, "case %lu (%s): the kernel %s it, the model %s%s (line %u)",
					   i, kind_names[k], err ? strerrorname_np(-err) : "takes",
					   v.err ? "refuses it: " : "takes it", v.err ? v.reason : "", v.line);
				show(t, "policy", text.buf, text.len);
			}
		} else if (!err) {
			want = tgm_canonical(&model);
			if (strcmp(want, back) && not_canonical++ < REPORT_MAX) {
				ktest_diag(t, "case %lu (%s): read back differs from the canonical form",
					   i, kind_names[k]);
				show(t, "written", text.buf, text.len);
				show(t, "read back", back, back_len);
				show(t, "model", want, strlen(want));
			}
		}
		if (err && (back_len != current_len || memcmp(back, current, current_len))) {
			if (not_kept++ < REPORT_MAX) {
				ktest_diag(t, "case %lu (%s) refused (%s), but the policy changed",
					   i, kind_names[k], strerrorname_np(-err));
				show(t, "before", current, current_len);
				show(t, "after", back, back_len);
			}
		}
		free(want);
		free(current);
		current = back;
		current_len = back_len;
		tgm_free(&model);
		if (now_ms() >= next_note) {
			progress("policy_fuzz: %lu policies in %.0f s", i + 1, (now_ms() - t0) / 1000);
			next_note += 30000;
		}
	}

	st->stop = 1;
	for (int i = 0; i < nproc; i++)
		waitpid(pids[i], NULL, 0);
	tg_write(fd, TG_BOOT_POLICY, strlen(TG_BOOT_POLICY));
	close(fd);

	for (int k = 0; k < K_COUNT; k++) {
		total += tried[k];
		total_taken += taken[k];
		ktest_diag(t, "%-13s %7lu written, %7lu taken", kind_names[k], tried[k], taken[k]);
	}
	ktest_diag(t, "%lu policies in %.1f s: %lu taken, %lu refused (%lu EFBIG)",
		   total, (now_ms() - t0) / 1000, total_taken, total - total_taken, efbig);
	ktest_diag(t, "%d ways to refuse a policy reached:", reasons.count);
	for (int i = 0; i < reasons.count; i++)
		ktest_diag(t, "  %7lu %s", reasons.n[i], reasons.why[i]);
	for (int i = 0; i < o->deciders; i++)
		ops += st->ops[i];
	ktest_diag(t, "meanwhile %d processes ran %lu create/queue/attach cycles, "
		   "a reader read %lu decision records", o->deciders, ops, st->records[o->deciders]);
	for (int i = 0; i < nproc; i++) {
		if (!st->unexpected[i])
			continue;
		unexpected++;
		ktest_diag(t, "process %d: %lu unexpected errors, the first: %s: %s", i,
			   st->unexpected[i], st->unexpected_what[i],
			   strerrorname_np(st->first_unexpected[i]));
	}

	ktest_check(t, !disagree, "the kernel takes exactly the policies the model takes");
	ktest_check(t, !not_kept, "a refused write leaves the old policy, byte for byte");
	ktest_check(t, !not_canonical, "a policy taken reads back in the model's canonical form");
	ktest_check(t, !unexpected && ops > 0, "decisions ran in parallel without unexpected errors");
	sbuf_free(&text);
	sbuf_free(&base);
	free(current);
	munmap(st, sizeof(*st));
}
