// SPDX-License-Identifier: GPL-2.0
/*
 * Which way a nested guest's packets went, judged on counters L1 takes
 * around an `l2 ping ... path=` (host-scenarios/README.md, "The eventfd
 * paths"). The thresholds are per packet sent (S) or per reply (R), over
 * at least SCN_PATH_MIN_PINGS pings, and sit between what each path was
 * measured to do, with room on both sides:
 *
 * - a virtio-net kick through ioeventfd is signalled inside L1's kernel
 *   and never reaches QEMU; with ioeventfd=off each one is an MMIO exit
 *   to QEMU: at most S/2 exits with ioeventfd, more than S/2 without;
 * - each reply raises L2's input vector (the pings are a second apart,
 *   so NAPI never folds two replies into one interrupt): at least R;
 * - with vhost, its worker wakes for the kicks and for each packet on the
 *   tap (at least R/2 times) while QEMU's main thread stays nearly idle
 *   (at most 3 + R/2: the agent's own port, timers);
 * - without vhost there is no worker, and QEMU's main thread reads each
 *   reply off the tap: at least R/2 wakeups.
 */
#include "l2path.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QEMU_IDLE_WAKEUPS 3

bool l2path_parse(const char *word, enum l2_path *path)
{
	if (!strcmp(word, "vhost"))
		*path = L2_PATH_VHOST;
	else if (!strcmp(word, "userspace"))
		*path = L2_PATH_USERSPACE;
	else
		return false;
	return true;
}

const char *l2path_name(enum l2_path path)
{
	return path == L2_PATH_VHOST ? "vhost" : "userspace";
}

bool l2path_ping_counts(const char *line, unsigned int *sent, unsigned int *replies)
{
	const char *p = strstr(line, "packets transmitted");

	/* the line itself starts with the count: "10 packets transmitted, ..." */
	while (p && p > line && p[-1] == ' ')
		p--;
	while (p && p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p && sscanf(p, "%u packets transmitted, %u packets received", sent, replies) == 2;
}

unsigned long long l2path_line_irqs(const char *line)
{
	const char *p = strchr(line, ':');
	unsigned long long n = 0;
	char *end;

	/* "  24:   12   0   PCI-MSI 49153-edge      virtio1-input.0": one
	 * count per CPU, up to the chip's name */
	for (p = p ? p + 1 : ""; *(p += strspn(p, " ")) >= '0' && *p <= '9'; p = end)
		n += strtoull(p, &end, 10);
	return n;
}

bool l2path_input_irqs(const char *interrupts, unsigned long long *n)
{
	bool found = false;

	*n = 0;
	for (const char *line = interrupts; line && *line; ) {
		size_t len = strcspn(line, "\n");
		char *text = xstrndup(line, len), *end = text + len;

		while (end > text && (end[-1] == ' ' || end[-1] == '\r'))
			*--end = '\0';
		if (end - text > 8 && !strcmp(end - 8, "-input.0") && strstr(text, "virtio") &&
		    strchr(text, ':')) {
			found = true;
			*n += l2path_line_irqs(text);
		}
		free(text);
		line += len + (line[len] == '\n');
	}
	return found;
}

bool l2path_voluntary_switches(const char *status, unsigned long long *n)
{
	const char *p = status ? strstr(status, "\nvoluntary_ctxt_switches:") : NULL;

	return p && sscanf(p, "\nvoluntary_ctxt_switches: %llu", n) == 1;
}

static void broke(struct sbuf *why, enum l2_path want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One piece of broken evidence, after "path=P: " or "; ". */
static void broke(struct sbuf *why, enum l2_path want, const char *fmt, ...)
{
	va_list ap;

	if (!why->len)
		sbuf_printf(why, "path=%s: ", l2path_name(want));
	else
		sbuf_puts(why, "; ");
	va_start(ap, fmt);
	sbuf_vprintf(why, fmt, ap);
	va_end(ap);
}

/* The kick: inside the kernel through ioeventfd, or an exit to QEMU. */
static void judge_kicks(enum l2_path want, const struct l2path_evidence *ev, struct sbuf *why)
{
	unsigned int half = ev->sent / 2;

	/* vhost takes its kicks from ioeventfds only */
	if (want == L2_PATH_VHOST || ev->ioeventfd) {
		if (ev->mmio_exits > half)
			broke(why, want, "L2 MMIO exits to QEMU %llu for %u packets sent, expected <= %u (kicks through ioeventfd)",
			      ev->mmio_exits, ev->sent, half);
	} else if (ev->mmio_exits <= half) {
		broke(why, want, "L2 MMIO exits to QEMU %llu for %u packets sent, expected > %u (ioeventfd=off: each kick exits)",
		      ev->mmio_exits, ev->sent, half);
	}
}

static void judge_workers(enum l2_path want, const struct l2path_evidence *ev, struct sbuf *why)
{
	unsigned int half = ev->replies / 2;

	if (want == L2_PATH_VHOST) {
		if (!ev->vhost_worker) {
			broke(why, want, "no vhost worker thread in L1 for the guest's QEMU");
		} else if (ev->vhost_wakeups < half) {
			broke(why, want, "vhost worker woke %llu times for %u replies, expected >= %u",
			      ev->vhost_wakeups, ev->replies, half);
		}
		if (ev->qemu_wakeups > QEMU_IDLE_WAKEUPS + half)
			broke(why, want, "QEMU's main thread woke %llu times for %u replies, expected <= %u",
			      ev->qemu_wakeups, ev->replies, QEMU_IDLE_WAKEUPS + half);
		return;
	}
	if (ev->vhost_worker)
		broke(why, want, "a vhost worker runs for the guest's QEMU, expected none");
	if (ev->qemu_wakeups < half)
		broke(why, want, "QEMU's main thread woke %llu times for %u replies, expected >= %u",
		      ev->qemu_wakeups, ev->replies, half);
}

static enum l2path_verdict judge(enum l2_path want, const struct l2path_evidence *ev,
				 struct sbuf *why)
{
	if (!ev->kvm_found) {
		broke(why, want, "no KVM statistics for the guest's VM in /sys/kernel/debug/kvm");
		return L2PATH_UNMEASURED;
	}
	if (!ev->irqs_found) {
		broke(why, want, "no virtio-net input vector (virtioN-input.0) in L2's /proc/interrupts");
		return L2PATH_UNMEASURED;
	}
	if (!ev->sent || !ev->replies) {
		broke(why, want, "%u packets sent, %u replies: no traffic to judge the path by",
		      ev->sent, ev->replies);
		return L2PATH_CHANGED;
	}
	judge_kicks(want, ev, why);
	if (ev->input_irqs < ev->replies)
		broke(why, want, "%llu interrupts on L2's virtio-net input vector for %u replies, expected >= %u",
		      ev->input_irqs, ev->replies, ev->replies);
	judge_workers(want, ev, why);
	return why->len ? L2PATH_CHANGED : L2PATH_HOLDS;
}

enum l2path_verdict l2path_judge(enum l2_path want, const struct l2path_evidence *ev,
				 struct sbuf *why)
{
	struct sbuf broken = { 0 };
	enum l2path_verdict v = judge(want, ev, &broken);

	if (broken.len)
		sbuf_puts(why, broken.buf);
	sbuf_free(&broken);
	return v;
}

void l2path_describe(const struct l2path_evidence *ev, struct sbuf *out)
{
	sbuf_printf(out, "path evidence for %u sent, %u replies: L2 MMIO exits +%llu, input vector interrupts +%llu, ",
		    ev->sent, ev->replies, ev->mmio_exits, ev->input_irqs);
	if (ev->vhost_worker)
		sbuf_printf(out, "vhost worker wakeups +%llu", ev->vhost_wakeups);
	else
		sbuf_puts(out, "no vhost worker");
	sbuf_printf(out, ", QEMU main thread wakeups +%llu", ev->qemu_wakeups);
}

void l2path_unready(const char *answer, struct sbuf *why)
{
	if (!answer) {
		sbuf_puts(why, "QEMU's control socket never took the executor's connection");
	} else if (!*answer) {
		sbuf_puts(why, "the agent did not answer a command sent after the deadline either: L2 hung or never reached its agent (its console is in the run folder)");
	} else if (!strncmp(answer, "ready", 5)) {
		sbuf_printf(why, "the agent's \"%.*s\" came only with its answer to a command sent after the deadline: it had waited in the guest's virtio-serial queue, a notification between L2 and L1's QEMU lost",
			    (int)strcspn(answer, "\n"), answer);
	} else {
		sbuf_puts(why, "the agent answered a command sent after the deadline, but its \"ready\" line never came: lost between the guest's virtio-serial port and the executor");
	}
}
