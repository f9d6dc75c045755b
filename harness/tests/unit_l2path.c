// SPDX-License-Identifier: GPL-2.0
/*
 * l2 ping path=: the counters of each path (as measured in the lab, 10
 * pings) judged, every threshold at its edge, and the text they come from.
 */
#include "check.h"
#include "executor/l2path.h"

#include <stdlib.h>

/* vhost=on: the kicks never exit, the worker moves the packets */
static const struct l2path_evidence vhost_on = {
	.sent = 10, .replies = 10, .ioeventfd = true, .kvm_found = true, .irqs_found = true,
	.mmio_exits = 0, .input_irqs = 11, .vhost_worker = true, .vhost_wakeups = 12,
	.qemu_wakeups = 3,
};

/* vhost=off: no worker, QEMU's main thread reads each reply off the tap */
static const struct l2path_evidence vhost_off = {
	.sent = 10, .replies = 10, .ioeventfd = true, .kvm_found = true, .irqs_found = true,
	.mmio_exits = 0, .input_irqs = 10, .qemu_wakeups = 14,
};

/* vhost=off ioeventfd=off: each kick is an MMIO exit to QEMU */
static const struct l2path_evidence no_ioeventfd = {
	.sent = 10, .replies = 10, .ioeventfd = false, .kvm_found = true, .irqs_found = true,
	.mmio_exits = 11, .input_irqs = 10, .qemu_wakeups = 16,
};

/* The verdict on @ev, and the message in @why (emptied first). */
static enum l2path_verdict judged(enum l2_path want, const struct l2path_evidence *ev,
				  struct sbuf *why)
{
	why->len = 0;
	if (why->buf)
		why->buf[0] = '\0';
	return l2path_judge(want, ev, why);
}

void test_l2path_each_path_holds_on_its_own_counters_only(void)
{
	struct sbuf why = { 0 };

	CHECK_INT(judged(L2_PATH_VHOST, &vhost_on, &why), L2PATH_HOLDS);
	CHECK_INT(why.len, 0);
	CHECK_INT(judged(L2_PATH_USERSPACE, &vhost_off, &why), L2PATH_HOLDS);
	CHECK_INT(judged(L2_PATH_USERSPACE, &no_ioeventfd, &why), L2PATH_HOLDS);

	CHECK_INT(judged(L2_PATH_USERSPACE, &vhost_on, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=userspace: a vhost worker runs for the guest's QEMU, expected none; "
		  "QEMU's main thread woke 3 times for 10 replies, expected >= 5");
	CHECK_INT(judged(L2_PATH_VHOST, &vhost_off, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=vhost: no vhost worker thread in L1 for the guest's QEMU; "
		  "QEMU's main thread woke 14 times for 10 replies, expected <= 8");
	/* vhost takes its kicks from ioeventfds only: the exits count too */
	CHECK_INT(judged(L2_PATH_VHOST, &no_ioeventfd, &why), L2PATH_CHANGED);
	CHECK_CONTAINS(why.buf, "path=vhost: L2 MMIO exits to QEMU 11 for 10 packets sent, expected <= 5");
	sbuf_free(&why);
}

void test_l2path_idle_vhost_worker_is_a_changed_path(void)
{
	/* vhost=on but QEMU kept the queues (as with ioeventfd=off): the
	 * worker exists and never wakes */
	struct l2path_evidence ev = vhost_on;
	struct sbuf why = { 0 };

	ev.vhost_wakeups = 0;
	ev.qemu_wakeups = 15;
	CHECK_INT(judged(L2_PATH_VHOST, &ev, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=vhost: vhost worker woke 0 times for 10 replies, expected >= 5; "
		  "QEMU's main thread woke 15 times for 10 replies, expected <= 8");
	sbuf_free(&why);
}

void test_l2path_ioeventfd_decides_where_the_kicks_go(void)
{
	struct l2path_evidence ev = no_ioeventfd;
	struct sbuf why = { 0 };

	/* booted ioeventfd=off, yet the kicks never exited: the option was lost */
	ev.mmio_exits = 0;
	CHECK_INT(judged(L2_PATH_USERSPACE, &ev, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=userspace: L2 MMIO exits to QEMU 0 for 10 packets sent, "
		  "expected > 5 (ioeventfd=off: each kick exits)");
	/* booted with ioeventfd, yet every kick exited */
	ev = vhost_off;
	ev.mmio_exits = 11;
	CHECK_INT(judged(L2_PATH_USERSPACE, &ev, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=userspace: L2 MMIO exits to QEMU 11 for 10 packets sent, "
		  "expected <= 5 (kicks through ioeventfd)");
	sbuf_free(&why);
}

/* Each threshold holds at its edge and breaks one past it. */
void test_l2path_thresholds_at_their_edges(void)
{
	struct l2path_evidence ev = vhost_on;
	struct sbuf why = { 0 };

	ev.mmio_exits = 5;
	ev.input_irqs = 10;
	ev.vhost_wakeups = 5;
	ev.qemu_wakeups = 8;
	CHECK_INT(judged(L2_PATH_VHOST, &ev, &why), L2PATH_HOLDS);
	ev.mmio_exits = 6;
	CHECK_INT(judged(L2_PATH_VHOST, &ev, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=vhost: L2 MMIO exits to QEMU 6 for 10 packets sent, expected <= 5 (kicks through ioeventfd)");
	ev.mmio_exits = 5;
	ev.input_irqs = 9;
	CHECK_INT(judged(L2_PATH_VHOST, &ev, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=vhost: 9 interrupts on L2's virtio-net input vector for 10 replies, expected >= 10");
	ev.input_irqs = 10;
	ev.vhost_wakeups = 4;
	CHECK_INT(judged(L2_PATH_VHOST, &ev, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=vhost: vhost worker woke 4 times for 10 replies, expected >= 5");
	ev.vhost_wakeups = 5;
	ev.qemu_wakeups = 9;
	CHECK_INT(judged(L2_PATH_VHOST, &ev, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=vhost: QEMU's main thread woke 9 times for 10 replies, expected <= 8");

	ev = no_ioeventfd;
	ev.mmio_exits = 6;
	ev.qemu_wakeups = 5;
	CHECK_INT(judged(L2_PATH_USERSPACE, &ev, &why), L2PATH_HOLDS);
	ev.mmio_exits = 5;
	CHECK_INT(judged(L2_PATH_USERSPACE, &ev, &why), L2PATH_CHANGED);
	ev.mmio_exits = 6;
	ev.qemu_wakeups = 4;
	CHECK_INT(judged(L2_PATH_USERSPACE, &ev, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=userspace: QEMU's main thread woke 4 times for 10 replies, expected >= 5");
	sbuf_free(&why);
}

void test_l2path_missing_counters_or_traffic_never_pass(void)
{
	struct l2path_evidence ev = vhost_on;
	struct sbuf why = { 0 };

	ev.kvm_found = false;
	CHECK_INT(judged(L2_PATH_VHOST, &ev, &why), L2PATH_UNMEASURED);
	CHECK_CONTAINS(why.buf, "no KVM statistics for the guest's VM in /sys/kernel/debug/kvm");
	ev = vhost_off;
	ev.irqs_found = false;
	CHECK_INT(judged(L2_PATH_USERSPACE, &ev, &why), L2PATH_UNMEASURED);
	CHECK_CONTAINS(why.buf, "no virtio-net input vector");
	ev = vhost_off;
	ev.replies = 0;
	CHECK_INT(judged(L2_PATH_USERSPACE, &ev, &why), L2PATH_CHANGED);
	CHECK_STR(why.buf, "path=userspace: 10 packets sent, 0 replies: no traffic to judge the path by");
	sbuf_free(&why);
}

void test_l2path_reads_ping_interrupts_and_status_text(void)
{
	/* L2's virtio lines: virtio-serial's "input" is not the NIC's */
	static const char irqs[] =
		" 24:          5          1   PCI-MSI 65536-edge      virtio0-config\n"
		" 25:         40          2   PCI-MSI 65537-edge      virtio0-input\n"
		" 27:          0          0   PCI-MSI 81920-edge      virtio1-config\n"
		" 28:         17          4   PCI-MSI 81921-edge      virtio1-input.0\n"
		" 29:          3          0   PCI-MSI 81922-edge      virtio1-output.0\n";
	static const char status[] = "Name:\tvhost-212\nState:\tS (sleeping)\n"
				     "voluntary_ctxt_switches:\t1234\nnonvoluntary_ctxt_switches:\t7\n";
	unsigned long long n;
	unsigned int s, r;
	enum l2_path p;

	CHECK(l2path_ping_counts("10 packets transmitted, 9 packets received, 10% packet loss", &s, &r));
	CHECK_INT(s, 10);
	CHECK_INT(r, 9);
	CHECK(!l2path_ping_counts("round-trip min/avg/max = 1.2/2.0/3.1 ms", &s, &r));
	CHECK(l2path_input_irqs(irqs, &n));
	CHECK_INT(n, 21);
	CHECK(!l2path_input_irqs(" 25:  40  PCI-MSI 65537-edge  virtio0-input\n", &n));
	CHECK_INT(l2path_line_irqs(" 25:  40   2  PCI-MSI 65537-edge  virtio0-input"), 42);
	CHECK_INT(l2path_line_irqs("no colon 40"), 0);
	CHECK(l2path_voluntary_switches(status, &n));
	CHECK_INT(n, 1234);
	CHECK(!l2path_voluntary_switches("Name:\tqemu\n", &n));
	CHECK(!l2path_voluntary_switches(NULL, &n));
	CHECK(l2path_parse("vhost", &p) && p == L2_PATH_VHOST);
	CHECK(l2path_parse("userspace", &p) && p == L2_PATH_USERSPACE);
	CHECK(!l2path_parse("kernel", &p));
}

void test_l2path_unready_guest_says_hung_or_lost_ready(void)
{
	struct sbuf why = { 0 };

	l2path_unready(NULL, &why);
	CHECK_CONTAINS(why.buf, "control socket never took");
	why.len = 0;
	l2path_unready("", &why);
	CHECK_CONTAINS(why.buf, "did not answer a command sent after the deadline either: L2 hung");
	/* the stale line first: it waited in the queue until the answer's kick */
	why.len = 0;
	l2path_unready("ready 6.1.192-l2+ eth0=52:54:00:1c:93:a7\n 24:  5  PCI-MSI 65536-edge  virtio0-config\n",
		       &why);
	CHECK_CONTAINS(why.buf, "\"ready 6.1.192-l2+ eth0=52:54:00:1c:93:a7\" came only with its answer");
	CHECK_CONTAINS(why.buf, "notification between L2 and L1's QEMU lost");
	why.len = 0;
	l2path_unready(" 24:  5  PCI-MSI 65536-edge  virtio0-config\n", &why);
	CHECK_CONTAINS(why.buf, "its \"ready\" line never came");
	sbuf_free(&why);
}
