// SPDX-License-Identifier: GPL-2.0
/*
 * VM and vCPU setup for kvm-probes (see vm.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include "vm.h"

#define VM_KVM_DEV	"/dev/kvm"

/* The run structure KVM_RUN is in, so the timer can make it return. */
static struct kvm_run *volatile vm_running;

static void vm_timer_fired(int sig)
{
	(void)sig;
	if (vm_running)
		vm_running->immediate_exit = 1;
}

static int vm_fail(struct vm *vm, const char *fmt, ...)
{
	int err = errno;
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(vm->err, sizeof(vm->err), "%s: %s", what, strerror(err));
	errno = err;
	return -1;
}

const char *vm_kvm_missing(void)
{
	static char why[128];
	int fd = open(VM_KVM_DEV, O_RDWR | O_CLOEXEC);
	int version;

	if (fd < 0) {
		snprintf(why, sizeof(why), VM_KVM_DEV ": %s", strerror(errno));
		return why;
	}
	version = ioctl(fd, KVM_GET_API_VERSION, 0);
	close(fd);
	if (version != KVM_API_VERSION) {
		snprintf(why, sizeof(why), "KVM API version %d (want %d)", version,
			 KVM_API_VERSION);
		return why;
	}
	return NULL;
}

int vm_kvm_check_cap(long cap)
{
	int fd = open(VM_KVM_DEV, O_RDWR | O_CLOEXEC);
	int r;

	if (fd < 0)
		return 0;
	r = ioctl(fd, KVM_CHECK_EXTENSION, cap);
	close(fd);
	return r > 0 ? r : 0;
}

int vm_check_cap(struct vm *vm, long cap)
{
	int r = ioctl(vm->fd, KVM_CHECK_EXTENSION, cap);

	return r > 0 ? r : 0;
}

/* Give the vCPU everything KVM supports, as long mode needs CPUID.LM. */
static int vm_set_cpuid(struct vm *vm)
{
	struct kvm_cpuid2 *cpuid = NULL;
	int nent = 64;

	for (;;) {
		cpuid = realloc(cpuid, sizeof(*cpuid) + nent * sizeof(cpuid->entries[0]));
		if (!cpuid)
			abort();
		cpuid->nent = nent;
		if (!ioctl(vm->kvm, KVM_GET_SUPPORTED_CPUID, cpuid))
			break;
		if (errno != E2BIG) {
			free(cpuid);
			return vm_fail(vm, "ioctl(KVM_GET_SUPPORTED_CPUID)");
		}
		nent *= 2;
	}
	if (ioctl(vm->vcpu, KVM_SET_CPUID2, cpuid)) {
		free(cpuid);
		return vm_fail(vm, "ioctl(KVM_SET_CPUID2)");
	}
	free(cpuid);
	return 0;
}

/**
 * vm_create - open KVM, create a VM with one memory slot and one vCPU
 * @vm: filled in; vm->err says what failed when -1 is returned
 * @irqchip: create the in-kernel PIC, IOAPIC and LAPICs (before the vCPU)
 *
 * Return: 0, or -1 with errno set; vm_destroy() is safe either way.
 */
int vm_create(struct vm *vm, bool irqchip)
{
	struct kvm_userspace_memory_region region = { 0 };
	struct sigaction sa = { .sa_handler = vm_timer_fired };
	int size;

	memset(vm, 0, sizeof(*vm));
	vm->kvm = vm->fd = vm->vcpu = -1;

	/* No SA_RESTART: KVM_RUN must come back to us when the timer fires. */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL))
		return vm_fail(vm, "sigaction(SIGALRM)");

	vm->kvm = open(VM_KVM_DEV, O_RDWR | O_CLOEXEC);
	if (vm->kvm < 0)
		return vm_fail(vm, "open(" VM_KVM_DEV ")");
	vm->fd = ioctl(vm->kvm, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		return vm_fail(vm, "ioctl(KVM_CREATE_VM)");
	/*
	 * VMX without unrestricted guest runs real mode as vm86, which needs
	 * a TSS in guest physical memory that KVM keeps for itself; without
	 * one it warns and uses address 0, the guest's own IVT. SVM and
	 * unrestricted guest ignore the call.
	 */
	if (ioctl(vm->fd, KVM_SET_TSS_ADDR, VM_TSS_ADDR))
		return vm_fail(vm, "ioctl(KVM_SET_TSS_ADDR, %#x)", VM_TSS_ADDR);

	vm->mem = mmap(NULL, VM_MEM_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED) {
		vm->mem = NULL;
		return vm_fail(vm, "mmap(%#x bytes of guest memory)", VM_MEM_SIZE);
	}
	region.memory_size = VM_MEM_SIZE;
	region.userspace_addr = (uintptr_t)vm->mem;
	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &region))
		return vm_fail(vm, "ioctl(KVM_SET_USER_MEMORY_REGION)");

	if (irqchip && ioctl(vm->fd, KVM_CREATE_IRQCHIP, 0))
		return vm_fail(vm, "ioctl(KVM_CREATE_IRQCHIP)");

	vm->vcpu = ioctl(vm->fd, KVM_CREATE_VCPU, 0);
	if (vm->vcpu < 0)
		return vm_fail(vm, "ioctl(KVM_CREATE_VCPU)");
	size = ioctl(vm->kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (size < (int)sizeof(struct kvm_run))
		return vm_fail(vm, "ioctl(KVM_GET_VCPU_MMAP_SIZE) = %d", size);
	vm->run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vm->vcpu, 0);
	if (vm->run == MAP_FAILED) {
		vm->run = NULL;
		return vm_fail(vm, "mmap(vCPU run structure)");
	}
	vm->run_size = size;
	return vm_set_cpuid(vm);
}

void vm_destroy(struct vm *vm)
{
	if (vm->run)
		munmap(vm->run, vm->run_size);
	if (vm->vcpu >= 0)
		close(vm->vcpu);
	if (vm->fd >= 0)
		close(vm->fd);
	if (vm->mem)
		munmap(vm->mem, VM_MEM_SIZE);
	if (vm->kvm >= 0)
		close(vm->kvm);
	vm->run = NULL;
	vm->mem = NULL;
	vm->kvm = vm->fd = vm->vcpu = -1;
}

void *vm_gpa(struct vm *vm, uint64_t gpa)
{
	if (gpa >= VM_MEM_SIZE)
		abort();
	return vm->mem + gpa;
}

void vm_load(struct vm *vm, uint64_t gpa, const void *src, size_t len)
{
	if (gpa + len > VM_MEM_SIZE)
		abort();
	memcpy(vm->mem + gpa, src, len);
}

static void vm_flat_segment(struct kvm_segment *s, uint16_t sel, uint8_t type, bool code64)
{
	memset(s, 0, sizeof(*s));
	s->base = 0;
	s->limit = 0xffffffff;
	s->selector = sel;
	s->type = type;
	s->present = 1;
	s->s = 1;
	s->g = 1;
	s->l = code64;
	s->db = !code64;
}

/**
 * vm_setup_long_mode - put the vCPU in 64-bit mode at @rip
 * @vm: a VM from vm_create()
 * @rip: guest physical (= virtual) address of the first instruction
 *
 * The low 4 GiB are identity-mapped with 2 MiB pages, so the IOAPIC, the
 * LAPIC and MMIO holes are reachable; the GDT has a 64-bit code and a flat
 * data segment; the IDT is empty until vm_set_idt_gate() fills it.
 */
int vm_setup_long_mode(struct vm *vm, uint64_t rip)
{
	uint64_t *pml4 = vm_gpa(vm, VM_PML4), *pdpt = vm_gpa(vm, VM_PDPT);
	uint64_t *pd = vm_gpa(vm, VM_PD), *gdt = vm_gpa(vm, VM_GDT);
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	pml4[0] = VM_PDPT | 0x3;			/* present, writable */
	for (int i = 0; i < 4; i++)
		pdpt[i] = (VM_PD + i * 0x1000) | 0x3;
	for (uint64_t i = 0; i < 4 * 512; i++)
		pd[i] = (i << 21) | 0x83;		/* present, writable, 2 MiB */

	gdt[0] = 0;
	gdt[1] = 0x00af9a000000ffffull;			/* VM_SEL_CODE64 */
	gdt[2] = 0x00cf92000000ffffull;			/* VM_SEL_DATA */

	if (ioctl(vm->vcpu, KVM_GET_SREGS, &sregs))
		return vm_fail(vm, "ioctl(KVM_GET_SREGS)");
	vm_flat_segment(&sregs.cs, VM_SEL_CODE64, 0xb, true);
	vm_flat_segment(&sregs.ds, VM_SEL_DATA, 0x3, false);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	/* A busy 64-bit TSS, which VMX insists on even if nothing uses it. */
	memset(&sregs.tr, 0, sizeof(sregs.tr));
	sregs.tr.limit = 0x67;
	sregs.tr.type = 0xb;
	sregs.tr.present = 1;
	sregs.gdt.base = VM_GDT;
	sregs.gdt.limit = 3 * 8 - 1;
	sregs.idt.base = VM_IDT;
	sregs.idt.limit = 256 * 16 - 1;
	sregs.cr3 = VM_PML4;
	sregs.cr4 = 0x20;				/* PAE */
	sregs.cr0 = 0x80050033;				/* PG WP NE ET MP PE */
	sregs.efer = 0x500;				/* LMA LME */
	if (ioctl(vm->vcpu, KVM_SET_SREGS, &sregs))
		return vm_fail(vm, "ioctl(KVM_SET_SREGS, long mode)");

	memset(&regs, 0, sizeof(regs));
	regs.rip = rip;
	regs.rsp = VM_STACK_TOP;
	regs.rflags = 0x2;
	if (ioctl(vm->vcpu, KVM_SET_REGS, &regs))
		return vm_fail(vm, "ioctl(KVM_SET_REGS)");
	return 0;
}

void vm_set_idt_gate(struct vm *vm, unsigned int vector, uint64_t handler)
{
	uint32_t *gate = vm_gpa(vm, VM_IDT + vector * 16);

	/* 64-bit interrupt gate, DPL 0, present, no IST */
	gate[0] = (uint32_t)(VM_SEL_CODE64 << 16) | (handler & 0xffff);
	gate[1] = (uint32_t)(handler & 0xffff0000) | 0x8e00;
	gate[2] = (uint32_t)(handler >> 32);
	gate[3] = 0;
}

/**
 * vm_run - run the vCPU until it exits to user space or @timeout_ms pass
 *
 * A halted vCPU with an in-kernel LAPIC never exits on its own, so every run
 * is bounded by ITIMER_REAL; its handler sets immediate_exit, which also
 * covers the timer firing just before KVM_RUN is entered.
 */
enum vm_run_result vm_run(struct vm *vm, unsigned int timeout_ms)
{
	struct itimerval it = { 0 }, off = { 0 };
	int r, err;

	it.it_value.tv_sec = timeout_ms / 1000;
	it.it_value.tv_usec = (timeout_ms % 1000) * 1000;
	vm->run->immediate_exit = 0;
	vm_running = vm->run;
	setitimer(ITIMER_REAL, &it, NULL);
	r = ioctl(vm->vcpu, KVM_RUN, 0);
	err = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	vm_running = NULL;
	vm->run->immediate_exit = 0;
	if (r == 0)
		return VM_RUN_EXIT;
	if (err == EINTR)
		return VM_RUN_TIMEOUT;
	errno = err;
	vm_fail(vm, "ioctl(KVM_RUN)");
	return VM_RUN_ERROR;
}

bool vm_exit_is_out(struct vm *vm, uint16_t port, uint32_t *value, unsigned int *size)
{
	struct kvm_run *run = vm->run;
	uint32_t v = 0;

	if (run->exit_reason != KVM_EXIT_IO || run->io.direction != KVM_EXIT_IO_OUT ||
	    run->io.port != port || run->io.size > 4)
		return false;
	memcpy(&v, (uint8_t *)run + run->io.data_offset, run->io.size);
	if (value)
		*value = v;
	if (size)
		*size = run->io.size;
	return true;
}

const char *vm_exit_str(struct vm *vm)
{
	static char s[160];
	struct kvm_run *run = vm->run;
	uint64_t data = 0;

	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		memcpy(&data, (uint8_t *)run + run->io.data_offset,
		       run->io.size <= 8 ? run->io.size : 8);
		snprintf(s, sizeof(s), "KVM_EXIT_IO %s port %#x size %u count %u data %#llx",
			 run->io.direction == KVM_EXIT_IO_OUT ? "out" : "in", run->io.port,
			 run->io.size, run->io.count, (unsigned long long)data);
		break;
	case KVM_EXIT_MMIO:
		memcpy(&data, run->mmio.data, run->mmio.len <= 8 ? run->mmio.len : 8);
		snprintf(s, sizeof(s), "KVM_EXIT_MMIO %s %#llx len %u data %#llx",
			 run->mmio.is_write ? "write" : "read",
			 (unsigned long long)run->mmio.phys_addr, run->mmio.len,
			 (unsigned long long)data);
		break;
	case KVM_EXIT_HLT:
		snprintf(s, sizeof(s), "KVM_EXIT_HLT");
		break;
	case KVM_EXIT_SHUTDOWN:
		snprintf(s, sizeof(s), "KVM_EXIT_SHUTDOWN (triple fault)");
		break;
	case KVM_EXIT_FAIL_ENTRY:
		snprintf(s, sizeof(s), "KVM_EXIT_FAIL_ENTRY reason %#llx",
			 (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		snprintf(s, sizeof(s), "KVM_EXIT_INTERNAL_ERROR suberror %u",
			 run->internal.suberror);
		break;
	default:
		snprintf(s, sizeof(s), "exit reason %u", run->exit_reason);
		break;
	}
	return s;
}

int vm_eventfd(void)
{
	return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

uint64_t vm_eventfd_take(int fd)
{
	uint64_t n;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

long long vm_debugfs_stat(struct vm *vm, const char *name)
{
	char path[128];
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/kvm/%d-%d/%s", (int)getpid(),
		 vm->fd, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}
