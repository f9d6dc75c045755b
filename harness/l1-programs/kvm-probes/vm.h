/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A one-vCPU KVM virtual machine driven through the /dev/kvm ioctls, in the
 * manner of tools/testing/selftests/kvm: one memory slot at guest physical
 * address 0, guest code copied in from byte arrays, runs bounded by a timer.
 */
#ifndef KVM_PROBES_VM_H
#define KVM_PROBES_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/kvm.h>

#include "common/util.h"

/* Guest physical layout shared by the probes (all inside VM_MEM_SIZE). */
#define VM_MEM_SIZE	0x400000	/* 4 MiB: room above 1 MiB for real mode */
#define VM_PML4		0x1000
#define VM_PDPT		0x2000
#define VM_PD		0x3000		/* four page directories: 0-4 GiB */
#define VM_GDT		0x7000
#define VM_IDT		0x8000
#define VM_CODE		0x10000
#define VM_STACK_TOP	0x30000
#define VM_MBOX		0x40000		/* host <-> guest parameters */
/* KVM's vm86 TSS (three pages) where QEMU puts it, outside guest memory */
#define VM_TSS_ADDR	0xfffbd000

#define VM_SEL_CODE64	0x08
#define VM_SEL_DATA	0x10

/* Default waits, generous because L1 itself runs under TCG. */
/* for something that must happen: longer on a slow L1 (tunlab.slow=) */
#define VM_WAIT_MS	(5000 * lab_slowness())
#define VM_QUIET_MS	200	/* to see that nothing more happens */

struct vm {
	int kvm;		/* /dev/kvm */
	int fd;			/* the VM */
	int vcpu;
	struct kvm_run *run;
	size_t run_size;
	uint8_t *mem;
	char err[256];		/* what failed, for ktest_broken() */
};

enum vm_run_result {
	VM_RUN_EXIT,		/* KVM_RUN returned; see vm->run->exit_reason */
	VM_RUN_TIMEOUT,		/* nothing reached user space before the timer */
	VM_RUN_ERROR,		/* KVM_RUN failed; vm->err says why */
};

/*
 * vm_kvm_missing - why this machine cannot run the probes, or NULL.
 * The string names the requirement (/dev/kvm, KVM API version 12).
 */
const char *vm_kvm_missing(void);
int vm_kvm_check_cap(long cap);

int vm_create(struct vm *vm, bool irqchip);
void vm_destroy(struct vm *vm);
int vm_check_cap(struct vm *vm, long cap);

void *vm_gpa(struct vm *vm, uint64_t gpa);
void vm_load(struct vm *vm, uint64_t gpa, const void *src, size_t len);
int vm_setup_long_mode(struct vm *vm, uint64_t rip);
void vm_set_idt_gate(struct vm *vm, unsigned int vector, uint64_t handler);

enum vm_run_result vm_run(struct vm *vm, unsigned int timeout_ms);

/* The vCPU stopped on an OUT to @port: its value (zero-extended) and size. */
bool vm_exit_is_out(struct vm *vm, uint16_t port, uint32_t *value, unsigned int *size);
/* A short description of the last exit, for diagnostics. */
const char *vm_exit_str(struct vm *vm);

/* Non-blocking eventfd helpers: the counter, or 0 when nothing was signalled. */
int vm_eventfd(void);
uint64_t vm_eventfd_take(int fd);

/* A numbered statistic of this VM in debugfs (kvm/<pid>-<fd>/<name>), or -1. */
long long vm_debugfs_stat(struct vm *vm, const char *name);

#endif
