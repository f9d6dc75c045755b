// SPDX-License-Identifier: GPL-2.0
/*
 * ioeventfd probe: PIO and MMIO ioeventfds with and without datamatch.
 *
 * The guest is a loop that performs whatever write the host puts in its
 * mailbox, then OUTs to a sync port. A write KVM consumed for an ioeventfd
 * leaves the sync OUT as the first exit user space sees; a write it did not
 * consume shows up as KVM_EXIT_IO or KVM_EXIT_MMIO before it.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "probes.h"
#include "vm.h"

#define IOEV_SYNC_PORT	0x510
#define IOEV_PIO_BASE	0x600
#define IOEV_MMIO_BASE	0xd0000000ull	/* no memory slot there: MMIO */
#define IOEV_OP_MMIO	0x100
#define IOEV_BENCH_WRITES 20000

#define IOEV_STR(x) #x
#define IOEV_XSTR(x) IOEV_STR(x)

/* Filled by the host before each run; see the guest loop below. */
struct ioev_mbox {
	uint32_t op;		/* write size in bytes, | IOEV_OP_MMIO for MMIO */
	uint32_t skip;		/* --wrong: do not write at all */
	uint64_t addr;		/* port or guest physical address */
	uint64_t value;
	uint64_t count;		/* writes to do before the sync OUT */
};

extern const uint8_t ioev_guest[], ioev_guest_end[];

__asm__(
	".pushsection .rodata\n"
	".code64\n"
	"ioev_guest:\n"
	"1:	mov $" IOEV_XSTR(VM_MBOX) ", %esi\n"
	"	mov 0(%rsi), %ecx\n"
	"	mov 8(%rsi), %rdx\n"
	"	mov 16(%rsi), %rax\n"
	"	mov 24(%rsi), %r8\n"
	"	cmpl $0, 4(%rsi)\n"
	"	jne 9f\n"
	"2:	cmp $1, %ecx\n"
	"	jne 3f\n"
	"	out %al, %dx\n"
	"	jmp 8f\n"
	"3:	cmp $2, %ecx\n"
	"	jne 3f\n"
	"	out %ax, %dx\n"
	"	jmp 8f\n"
	"3:	cmp $4, %ecx\n"
	"	jne 3f\n"
	"	out %eax, %dx\n"
	"	jmp 8f\n"
	"3:	cmp $0x101, %ecx\n"
	"	jne 3f\n"
	"	movb %al, (%rdx)\n"
	"	jmp 8f\n"
	"3:	cmp $0x102, %ecx\n"
	"	jne 3f\n"
	"	movw %ax, (%rdx)\n"
	"	jmp 8f\n"
	"3:	cmp $0x104, %ecx\n"
	"	jne 3f\n"
	"	movl %eax, (%rdx)\n"
	"	jmp 8f\n"
	"3:	cmp $0x108, %ecx\n"
	"	jne 9f\n"
	"	movq %rax, (%rdx)\n"
	"8:	dec %r8\n"
	"	jnz 2b\n"
	"9:	mov $" IOEV_XSTR(IOEV_SYNC_PORT) ", %edx\n"
	"	out %al, %dx\n"
	"	jmp 1b\n"
	"ioev_guest_end:\n"
	".popsection\n");

/* What one mailbox write looked like from user space. */
struct ioev_seen {
	bool exited;		/* the write itself reached user space */
	uint64_t addr, data;
	unsigned int size;
	bool mmio;
	uint64_t signals;	/* eventfd counter afterwards */
};

struct ioev_ctx {
	struct ktest *t;
	struct vm vm;
	int efd;
	bool wrong;
};

/*
 * Have the guest write @value (@size bytes) to @addr @count times and run it
 * up to its sync OUT. Returns false, with a diagnostic, if anything else
 * happened: the probe cannot trust later steps then.
 */
static bool ioev_write(struct ioev_ctx *c, bool mmio, unsigned int size, uint64_t addr,
		       uint64_t value, uint64_t count, struct ioev_seen *seen)
{
	struct ioev_mbox *mb = vm_gpa(&c->vm, VM_MBOX);
	struct kvm_run *run = c->vm.run;

	memset(seen, 0, sizeof(*seen));
	mb->op = size | (mmio ? IOEV_OP_MMIO : 0);
	mb->skip = c->wrong;
	mb->addr = addr;
	mb->value = value;
	mb->count = count;
	for (int exits = 0; exits < 4; exits++) {
		enum vm_run_result r = vm_run(&c->vm, VM_WAIT_MS);

		if (r != VM_RUN_EXIT) {
			ktest_diag(c->t, "guest did not reach its sync OUT: %s",
				  r == VM_RUN_TIMEOUT ? "timed out" : c->vm.err);
			return false;
		}
		if (vm_exit_is_out(&c->vm, IOEV_SYNC_PORT, NULL, NULL)) {
			seen->signals = vm_eventfd_take(c->efd);
			return true;
		}
		if (!seen->exited && run->exit_reason == KVM_EXIT_IO &&
		    run->io.direction == KVM_EXIT_IO_OUT && run->io.count == 1) {
			seen->exited = true;
			seen->addr = run->io.port;
			seen->size = run->io.size;
			memcpy(&seen->data, (uint8_t *)run + run->io.data_offset, seen->size);
			continue;
		}
		if (!seen->exited && run->exit_reason == KVM_EXIT_MMIO && run->mmio.is_write &&
		    run->mmio.len <= 8) {
			seen->exited = true;
			seen->mmio = true;
			seen->addr = run->mmio.phys_addr;
			seen->size = run->mmio.len;
			memcpy(&seen->data, run->mmio.data, seen->size);
			continue;
		}
		break;
	}
	ktest_diag(c->t, "unexpected exit: %s", vm_exit_str(&c->vm));
	return false;
}

static int ioev_ioctl(struct ioev_ctx *c, bool mmio, unsigned int len, uint64_t addr,
		      const uint64_t *datamatch, uint32_t flags)
{
	struct kvm_ioeventfd io = {
		.addr = addr,
		.len = len,
		.fd = c->efd,
		.flags = flags | (mmio ? 0 : KVM_IOEVENTFD_FLAG_PIO),
	};

	if (datamatch) {
		io.datamatch = *datamatch;
		io.flags |= KVM_IOEVENTFD_FLAG_DATAMATCH;
	}
	return ioctl(c->vm.fd, KVM_IOEVENTFD, &io) ? errno : 0;
}

/* A registration as the case table states it. */
struct ioev_case {
	bool mmio;
	unsigned int len;	/* 0: any length (KVM_CAP_IOEVENTFD_ANY_LENGTH) */
	bool datamatch;
	uint64_t match;
};

static const struct ioev_case ioev_cases[] = {
	{ false, 1, true, 0x5a },
	{ false, 2, true, 0xbeef },
	{ false, 4, true, 0xdeadbeef },
	{ false, 1, false, 0 },
	{ false, 2, false, 0 },
	{ false, 4, false, 0 },
	{ true, 1, true, 0xa5 },
	{ true, 2, true, 0xcafe },
	{ true, 4, true, 0xfeedf00d },
	{ true, 8, true, 0x0123456789abcdefull },
	{ true, 1, false, 0 },
	{ true, 2, false, 0 },
	{ true, 4, false, 0 },
	{ true, 8, false, 0 },
	{ true, 0, false, 0 },
};

static const char *ioev_kind(bool mmio)
{
	return mmio ? "MMIO" : "PIO";
}

/* The write must have been consumed in the kernel and signalled once. */
static void ioev_expect_signal(struct ioev_ctx *c, const struct ioev_seen *s, const char *what)
{
	if (!ktest_check(c->t, !s->exited && s->signals == 1, "%s", what))
		ktest_diag(c->t, "expected eventfd count 1 and no exit, seen count %" PRIu64
			  "%s", s->signals, s->exited ? " and an exit to user space" : "");
}

/* The write must have reached user space exactly as the guest made it. */
static void ioev_expect_exit(struct ioev_ctx *c, const struct ioev_seen *s, bool mmio,
			     uint64_t addr, unsigned int size, uint64_t value, const char *what)
{
	uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
	bool ok = s->exited && s->mmio == mmio && s->addr == addr && s->size == size &&
		  s->data == (value & mask) && s->signals == 0;

	if (ktest_check(c->t, ok, "%s", what))
		return;
	ktest_diag(c->t, "expected %s to %#" PRIx64 " size %u data %#" PRIx64
		  " and eventfd count 0", mmio ? "KVM_EXIT_MMIO" : "KVM_EXIT_IO", addr, size,
		  value & mask);
	if (s->exited)
		ktest_diag(c->t, "seen %s to %#" PRIx64 " size %u data %#" PRIx64
			  ", eventfd count %" PRIu64, s->mmio ? "KVM_EXIT_MMIO" : "KVM_EXIT_IO",
			  s->addr, s->size, s->data, s->signals);
	else
		ktest_diag(c->t, "seen no exit, eventfd count %" PRIu64, s->signals);
}

/* assign -> matching write -> other write -> deassign -> matching write */
static void ioev_run_case(struct ioev_ctx *c, const struct ioev_case *k, uint64_t addr)
{
	unsigned int size = k->len ? k->len : 4;
	uint64_t value = k->datamatch ? k->match : 0x11223344556677ull;
	uint64_t other = k->datamatch ? ~k->match : 0x8877665544332211ull;
	char name[96];
	struct ioev_seen s;
	int err;

	if (k->datamatch)
		snprintf(name, sizeof(name), "%s len %u datamatch %#" PRIx64, ioev_kind(k->mmio),
			 k->len, k->match);
	else
		snprintf(name, sizeof(name), "%s len %u%s", ioev_kind(k->mmio), k->len,
			 k->len ? " no datamatch" : " (any length)");

	err = ioev_ioctl(c, k->mmio, k->len, addr, k->datamatch ? &k->match : NULL, 0);
	if (!ktest_check(c->t, !err, "%s: KVM_IOEVENTFD assigns", name)) {
		ktest_diag(c->t, "ioctl(KVM_IOEVENTFD): %s", strerror(err));
		return;
	}
	if (!ioev_write(c, k->mmio, size, addr, value, 1, &s))
		goto broken;
	ioev_expect_signal(c, &s, k->datamatch ?
			   "  ... a matching write signals the eventfd without an exit" :
			   "  ... a write signals the eventfd without an exit");
	if (!ioev_write(c, k->mmio, size, addr, other, 1, &s))
		goto broken;
	if (k->datamatch)
		ioev_expect_exit(c, &s, k->mmio, addr, size, other,
				 "  ... a write of other data exits to user space");
	else
		ioev_expect_signal(c, &s, "  ... a write of other data signals it too");
	if (!ioev_write(c, k->mmio, size == 1 ? 2 : 1, addr, value, 1, &s))
		goto broken;
	if (k->len)
		ioev_expect_exit(c, &s, k->mmio, addr, size == 1 ? 2 : 1, value,
				 "  ... a write of another width exits to user space");
	else
		ioev_expect_signal(c, &s, "  ... a write of another width signals it too");
	err = ioev_ioctl(c, k->mmio, k->len, addr, k->datamatch ? &k->match : NULL,
			 KVM_IOEVENTFD_FLAG_DEASSIGN);
	if (!ktest_check(c->t, !err, "  ... KVM_IOEVENTFD_FLAG_DEASSIGN removes it")) {
		ktest_diag(c->t, "ioctl(KVM_IOEVENTFD, deassign): %s", strerror(err));
		return;
	}
	if (!ioev_write(c, k->mmio, size, addr, value, 1, &s))
		goto broken;
	ioev_expect_exit(c, &s, k->mmio, addr, size, value,
			 "  ... after deassign the matching write exits again");
	return;
broken:
	ktest_broken(c->t, "%s: the guest stopped following its mailbox", name);
}

/* The errors kvm_assign_ioeventfd() and its collision check return in 6.1. */
static void ioev_errors(struct ioev_ctx *c)
{
	uint64_t port = IOEV_PIO_BASE + 0x80, mmio = IOEV_MMIO_BASE + 0x10000;
	uint64_t a = 0x1234, b = 0x4321;
	int err;

	err = ioev_ioctl(c, false, 2, port, &a, 0);
	if (!ktest_check(c->t, !err, "errors: PIO len 2 datamatch %#" PRIx64 " assigns", a)) {
		ktest_diag(c->t, "ioctl(KVM_IOEVENTFD): %s", strerror(err));
		return;
	}
	ktest_expect_errno(c->t, ioev_ioctl(c, false, 2, port, &a, 0), EEXIST,
			  "errors: the same registration again");
	ktest_expect_errno(c->t, ioev_ioctl(c, false, 2, port, NULL, 0), EEXIST,
			  "errors: a wildcard overlapping a datamatch");
	ktest_expect_errno(c->t, ioev_ioctl(c, false, 0, port, NULL, 0), EEXIST,
			  "errors: any-length overlapping a datamatch");
	err = ioev_ioctl(c, false, 2, port, &b, 0);
	if (!ktest_check(c->t, !err, "errors: another datamatch at the same port assigns"))
		ktest_diag(c->t, "ioctl(KVM_IOEVENTFD): %s", strerror(err));
	ioev_ioctl(c, false, 2, port, &b, KVM_IOEVENTFD_FLAG_DEASSIGN);
	ioev_ioctl(c, false, 2, port, &a, KVM_IOEVENTFD_FLAG_DEASSIGN);

	ktest_expect_errno(c->t, ioev_ioctl(c, true, 4, mmio, NULL, 1u << 8), EINVAL,
			  "errors: an unknown flag");
	ktest_expect_errno(c->t, ioev_ioctl(c, true, 3, mmio, NULL, 0), EINVAL,
			  "errors: len 3");
	ktest_expect_errno(c->t, ioev_ioctl(c, true, 16, mmio, NULL, 0), EINVAL,
			  "errors: len 16");
	ktest_expect_errno(c->t, ioev_ioctl(c, true, 0, mmio, &a, 0), EINVAL,
			  "errors: datamatch with len 0");
	ktest_expect_errno(c->t, ioev_ioctl(c, true, 8, ~0ull - 3, NULL, 0), EINVAL,
			  "errors: address range wraps around");
	ktest_expect_errno(c->t, ioev_ioctl(c, true, 4, mmio, NULL, KVM_IOEVENTFD_FLAG_DEASSIGN),
			  ENOENT, "errors: deassign of nothing registered");
}

static void ioev_bench(struct ioev_ctx *c, const struct probe_opts *o)
{
	uint64_t port = IOEV_PIO_BASE + 0x40, data = 0x77;
	struct ioev_seen s;
	double t0, ms;
	int err;

	err = ioev_ioctl(c, false, 1, port, &data, 0);
	if (!ktest_check(c->t, !err, "PIO datamatch: %d writes in a row assign", IOEV_BENCH_WRITES)) {
		ktest_diag(c->t, "ioctl(KVM_IOEVENTFD): %s", strerror(err));
		return;
	}
	t0 = now_ms();
	if (!ioev_write(c, false, 1, port, data, IOEV_BENCH_WRITES, &s)) {
		ktest_broken(c->t, "the guest stopped following its mailbox");
		return;
	}
	ms = now_ms() - t0;
	if (!ktest_check(c->t, !s.exited && s.signals == IOEV_BENCH_WRITES,
			"  ... %d matching writes add %d to the eventfd counter",
			IOEV_BENCH_WRITES, IOEV_BENCH_WRITES))
		ktest_diag(c->t, "expected count %d, seen %" PRIu64 "%s", IOEV_BENCH_WRITES,
			  s.signals, s.exited ? " and an exit" : "");
	if (o->bench)
		ktest_diag(c->t, "bench: ioeventfd %.0f signals/s (%d PIO writes in %.1f ms)",
			  IOEV_BENCH_WRITES / (ms / 1e3), IOEV_BENCH_WRITES, ms);
	ioev_ioctl(c, false, 1, port, &data, KVM_IOEVENTFD_FLAG_DEASSIGN);
}

void probe_ioeventfd(struct ktest *t, const struct probe_opts *o)
{
	struct ioev_ctx c = { .t = t, .efd = -1, .wrong = o->wrong };
	bool any_length;

	if (!vm_kvm_check_cap(KVM_CAP_IOEVENTFD)) {
		ktest_skip_all(t, "KVM_CAP_IOEVENTFD");
		return;
	}
	if (vm_create(&c.vm, false) || vm_setup_long_mode(&c.vm, VM_CODE)) {
		ktest_broken(t, "%s", c.vm.err);
		goto out;
	}
	vm_load(&c.vm, VM_CODE, ioev_guest, ioev_guest_end - ioev_guest);
	c.efd = vm_eventfd();
	if (c.efd < 0) {
		ktest_broken(t, "eventfd: %s", strerror(errno));
		goto out;
	}
	any_length = vm_check_cap(&c.vm, KVM_CAP_IOEVENTFD_ANY_LENGTH);
	for (size_t i = 0; i < ARRAY_SIZE(ioev_cases) && !t->broken; i++) {
		const struct ioev_case *k = &ioev_cases[i];
		uint64_t addr = (k->mmio ? IOEV_MMIO_BASE : IOEV_PIO_BASE) + i * 8;

		if (!k->len && !any_length) {
			ktest_skip(t, "KVM_CAP_IOEVENTFD_ANY_LENGTH", "%s len 0 (any length)",
				  ioev_kind(k->mmio));
			continue;
		}
		ioev_run_case(&c, k, addr);
	}
	if (!t->broken)
		ioev_errors(&c);
	if (!t->broken)
		ioev_bench(&c, o);
out:
	if (c.efd >= 0)
		close(c.efd);
	vm_destroy(&c.vm);
}
