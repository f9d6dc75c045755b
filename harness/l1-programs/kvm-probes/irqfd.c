// SPDX-License-Identifier: GPL-2.0
/*
 * irqfd probe: eventfds wired to GSIs of the in-kernel irqchip.
 *
 * The guest masks the 8259s, software-enables its LAPIC, programs the IOAPIC
 * redirection entries the host lists in its mailbox, and halts with
 * interrupts enabled. Its handler finds the vector in service in the LAPIC
 * ISR, OUTs it to a report port and EOIs, so user space sees every delivery
 * as one KVM_EXIT_IO and KVM sees the EOI that resamplefd waits for.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "probes.h"
#include "vm.h"

#define IRQ_PORT	0x520
#define IRQ_READY	0x1000		/* reported once the guest is set up */
#define IRQ_SPURIOUS	0x2000		/* handler ran with nothing in service */
#define IRQ_EXCEPTION	0xe000		/* an exception: the guest is stuck */

#define IRQ_GSI_EDGE	16		/* IOAPIC-only pins: the PIC stays out */
#define IRQ_GSI_LEVEL	17
#define IRQ_GSI_MSI	24		/* past the IOAPIC: a route we add */
#define IRQ_VEC_EDGE	0x50
#define IRQ_VEC_LEVEL	0x51
#define IRQ_VEC_MSI	0x60
#define IRQ_IOAPIC_PINS	24
#define IRQ_BENCH_MS	1000
#define IRQ_BENCH_MAX	2000

#define IRQ_STR(x) #x
#define IRQ_XSTR(x) IRQ_STR(x)

struct irq_redir {
	uint32_t pin, lo, hi;	/* IOAPIC redirection entry, as written */
};

struct irq_mbox {
	uint32_t skip_report;	/* --wrong: the handler does not report */
	uint32_t n_redir;
	struct irq_redir redir[2];
};

extern const uint8_t irq_guest[], irq_guest_handler[], irq_guest_exception[],
	irq_guest_end[];

__asm__(
	".pushsection .rodata\n"
	".code64\n"
	"irq_guest:\n"
	"	mov $0xff, %al\n"
	"	out %al, $0x21\n"
	"	out %al, $0xa1\n"
	"	mov $0xfee00000, %ebx\n"
	"	movl $0x1ff, 0xf0(%rbx)\n"		/* SVR: enable, spurious 0xff */
	"	mov $0xfec00000, %edi\n"
	"	mov $" IRQ_XSTR(VM_MBOX) ", %esi\n"
	"	mov 4(%rsi), %ecx\n"
	"	add $8, %rsi\n"
	"1:	test %ecx, %ecx\n"
	"	jz 2f\n"
	"	mov (%rsi), %eax\n"
	"	lea 0x10(%rax,%rax), %eax\n"		/* IOREDTBL low dword */
	"	mov %eax, (%rdi)\n"
	"	mov 4(%rsi), %edx\n"
	"	mov %edx, 0x10(%rdi)\n"
	"	inc %eax\n"
	"	mov %eax, (%rdi)\n"
	"	mov 8(%rsi), %edx\n"
	"	mov %edx, 0x10(%rdi)\n"
	"	add $12, %rsi\n"
	"	dec %ecx\n"
	"	jmp 1b\n"
	"2:	mov $" IRQ_XSTR(IRQ_READY) ", %eax\n"
	"	mov $" IRQ_XSTR(IRQ_PORT) ", %edx\n"
	"	out %eax, %dx\n"
	"	sti\n"
	"3:	hlt\n"
	"	jmp 3b\n"
	"irq_guest_handler:\n"
	"	push %rax\n"
	"	push %rbx\n"
	"	push %rcx\n"
	"	push %rdx\n"
	"	mov $0xfee00000, %ebx\n"
	"	mov $0x70, %ecx\n"			/* ISR7 .. ISR0 */
	"4:	mov 0x100(%rbx,%rcx), %eax\n"
	"	bsr %eax, %eax\n"
	"	jnz 5f\n"
	"	sub $0x10, %ecx\n"
	"	jns 4b\n"
	"	mov $" IRQ_XSTR(IRQ_SPURIOUS) ", %eax\n"
	"	jmp 6f\n"
	"5:	lea (%rax,%rcx,2), %eax\n"		/* 32 * index + bit */
	"6:	cmpl $0, " IRQ_XSTR(VM_MBOX) "\n"
	"	jne 7f\n"
	"	mov $" IRQ_XSTR(IRQ_PORT) ", %edx\n"
	"	out %eax, %dx\n"
	"7:	movl $0, 0xb0(%rbx)\n"			/* EOI */
	"	pop %rdx\n"
	"	pop %rcx\n"
	"	pop %rbx\n"
	"	pop %rax\n"
	"	iretq\n"
	"irq_guest_exception:\n"
	"	mov $" IRQ_XSTR(IRQ_EXCEPTION) ", %eax\n"
	"	mov $" IRQ_XSTR(IRQ_PORT) ", %edx\n"
	"	out %eax, %dx\n"
	"	cli\n"
	"8:	hlt\n"
	"	jmp 8b\n"
	"irq_guest_end:\n"
	".popsection\n");

struct irq_ctx {
	struct ktest *t;
	struct vm vm;
};

enum irq_wait_result {
	IRQ_WAIT_REPORT,
	IRQ_WAIT_QUIET,
	IRQ_WAIT_BROKEN,
};

/* Run the guest until its next report or @ms of silence. */
static enum irq_wait_result irq_wait(struct irq_ctx *c, unsigned int ms, uint32_t *report)
{
	enum vm_run_result r = vm_run(&c->vm, ms);

	if (r == VM_RUN_TIMEOUT)
		return IRQ_WAIT_QUIET;
	if (r == VM_RUN_ERROR) {
		ktest_diag(c->t, "%s", c->vm.err);
		return IRQ_WAIT_BROKEN;
	}
	if (!vm_exit_is_out(&c->vm, IRQ_PORT, report, NULL)) {
		ktest_diag(c->t, "unexpected exit: %s", vm_exit_str(&c->vm));
		return IRQ_WAIT_BROKEN;
	}
	if (*report == IRQ_EXCEPTION) {
		ktest_diag(c->t, "the guest took an exception");
		return IRQ_WAIT_BROKEN;
	}
	return IRQ_WAIT_REPORT;
}

static int irq_assign(struct irq_ctx *c, int efd, uint32_t gsi, uint32_t flags, int resamplefd)
{
	struct kvm_irqfd irqfd = {
		.fd = efd,
		.gsi = gsi,
		.flags = flags,
		.resamplefd = resamplefd,
	};

	return ioctl(c->vm.fd, KVM_IRQFD, &irqfd) ? errno : 0;
}

/* An eventfd for one section; failing to get one breaks the probe. */
static int irq_eventfd(struct irq_ctx *c)
{
	int fd = vm_eventfd();

	if (fd < 0)
		ktest_broken(c->t, "eventfd: %s", strerror(errno));
	return fd;
}

static void irq_signal(int efd)
{
	uint64_t one = 1;

	if (write(efd, &one, sizeof(one)) != sizeof(one))
		abort();
}

/* One eventfd write must bring exactly @vector, once. */
static bool irq_expect_one(struct irq_ctx *c, int efd, uint32_t vector, const char *what)
{
	enum irq_wait_result r;
	uint32_t seen = 0;

	irq_signal(efd);
	r = irq_wait(c, VM_WAIT_MS, &seen);
	if (r == IRQ_WAIT_BROKEN) {
		ktest_broken(c->t, "%s: the guest did not run as set up", what);
		return false;
	}
	if (!ktest_check(c->t, r == IRQ_WAIT_REPORT && seen == vector,
			"%s: one eventfd write delivers vector %#x", what, vector)) {
		if (r == IRQ_WAIT_REPORT)
			ktest_diag(c->t, "expected vector %#x, seen report %#x", vector, seen);
		else
			ktest_diag(c->t, "expected vector %#x, seen nothing in %d ms", vector,
				  VM_WAIT_MS);
		return false;
	}
	return true;
}

/* Nothing more may arrive; returns false if the guest broke. */
static bool irq_expect_quiet(struct irq_ctx *c, const char *what)
{
	enum irq_wait_result r;
	uint32_t seen = 0;

	r = irq_wait(c, VM_QUIET_MS, &seen);
	if (r == IRQ_WAIT_BROKEN) {
		ktest_broken(c->t, "the guest did not run as set up");
		return false;
	}
	if (!ktest_check(c->t, r == IRQ_WAIT_QUIET, "%s", what))
		ktest_diag(c->t, "expected no interrupt in %d ms, seen report %#x", VM_QUIET_MS,
			  seen);
	return true;
}

static void irq_edge(struct irq_ctx *c, const struct probe_opts *o)
{
	int efd = irq_eventfd(c), err, n = 0;
	bool all = true;
	double t0, ms;
	uint32_t seen;

	if (efd < 0)
		return;
	err = irq_assign(c, efd, IRQ_GSI_EDGE, 0, 0);
	if (!ktest_check(c->t, !err, "edge GSI %d: KVM_IRQFD assigns", IRQ_GSI_EDGE)) {
		ktest_diag(c->t, "ioctl(KVM_IRQFD): %s", strerror(err));
		goto out;
	}
	if (irq_expect_one(c, efd, IRQ_VEC_EDGE, "edge GSI 16") &&
	    !irq_expect_quiet(c, "  ... and exactly one interrupt"))
		goto out;
	if (c->t->broken)
		goto out;

	t0 = now_ms();
	while (n < IRQ_BENCH_MAX && now_ms() - t0 < IRQ_BENCH_MS) {
		seen = 0;
		irq_signal(efd);
		if (irq_wait(c, VM_WAIT_MS, &seen) != IRQ_WAIT_REPORT || seen != IRQ_VEC_EDGE) {
			all = false;
			break;
		}
		n++;
	}
	ms = now_ms() - t0;
	if (!ktest_check(c->t, all && n > 0, "  ... back-to-back writes each deliver one interrupt")) {
		if (seen)
			ktest_diag(c->t, "write %d of a run brought report %#x instead of vector %#x",
				  n + 1, seen, IRQ_VEC_EDGE);
		else
			ktest_diag(c->t, "write %d of a run brought nothing in %d ms", n + 1,
				  VM_WAIT_MS);
	}
	if (o->bench && n)
		ktest_diag(c->t, "bench: irqfd %.0f interrupts/s (%d round trips in %.1f ms)",
			  n / (ms / 1e3), n, ms);

	err = irq_assign(c, efd, IRQ_GSI_EDGE, KVM_IRQFD_FLAG_DEASSIGN, 0);
	if (!ktest_check(c->t, !err, "  ... KVM_IRQFD_FLAG_DEASSIGN removes it")) {
		ktest_diag(c->t, "ioctl(KVM_IRQFD, deassign): %s", strerror(err));
		goto out;
	}
	irq_signal(efd);
	irq_expect_quiet(c, "  ... after deassign a write delivers nothing");
out:
	close(efd);
}

/* The errors kvm_irqfd() and kvm_irqfd_assign() return in 6.1. */
static void irq_errors(struct irq_ctx *c)
{
	int efd = irq_eventfd(c), err;

	if (efd < 0)
		return;
	err = irq_assign(c, efd, IRQ_GSI_EDGE, 0, 0);
	if (!ktest_check(c->t, !err, "errors: an eventfd assigns to GSI %d", IRQ_GSI_EDGE)) {
		ktest_diag(c->t, "ioctl(KVM_IRQFD): %s", strerror(err));
		goto out;
	}
	ktest_expect_errno(c->t, irq_assign(c, efd, IRQ_GSI_LEVEL, 0, 0), EBUSY,
			 "errors: the same eventfd on a second GSI");
	ktest_expect_errno(c->t, irq_assign(c, efd, IRQ_GSI_LEVEL, 1u << 2, 0), EINVAL,
			 "errors: an unknown flag");
	ktest_expect_errno(c->t, irq_assign(c, -1, IRQ_GSI_LEVEL, 0, 0), EBADF,
			 "errors: fd -1");
	irq_assign(c, efd, IRQ_GSI_EDGE, KVM_IRQFD_FLAG_DEASSIGN, 0);
out:
	close(efd);
}

static void irq_resample(struct irq_ctx *c)
{
	int efd = irq_eventfd(c), rfd = irq_eventfd(c), err;
	enum irq_wait_result r;
	uint64_t before, after;
	uint32_t seen;

	if (efd < 0 || rfd < 0)
		goto out;

	if (!vm_check_cap(&c->vm, KVM_CAP_IRQFD_RESAMPLE)) {
		ktest_skip(c->t, "KVM_CAP_IRQFD_RESAMPLE", "level GSI %d with a resamplefd",
			  IRQ_GSI_LEVEL);
		goto out;
	}
	err = irq_assign(c, efd, IRQ_GSI_LEVEL, KVM_IRQFD_FLAG_RESAMPLE, rfd);
	if (!ktest_check(c->t, !err, "level GSI %d: KVM_IRQFD with KVM_IRQFD_FLAG_RESAMPLE assigns",
			IRQ_GSI_LEVEL)) {
		ktest_diag(c->t, "ioctl(KVM_IRQFD): %s", strerror(err));
		goto out;
	}
	for (int round = 1; round <= 2 && !c->t->broken; round++) {
		if (!irq_expect_one(c, efd, IRQ_VEC_LEVEL, round == 1 ? "level GSI 17" :
				    "level GSI 17 again"))
			break;
		/* The guest stopped in its handler, on the OUT before its EOI. */
		before = vm_eventfd_take(rfd);
		seen = 0;
		r = irq_wait(c, VM_QUIET_MS, &seen);
		if (r == IRQ_WAIT_BROKEN) {
			ktest_broken(c->t, "the guest did not run as set up");
			break;
		}
		after = vm_eventfd_take(rfd);
		if (!ktest_check(c->t, before == 0 && after == 1,
				"  ... resamplefd signalled once, after the guest's EOI"))
			ktest_diag(c->t, "expected resamplefd 0 before the EOI and 1 after, seen %"
				  PRIu64 " and %" PRIu64, before, after);
		if (!ktest_check(c->t, r == IRQ_WAIT_QUIET,
				"  ... the line was deasserted: no second delivery"))
			ktest_diag(c->t, "expected no interrupt in %d ms, seen report %#x",
				  VM_QUIET_MS, seen);
	}
	irq_assign(c, efd, IRQ_GSI_LEVEL, KVM_IRQFD_FLAG_DEASSIGN, 0);
out:
	close(rfd);
	close(efd);
}

static void irq_msi(struct irq_ctx *c)
{
	size_t n = IRQ_IOAPIC_PINS + 1;
	struct kvm_irq_routing *rt = calloc(1, sizeof(*rt) + n * sizeof(rt->entries[0]));
	struct kvm_irq_routing_entry *e;
	int efd = irq_eventfd(c), err;

	if (!rt)
		abort();
	if (efd < 0)
		goto out;
	if (!vm_check_cap(&c->vm, KVM_CAP_IRQ_ROUTING)) {
		ktest_skip(c->t, "KVM_CAP_IRQ_ROUTING", "MSI route on GSI %d", IRQ_GSI_MSI);
		goto out;
	}
	/* The table replaces the default one: keep the IOAPIC pins routed. */
	for (uint32_t pin = 0; pin < IRQ_IOAPIC_PINS; pin++) {
		e = &rt->entries[rt->nr++];
		e->gsi = pin;
		e->type = KVM_IRQ_ROUTING_IRQCHIP;
		e->u.irqchip.irqchip = KVM_IRQCHIP_IOAPIC;
		e->u.irqchip.pin = pin;
	}
	e = &rt->entries[rt->nr++];
	e->gsi = IRQ_GSI_MSI;
	e->type = KVM_IRQ_ROUTING_MSI;
	e->u.msi.address_lo = 0xfee00000;	/* physical destination APIC 0 */
	e->u.msi.data = IRQ_VEC_MSI;		/* fixed, edge */
	err = ioctl(c->vm.fd, KVM_SET_GSI_ROUTING, rt) ? errno : 0;
	if (!ktest_check(c->t, !err, "MSI: KVM_SET_GSI_ROUTING routes GSI %d to vector %#x",
			IRQ_GSI_MSI, IRQ_VEC_MSI)) {
		ktest_diag(c->t, "ioctl(KVM_SET_GSI_ROUTING): %s", strerror(err));
		goto out;
	}
	err = irq_assign(c, efd, IRQ_GSI_MSI, 0, 0);
	if (!ktest_check(c->t, !err, "MSI: KVM_IRQFD assigns GSI %d", IRQ_GSI_MSI)) {
		ktest_diag(c->t, "ioctl(KVM_IRQFD): %s", strerror(err));
		goto out;
	}
	if (irq_expect_one(c, efd, IRQ_VEC_MSI, "MSI GSI 24"))
		irq_expect_quiet(c, "  ... and exactly one interrupt");
	irq_assign(c, efd, IRQ_GSI_MSI, KVM_IRQFD_FLAG_DEASSIGN, 0);
out:
	close(efd);
	free(rt);
}

void probe_irqfd(struct ktest *t, const struct probe_opts *o)
{
	struct irq_ctx c = { .t = t };
	struct irq_mbox *mb;
	uint32_t seen = 0;

	if (!vm_kvm_check_cap(KVM_CAP_IRQCHIP) || !vm_kvm_check_cap(KVM_CAP_IRQFD)) {
		ktest_skip_all(t, "KVM_CAP_IRQCHIP and KVM_CAP_IRQFD");
		return;
	}
	if (vm_create(&c.vm, true) || vm_setup_long_mode(&c.vm, VM_CODE)) {
		ktest_broken(t, "%s", c.vm.err);
		goto out;
	}
	vm_load(&c.vm, VM_CODE, irq_guest, irq_guest_end - irq_guest);
	for (unsigned int v = 0; v < 256; v++)
		vm_set_idt_gate(&c.vm, v, VM_CODE + (v < 32 ? irq_guest_exception - irq_guest :
						     irq_guest_handler - irq_guest));
	mb = vm_gpa(&c.vm, VM_MBOX);
	mb->skip_report = o->wrong;
	mb->n_redir = 2;
	/* fixed delivery, physical destination APIC 0, active high, unmasked */
	mb->redir[0] = (struct irq_redir){ IRQ_GSI_EDGE, IRQ_VEC_EDGE, 0 };
	mb->redir[1] = (struct irq_redir){ IRQ_GSI_LEVEL, IRQ_VEC_LEVEL | 1u << 15, 0 };

	if (!ktest_check(t, irq_wait(&c, VM_WAIT_MS, &seen) == IRQ_WAIT_REPORT && seen == IRQ_READY,
			"guest set up IDT, LAPIC and IOAPIC and enabled interrupts")) {
		ktest_diag(t, "expected report %#x, seen %#x: no point going on", IRQ_READY, seen);
		goto out;
	}
	irq_edge(&c, o);
	if (!t->broken)
		irq_errors(&c);
	if (!t->broken)
		irq_resample(&c);
	if (!t->broken)
		irq_msi(&c);
out:
	vm_destroy(&c.vm);
}
