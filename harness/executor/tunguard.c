// SPDX-License-Identifier: GPL-2.0
/*
 * tunguard as the executor sees it: the policy and mode a scenario asks
 * for (and those in force before it, restored after), a step that writes
 * them as its actor, and the decision log a step's records are read from
 * and checked against what the step expects.
 */
#include "tunguard.h"
#include "outcome.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

/* The kernel's last tunguard message, which names a bad policy line. */
static void tg_last_log(struct sbuf *out)
{
	int size = klogctl(10, NULL, 0);
	char *buf, *line = NULL, *p;

	if (size <= 0)
		return;
	buf = xmalloc((size_t)size + 1);
	size = klogctl(3, buf, size);
	buf[size > 0 ? size : 0] = '\0';
	for (p = strstr(buf, "tunguard"); p; p = strstr(p + 1, "tunguard"))
		line = p;
	if (line)
		sbuf_printf(out, ": kernel says \"%.*s\"", (int)strcspn(line, "\n"), line);
	free(buf);
}

int tg_apply(const char *policy, const char *mode, struct sbuf *why)
{
	if (policy && write_string(TG_DIR "/policy", policy) < 0) {
		sbuf_printf(why, "writing the tunguard policy: %s", strerror(errno));
		tg_last_log(why);
		return -1;
	}
	if (mode && write_string(TG_DIR "/mode", mode) < 0) {
		sbuf_printf(why, "setting tunguard mode %s: %s", mode, strerror(errno));
		return -1;
	}
	return 0;
}

void tg_state_load(struct tg_state *tg)
{
	tg->boot_policy = read_file(TG_DIR "/policy", NULL);
	tg->boot_mode = read_file(TG_DIR "/mode", NULL);
	tg->force_mode = kernel_cmdline_value("tunlab.tgmode");
}

void tg_state_free(struct tg_state *tg)
{
	free(tg->boot_policy);
	free(tg->boot_mode);
	free(tg->force_mode);
}

long long tg_position(void)
{
	int fd = open(TG_DIR "/decisions", O_RDONLY | O_CLOEXEC);
	off_t pos;

	if (fd < 0)
		return -errno;
	pos = lseek(fd, 0, SEEK_END);
	if (pos < 0)
		pos = -errno;
	close(fd);
	return pos;
}

/* Records after sequence @pos, one line each. */
static char *tg_records_after(long long pos)
{
	int fd = open(TG_DIR "/decisions", O_RDONLY | O_CLOEXEC);
	struct sbuf sb = { 0 };
	char buf[4096];
	ssize_t n;

	sbuf_puts(&sb, "");
	if (fd < 0)
		return sb.buf;
	if (lseek(fd, pos, SEEK_SET) >= 0)
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			sbuf_add(&sb, buf, (size_t)n);
	close(fd);
	return sb.buf;
}

/* The value of KEY in a "k=v k=v" record line. */
static bool record_field(const char *rec, const char *key, char *val, size_t size)
{
	size_t kl = strlen(key);

	for (const char *p = rec; p && *p; p = strchr(p, ' '), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(val, size, "%.*s", (int)strcspn(p + kl + 1, " \n"), p + kl + 1);
			return true;
		}
	}
	return false;
}

static bool decision_matches(const struct scn_decision *d, const char *rec)
{
	char v[64];

	if (!record_field(rec, "op", v, sizeof(v)) || strcmp(v, d->op))
		return false;
	if (!record_field(rec, "verdict", v, sizeof(v)) || strcmp(v, d->verdict))
		return false;
	for (int i = 0; i < d->nfields; i++)
		if (!record_field(rec, d->keys[i], v, sizeof(v)) || strcmp(v, d->vals[i]))
			return false;
	return true;
}

static void describe_expected(const struct scn_step *st, struct sbuf *out)
{
	if (!st->ndecisions)
		sbuf_puts(out, "none");
	for (int i = 0; i < st->ndecisions; i++) {
		const struct scn_decision *d = &st->decisions[i];

		sbuf_printf(out, "%s%s %s", i ? ", " : "", d->op, d->verdict);
		for (int f = 0; f < d->nfields; f++)
			sbuf_printf(out, " %s=%s", d->keys[f], d->vals[f]);
	}
}

/*
 * The records a step produced must be exactly the expected ones, in order:
 * a missing record and an unexpected one both fail the step.
 */
static bool records_match(const struct scn_step *st, char *records, struct sbuf *msg)
{
	char *save, *line;
	int n = 0;
	bool ok = true;

	for (line = strtok_r(records, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		if (n >= st->ndecisions || !decision_matches(&st->decisions[n], line))
			ok = false;
		sbuf_printf(msg, "\n  record: %s", line);
	}
	if (n != st->ndecisions)
		ok = false;
	return ok;
}

bool tg_check_step(const struct scn_step *st, long long pos, char **records,
		   const char *sep, struct sbuf *msg)
{
	struct sbuf seen = { 0 };
	char *made = pos >= 0 ? tg_records_after(pos) : xstrdup("");
	bool ok;

	*records = xstrdup(made);
	sbuf_puts(&seen, "");
	ok = pos >= 0 && records_match(st, made, &seen);
	free(made);
	if (!ok) {
		sbuf_printf(msg, "%sdecisions: expected ", sep);
		describe_expected(st, msg);
		sbuf_printf(msg, "; seen %s%s", seen.len ? "" : "none", seen.buf);
		if (pos < 0)
			sbuf_printf(msg, " (cannot read " TG_DIR "/decisions: %s)",
				    strerror((int)-pos));
	}
	sbuf_free(&seen);
	return ok;
}

bool uses_tunguard_steps(const struct scenario *sc)
{
	for (int i = 0; i < sc->nsteps; i++)
		if (sc->steps[i].action == SCN_TG_POLICY || sc->steps[i].action == SCN_TG_MODE)
			return true;
	return false;
}

/* tunguard policy/mode: one write, as the actor (CAP_MAC_ADMIN decides). */
void tunguard_step(const struct scn_step *st, struct outcome *oc)
{
	const char *file = st->action == SCN_TG_MODE ? TG_DIR "/mode" : TG_DIR "/policy";
	struct sbuf text = { 0 };
	int fd;

	sbuf_puts(&text, "");
	for (int i = 0; i < st->argc; i++) {
		const char *w = st->argv[i];
		size_t len = strlen(w);
		bool ends = len && w[len - 1] == ';';

		if (!strcmp(w, ";")) {
			sbuf_puts(&text, "\n");
			continue;
		}
		if (text.len && text.buf[text.len - 1] != '\n')
			sbuf_puts(&text, " ");
		sbuf_add(&text, w, ends ? len - 1 : len);
		if (ends)
			sbuf_puts(&text, "\n");
	}
	if (!text.len || text.buf[text.len - 1] != '\n')
		sbuf_puts(&text, "\n");
	outcome_set(oc, 0, "write(%s)", file);
	fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, text.buf, text.len) != (ssize_t)text.len)
		oc->err = errno;
	if (fd >= 0 && close(fd) < 0 && !oc->err)
		oc->err = errno;
	sbuf_free(&text);
}
