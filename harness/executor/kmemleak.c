// SPDX-License-Identifier: GPL-2.0
/*
 * Kmemleak scans at the edges of the run. The kernel scans only when asked
 * (debug.extra leaves its thread off), so what it reports is tied to this
 * run: "clear" at the start sets aside what boot left, and at the end
 * every object still unreferenced is a leak of the lab's doing.
 */
#include "kmemleak.h"
#include "common/ktap.h"
#include "common/proto.h"
#include "common/verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KMEMLEAK "/sys/kernel/debug/kmemleak"
/* kmemleak reports no object younger than 5 s: let the last ones age */
#define KMEMLEAK_MIN_AGE_S 6
/* lines of each leak's report kept in the suite's diagnostics */
#define KMEMLEAK_LINES_PER_LEAK 14
#define KMEMLEAK_MAX_SHOWN 10

static double t_start;

/* Scan, and return the report of what is unreferenced now (NULL: no kmemleak). */
static char *scan(void)
{
	/* a second scan: an object whose contents changed is only grey in the first */
	if (write_string(KMEMLEAK, "scan") < 0 || write_string(KMEMLEAK, "scan") < 0)
		return NULL;
	return read_file(KMEMLEAK, NULL);
}

int kmemleak_count(struct sbuf *ktap, const char *report, bool only_ours, int *ours)
{
	const char *p = report;
	int n = 0, shown = 0;

	*ours = 0;
	while ((p = strstr(p, "unreferenced object"))) {
		const char *next = strstr(p + 1, "unreferenced object");
		size_t len = next ? (size_t)(next - p) : strlen(p);
		char *block = xstrndup(p, len);
		bool mine = strstr(block, "tunguard") || strstr(block, "tg_") ||
			    strstr(block, "tun_") || strstr(block, "/tun.c");

		n++;
		*ours += mine;
		if ((mine || !only_ours) && shown++ < KMEMLEAK_MAX_SHOWN) {
			char *save, *line = strtok_r(block, "\n", &save);

			for (int i = 0; line && i < KMEMLEAK_LINES_PER_LEAK; i++) {
				ktap_diag(ktap, 1, line);
				line = strtok_r(NULL, "\n", &save);
			}
		}
		free(block);
		p += len;
	}
	return n;
}

bool kmemleak_begin(struct sbuf *ktap)
{
	char *report;
	int n, ours;

	if (access(KMEMLEAK, R_OK | W_OK))
		return false;
	t_start = now_ms();
	report = scan();
	if (!report) {
		ktap_diagf(ktap, 1, "scanning %s at the start: %s", KMEMLEAK, strerror(errno));
		ktap_result(ktap, 1, false, 1, "boot leaves no leak of TUN or tunguard", NULL, NULL);
		return true;
	}
	n = kmemleak_count(ktap, report, true, &ours);
	ktap_diagf(ktap, 1, "at the start: %d object%s unreferenced since boot, %d of TUN or tunguard%s",
		   n, n == 1 ? "" : "s", ours, n ? "; the others are set aside" : "");
	ktap_result(ktap, 1, ours == 0, 1, "boot leaves no leak of TUN or tunguard", NULL, NULL);
	free(report);
	if (write_string(KMEMLEAK, "clear") < 0)
		ktap_diagf(ktap, 1, "writing 'clear' to %s: %s", KMEMLEAK, strerror(errno));
	return true;
}

void kmemleak_end(struct exec_ctx *x, struct sbuf *ktap)
{
	struct sbuf head = { 0 };
	char *report, *save, *line, ms[32];
	int n = 0, ours = 0;
	double t0 = now_ms(), age = (t0 - t_start) / 1000;
	bool failed;

	if (age < KMEMLEAK_MIN_AGE_S)
		sleep((unsigned int)(KMEMLEAK_MIN_AGE_S - age) + 1);
	else
		sleep(KMEMLEAK_MIN_AGE_S);
	report = scan();
	if (report)
		n = kmemleak_count(ktap, report, false, &ours);
	else
		ktap_diagf(ktap, 1, "scanning %s at the end: %s", KMEMLEAK, strerror(errno));
	ktap_diagf(ktap, 1, "at the end: %d object%s leaked while the lab ran, %d of TUN or tunguard",
		   n, n == 1 ? "" : "s", ours);
	ktap_result(ktap, 1, report && n == 0, 2, "nothing leaked while the lab ran", NULL, NULL);
	free(report);

	/* the suite's lines, then its end, the way a KTAP program's travel */
	ktap_version(&head, 0);
	ktap_plan(&head, 0, 1);
	ktap_subtest(&head, 1, "kmemleak", 2);
	sbuf_add(&head, ktap->buf, ktap->len);
	failed = strstr(ktap->buf, "not ok ") != NULL;
	ktap_result(&head, 0, !failed, 1, "kmemleak", NULL, NULL);
	for (line = strtok_r(head.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		proto_emit(x->out, "ktap", 2, "kmemleak", line);
	snprintf(ms, sizeof(ms), "%.1f", now_ms() - t0);
	proto_emit(x->out, "suite", 3, "kmemleak", failed ? "1" : "0", ms);
	sbuf_free(&head);
}
