// SPDX-License-Identifier: GPL-2.0
/*
 * SELinux in L1 (selinux.h). AVC records come from the kernel's audit
 * stream with the executor registered as the audit daemon (audit.c),
 * never from the console, where printk's rate limit drops them.
 * Contexts are entered the way runcon -t and libvirt do it: this
 * process's context with the type replaced, written to
 * /proc/self/attr/exec, in force from the next execve().
 */
#include "selinux.h"
#include "avc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SELINUX_ENFORCE SELINUX_FS "/enforce"

bool selinux_has_policy(void)
{
	/* selinuxfs lists the classes of the loaded policy; ours has TUN's */
	return access(SELINUX_FS "/class/tun_socket", F_OK) == 0;
}

static int enforce_get(void)
{
	char *s = read_file(SELINUX_ENFORCE, NULL);
	int v = s ? s[0] == '1' : -1;

	free(s);
	return v;
}

static int enforce_set(bool enforcing, struct sbuf *why)
{
	if (write_string(SELINUX_ENFORCE, enforcing ? "1" : "0") < 0) {
		sbuf_printf(why, "%swrite(%s, %d): %s", why->len ? "; " : "", SELINUX_ENFORCE,
			    enforcing, strerror(errno));
		return -1;
	}
	return 0;
}

void se_state_load(struct se_state *se, unsigned int have)
{
	memset(se, 0, sizeof(*se));
	se->audit.fd = -1;
	se->lane_mode = kernel_cmdline_value("tunlab.selinux");
	se->lsm = read_file("/sys/kernel/security/lsm", NULL);
	se->boot_enforce = enforce_get();
	if (!(have & SCN_REQ_SELINUX))
		snprintf(se->audit_error, sizeof(se->audit_error), "SELinux has no policy in this L1");
	else
		audit_open(&se->audit, se->audit_error, sizeof(se->audit_error));
}

void se_state_free(struct se_state *se)
{
	audit_close(&se->audit);
	free(se->lane_mode);
	free(se->lsm);
}

enum tl_result se_missing(const struct se_state *se, unsigned int missing, struct sbuf *why)
{
	if (!(missing & SCN_REQ_SELINUX) || !se->lane_mode)
		return TL_SKIP;
	sbuf_printf(why, ", though tunlab.selinux=%s asked for it (no policy loaded: see the L1 console)",
		    se->lane_mode);
	return TL_ERROR;
}

enum tl_result se_scenario_begin(const struct se_state *se, const struct scenario *sc,
				 unsigned int have, bool *changed, struct sbuf *why)
{
	bool forced = se->lane_mode && !strcmp(se->lane_mode, "permissive");
	const char *mode = forced ? se->lane_mode : sc->selinux_mode;

	if (sc->lsm_order && !lsm_order_holds(sc->lsm_order, se->lsm ? se->lsm : "")) {
		sbuf_printf(why, "lsm %s: this L1's modules are in another order (%.*s)",
			    sc->lsm_order, se->lsm ? (int)strcspn(se->lsm, "\n") : 7,
			    se->lsm ? se->lsm : "unknown");
		return TL_SKIP;
	}
	if (!mode || !(have & SCN_REQ_SELINUX))
		return TL_PASS;
	*changed = true;
	return enforce_set(!strcmp(mode, "enforcing"), why) < 0 ? TL_ERROR : TL_PASS;
}

void se_restore(const struct se_state *se, struct sbuf *why)
{
	if (enforce_set(se->boot_enforce == 1, why) < 0)
		sbuf_puts(why, " (restoring SELinux's mode)");
}

int se_step_begin(struct se_state *se, struct sbuf *msg)
{
	char err[256];

	if (se->audit_error[0]) {
		sbuf_printf(msg, "no AVC records to check: %s", se->audit_error);
		return -1;
	}
	/* what is queued now is not the step's: read it and drop it */
	if (audit_sync(&se->audit, NULL, err, sizeof(err)) < 0) {
		sbuf_printf(msg, "before the step: %s", err);
		return -1;
	}
	return 0;
}

static void describe_expected(const struct scn_step *st, struct sbuf *out)
{
	if (!st->navcs)
		sbuf_puts(out, "none");
	for (int i = 0; i < st->navcs; i++) {
		const struct scn_avc *a = &st->avcs[i];

		sbuf_printf(out, "%s%s {", i ? ", " : "", a->verdict);
		for (int p = 0; p < a->nperms; p++)
			sbuf_printf(out, " %s", a->perms[p]);
		sbuf_puts(out, " }");
		for (int f = 0; f < a->nfields; f++)
			sbuf_printf(out, " %s=%s", a->keys[f], a->vals[f]);
	}
}

/* The records must be exactly the expected ones, in order. */
static bool records_match(const struct scn_step *st, char *records, struct sbuf *seen)
{
	char *save, *line;
	int n = 0;
	bool ok = true;

	for (line = strtok_r(records, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		if (n >= st->navcs || !avc_matches(&st->avcs[n], line))
			ok = false;
		sbuf_printf(seen, "\n  record: %s", line);
	}
	return ok && n == st->navcs;
}

enum tl_result se_check_step(struct se_state *se, const struct scn_step *st, char **records,
			     const char *sep, struct sbuf *msg)
{
	struct sbuf made = { 0 }, seen = { 0 };
	char err[256], *all;
	bool ok;

	sbuf_puts(&made, "");
	sbuf_puts(&seen, "");
	if (audit_sync(&se->audit, &made, err, sizeof(err)) < 0) {
		sbuf_printf(msg, "%safter the step: %s", sep, err);
		sbuf_free(&made);
		return TL_ERROR;
	}
	/* reported beside tunguard's records, one line each */
	all = xasprintf("%s%s%s", *records ? *records : "",
			*records && **records && made.len ? "\n" : "", made.buf);
	free(*records);
	*records = all;
	ok = records_match(st, made.buf, &seen);
	if (!ok) {
		sbuf_printf(msg, "%savc: expected ", sep);
		describe_expected(st, msg);
		sbuf_printf(msg, "; seen %s%s", seen.len ? "" : "none", seen.buf);
	}
	sbuf_free(&made);
	sbuf_free(&seen);
	return ok ? TL_PASS : TL_FAIL;
}

int selinux_exec_context(const char *ctx, char *why, size_t size)
{
	char *cur = NULL, full[SCN_CTX_MAX * 2];
	int ret = -1;

	if (strchr(ctx, ':')) {
		snprintf(full, sizeof(full), "%s", ctx);
	} else {
		/* user:role:type[:level]: keep ours, put the actor's type in */
		char *c1, *c2, *c3;

		cur = read_file("/proc/self/attr/current", NULL);
		if (!cur) {
			snprintf(why, size, "read /proc/self/attr/current: %s", strerror(errno));
			return -1;
		}
		cur[strcspn(cur, "\n")] = '\0';
		c1 = strchr(cur, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2) {
			snprintf(why, size, "ctx=%s: this process's context '%s' has no type to replace",
				 ctx, cur);
			goto out;
		}
		c3 = strchr(c2 + 1, ':');
		snprintf(full, sizeof(full), "%.*s:%s%s", (int)(c2 - cur), cur, ctx, c3 ? c3 : "");
	}
	if (write_string("/proc/self/attr/exec", full) < 0) {
		if (errno == EINVAL)
			snprintf(why, size, "ctx=%s: context %s is not defined by L1's SELinux policy (write /proc/self/attr/exec: %s)",
				 ctx, full, strerror(errno));
		else
			snprintf(why, size, "ctx=%s: write /proc/self/attr/exec (%s): %s", ctx, full,
				 strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(cur);
	return ret;
}

