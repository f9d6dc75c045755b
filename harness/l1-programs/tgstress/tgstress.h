/* SPDX-License-Identifier: GPL-2.0 */
/* tgstress: the tunguard policy fuzzer and the soak, run inside L1. */
#ifndef TGSTRESS_H
#define TGSTRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "common/util.h"
#include "l1-programs/lib/ktest.h"

#define TG_DIR		"/sys/kernel/security/tunguard"
#define TG_POLICY	TG_DIR "/policy"
#define TG_MODE		TG_DIR "/mode"
#define TG_DECISIONS	TG_DIR "/decisions"
#define TUN_PATH	"/dev/net/tun"
#define TG_BOOT_POLICY	"default allow\n"

/* ---- random numbers (xorshift64*: the same seed, the same policies) ---- */
struct rng {
	uint64_t s;
};

uint64_t rng_next(struct rng *r);
/* uniform in 0..n-1 (n > 0) */
uint32_t rng_below(struct rng *r, uint32_t n);
bool rng_chance(struct rng *r, uint32_t one_in);

/* ---- policies: what may appear in them ---- */
struct vocab {
	const char *const *names;	/* literal names and globs */
	size_t nnames;
	const uint32_t *ids;		/* uid and gid values */
	size_t nids;
};

/* A rule in valid syntax, not necessarily canonical (order, spacing). */
void gen_rule(struct rng *r, const struct vocab *v, struct sbuf *t);
/* A valid policy of @nrules rules with its default somewhere in it. */
void gen_policy(struct rng *r, const struct vocab *v, size_t nrules, struct sbuf *t);

/* ---- the kernel's files ---- */
/* The whole @len bytes in one write at offset 0: 0 or -errno. */
int tg_write(int fd, const char *buf, size_t len);
/* Replace the policy: 0 or -errno. */
int tg_set_policy(const char *text, size_t len);
int tg_set_mode(const char *mode);
/* TUNSETIFF / TUNSETQUEUE: 0 or -errno */
int tun_setiff(int fd, const char *name, int flags);
int tun_setqueue(int fd, int flags);

/* A top-level "# ..." line, printed at once: progress of a long run. */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* @len bytes of a policy or record as one printable line, cut when long. */
void show(struct ktest *t, const char *what, const char *s, size_t len);

struct fuzz_opts {
	unsigned long policies;
	uint64_t seed;
	int deciders;
};

struct soak_opts {
	double seconds;
	uint64_t seed;
};

/* Each adds its checks and diagnostics to @t. */
void run_fuzz(const struct fuzz_opts *o, struct ktest *t);
void run_soak(const struct soak_opts *o, struct ktest *t);

#endif
