// SPDX-License-Identifier: GPL-2.0
/* Random valid tunguard policies, written the way an administrator might. */
#include "tgstress.h"

#include <string.h>

uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)((rng_next(r) >> 32) % n);
}

bool rng_chance(struct rng *r, uint32_t one_in)
{
	return rng_below(r, one_in) == 0;
}

/* Blanks between words: mostly one space, sometimes tabs and runs. */
static const char *gap(struct rng *r)
{
	static const char *const gaps[] = { " ", " ", " ", " ", "\t", "  ", " \t ", "\r " };

	return gaps[rng_below(r, sizeof(gaps) / sizeof(gaps[0]))];
}

static void gen_ops(struct rng *r, struct sbuf *t)
{
	unsigned int order[TGM_NOPS] = { 0, 1, 2 }, used = 0;
	const char *sep = "";

	if (rng_chance(r, 5)) {
		sbuf_puts(t, "any");
		return;
	}
	for (int i = TGM_NOPS - 1; i > 0; i--) {
		uint32_t j = rng_below(r, (uint32_t)i + 1), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for (int i = 0; i < TGM_NOPS; i++) {
		if (used && rng_chance(r, 2))
			continue;
		sbuf_printf(t, "%s%s", sep, tgm_op_names[order[i]]);
		sep = ",";
		used++;
	}
}

static void gen_range(struct rng *r, const struct vocab *v, struct sbuf *t, const char *key)
{
	uint32_t a = v->ids[rng_below(r, (uint32_t)v->nids)];
	uint32_t b = v->ids[rng_below(r, (uint32_t)v->nids)];

	if (rng_chance(r, 2) || a == b)
		sbuf_printf(t, "%s=%u", key, a);
	else
		sbuf_printf(t, "%s=%u-%u", key, a < b ? a : b, a < b ? b : a);
}

void gen_rule(struct rng *r, const struct vocab *v, struct sbuf *t)
{
	unsigned int order[9] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	uint32_t nfields = rng_below(r, 5);

	/* a comment is a line of its own, its '#' after blanks or not */
	if (rng_chance(r, 10))
		sbuf_printf(t, "%s# a comment, # and all\n", gap(r));
	sbuf_printf(t, "%s%s", rng_chance(r, 2) ? "allow" : "deny", gap(r));
	gen_ops(r, t);
	for (int i = 8; i > 0; i--) {
		uint32_t j = rng_below(r, (uint32_t)i + 1), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for (uint32_t i = 0; i < nfields; i++) {
		sbuf_printf(t, "%s", gap(r));
		switch (order[i]) {
		case 0: gen_range(r, v, t, "uid"); break;
		case 1: gen_range(r, v, t, "gid"); break;
		case 2: sbuf_printf(t, "cap=%snet_admin", rng_chance(r, 2) ? "!" : ""); break;
		case 3: sbuf_printf(t, "userns=%s", rng_chance(r, 2) ? "init" : "child"); break;
		case 4: sbuf_printf(t, "type=%s", rng_chance(r, 2) ? "tun" : "tap"); break;
		case 5: sbuf_printf(t, "name=%s", v->names[rng_below(r, (uint32_t)v->nnames)]); break;
		case 6: sbuf_printf(t, "mq=%s", rng_chance(r, 2) ? "yes" : "no"); break;
		case 7: sbuf_printf(t, "netns=%s", rng_chance(r, 2) ? "init" : "other"); break;
		default: sbuf_printf(t, "creator=%s", rng_chance(r, 2) ? "yes" : "no"); break;
		}
	}
}

void gen_policy(struct rng *r, const struct vocab *v, size_t nrules, struct sbuf *t)
{
	size_t at = rng_below(r, (uint32_t)nrules + 1);

	for (size_t i = 0; i <= nrules; i++) {
		if (i == at)
			sbuf_printf(t, "default %s\n", rng_chance(r, 2) ? "allow" : "deny");
		if (i < nrules) {
			gen_rule(r, v, t);
			sbuf_add(t, "\n", 1);
		}
		if (rng_chance(r, 20))
			sbuf_printf(t, "%s\n", rng_chance(r, 2) ? "" : "# a comment line");
	}
}
