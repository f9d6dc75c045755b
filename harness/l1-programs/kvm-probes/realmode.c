// SPDX-License-Identifier: GPL-2.0
/*
 * realmode probe: a guest that starts in real mode, enters protected mode,
 * loads a 4 GiB data segment, goes back to real mode and uses the cached
 * limit there ("unreal" or big real mode) to read and write above 1 MiB.
 *
 * On SVM, and on VMX with kvm_intel.unrestricted_guest=Y, the CPU runs real
 * mode natively inside the guest; VMX without unrestricted guest makes KVM
 * emulate it instruction by instruction. The probe tells which happened from
 * KVM's insn_emulation statistic across a 20000-iteration real-mode loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "probes.h"
#include "vm.h"

#define RM_PORT		0x530
#define RM_LOAD		0x10000		/* CS = 0x1000 */
#define RM_PM_ADDR	0x200000	/* written in protected mode */
#define RM_PM_VALUE	0xc0ffee11
#define RM_UNREAL_ADDR	0x300000	/* written in real mode, above 1 MiB */
#define RM_UNREAL_VALUE	0x5ea1b0de
#define RM_LOOPS	20000
#define RM_FAULT	0xee		/* reported by the #UD/#SS/#GP handler */
/* insn_emulation below this over RM_LOOPS loop iterations: ran natively */
#define RM_NATIVE_MAX	1000

#define RM_STR(x) #x
#define RM_XSTR(x) RM_STR(x)

extern const uint8_t rm_guest[], rm_guest_end[];

/*
 * Every result goes out as one byte to RM_PORT, with DX holding the port
 * throughout. BX != 0 (--wrong) makes the guest skip its unreal-mode write.
 */
__asm__(
	".pushsection .rodata\n"
	".code16\n"
	"rm_guest:\n"
	"	mov $" RM_XSTR(RM_PORT) ", %dx\n"
	"	smsw %ax\n"
	"	and $1, %al\n"
	"	out %al, %dx\n"
	"	xor %ax, %ax\n"
	"	mov %ax, %es\n"
	"	movw $(rm_int30 - rm_guest), %es:0xc0\n"
	"	movw $0x1000, %es:0xc2\n"
	"	movw $(rm_fault - rm_guest), %es:0x18\n"	/* #UD */
	"	movw $0x1000, %es:0x1a\n"
	"	movw $(rm_fault - rm_guest), %es:0x30\n"	/* #SS */
	"	movw $0x1000, %es:0x32\n"
	"	movw $(rm_fault - rm_guest), %es:0x34\n"	/* #GP */
	"	movw $0x1000, %es:0x36\n"
	"	mov $0x2000, %ax\n"
	"	mov %ax, %es\n"
	"	movb $0xa5, %es:0\n"
	"	mov $0x1fff, %ax\n"
	"	mov %ax, %es\n"
	"	mov %es:0x10, %al\n"
	"	out %al, %dx\n"
	"	int $0x30\n"
	"	out %al, %dx\n"
	"	xor %ax, %ax\n"
	"	mov $" RM_XSTR(RM_LOOPS) ", %cx\n"
	"1:	add $3, %ax\n"
	"	loop 1b\n"
	"	out %al, %dx\n"
	"	mov %ah, %al\n"
	"	out %al, %dx\n"
	"	cli\n"
	"	lgdtl %cs:(rm_gdt_desc - rm_guest)\n"
	"	mov %cr0, %eax\n"
	"	or $1, %eax\n"
	"	mov %eax, %cr0\n"
	"	ljmpl $0x08, $(" RM_XSTR(RM_LOAD) " + rm_pm32 - rm_guest)\n"
	".code32\n"
	"rm_pm32:\n"
	"	mov $0x10, %ax\n"
	"	mov %ax, %ds\n"
	"	mov %ax, %es\n"
	"	mov %ax, %fs\n"
	"	mov %ax, %gs\n"
	"	mov %ax, %ss\n"
	"	smsw %ax\n"
	"	and $1, %al\n"
	"	out %al, %dx\n"
	"	movl $" RM_XSTR(RM_PM_VALUE) ", " RM_XSTR(RM_PM_ADDR) "\n"
	"	movzbl " RM_XSTR(RM_PM_ADDR) " + 3, %eax\n"
	"	out %al, %dx\n"
	"	ljmp $0x18, $(rm_pm16 - rm_guest)\n"
	".code16\n"
	"rm_pm16:\n"
	"	mov $0x20, %ax\n"
	"	mov %ax, %ds\n"
	"	mov %ax, %es\n"
	"	mov %ax, %ss\n"
	"	mov %cr0, %eax\n"
	"	and $0xfffffffe, %eax\n"
	"	mov %eax, %cr0\n"
	"	ljmp $0x1000, $(rm_real - rm_guest)\n"
	"rm_real:\n"
	"	mov $0x1000, %ax\n"
	"	mov %ax, %ds\n"
	"	mov %ax, %es\n"
	"	mov %ax, %ss\n"
	"	xor %ax, %ax\n"
	"	mov %ax, %fs\n"				/* base 0; the limit stays 4 GiB */
	"	smsw %ax\n"
	"	and $1, %al\n"
	"	out %al, %dx\n"
	"	mov $" RM_XSTR(RM_PM_ADDR) ", %esi\n"
	"	mov $4, %cx\n"
	"2:	mov %fs:(%esi), %al\n"
	"	out %al, %dx\n"
	"	inc %esi\n"
	"	loop 2b\n"
	"	mov $" RM_XSTR(RM_UNREAL_ADDR) ", %edi\n"
	"	test %bx, %bx\n"
	"	jnz 3f\n"
	"	movl $" RM_XSTR(RM_UNREAL_VALUE) ", %fs:(%edi)\n"
	"3:	mov $4, %cx\n"
	"4:	mov %fs:(%edi), %al\n"
	"	out %al, %dx\n"
	"	inc %edi\n"
	"	loop 4b\n"
	"	hlt\n"
	"rm_int30:\n"
	"	mov $0x49, %al\n"
	"	iret\n"
	"rm_fault:\n"
	"	mov $" RM_XSTR(RM_FAULT) ", %al\n"
	"	out %al, %dx\n"
	"	hlt\n"
	"	.p2align 3\n"
	"rm_gdt:\n"
	"	.quad 0\n"
	"	.quad 0x00cf9a000000ffff\n"		/* 0x08 32-bit code, flat */
	"	.quad 0x00cf92000000ffff\n"		/* 0x10 data, flat, 4 GiB */
	"	.quad 0x00009a010000ffff\n"		/* 0x18 16-bit code at RM_LOAD */
	"	.quad 0x000092010000ffff\n"		/* 0x20 16-bit data at RM_LOAD */
	"rm_gdt_desc:\n"
	"	.word rm_gdt_desc - rm_gdt - 1\n"
	"	.long " RM_XSTR(RM_LOAD) " + rm_gdt - rm_guest\n"
	"rm_guest_end:\n"
	".code64\n"
	".popsection\n");

/* The report bytes, in order, and what each group shows. */
static const struct rm_step {
	unsigned int n;
	uint8_t bytes[4];
	const char *what;
} rm_steps[] = {
	{ 1, { 0x00 }, "16-bit code runs with CR0.PE=0" },
	{ 1, { 0xa5 }, "real-mode segments: 2000:0000 and 1fff:0010 are one byte" },
	{ 1, { 0x49 }, "INT 30h goes through the real-mode IVT and IRET returns" },
	{ 2, { 0x60, 0xea }, "a 20000-iteration LOOP adds up to 0xea60" },
	{ 1, { 0x01 }, "protected mode entered through a far jump (CR0.PE=1)" },
	{ 1, { 0xc0 }, "a flat 4 GiB segment writes and reads 0x200000" },
	{ 1, { 0x00 }, "back in real mode through a 16-bit segment (CR0.PE=0)" },
	{ 4, { 0x11, 0xee, 0xff, 0xc0 }, "unreal mode: fs:[0x200000] reads what protected mode wrote" },
	{ 4, { 0xde, 0xb0, 0xa1, 0x5e }, "unreal mode: fs:[0x300000] reads back its own write" },
};

/* "vmx", "svm" or NULL, from the flags of /proc/cpuinfo. */
static const char *rm_vendor(void)
{
	const char *vendor = NULL;
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return NULL;
	while (!vendor && fgets(line, sizeof(line), f)) {
		char *save = NULL;

		if (strncmp(line, "flags", 5))
			continue;
		for (char *w = strtok_r(line, " \t\n", &save); w && !vendor;
		     w = strtok_r(NULL, " \t\n", &save))
			if (!strcmp(w, "vmx") || !strcmp(w, "svm"))
				vendor = !strcmp(w, "vmx") ? "vmx" : "svm";
	}
	fclose(f);
	return vendor;
}

/* kvm_intel.unrestricted_guest as 'Y'/'N', or 0 where the parameter is absent. */
static char rm_unrestricted_guest(void)
{
	FILE *f = fopen("/sys/module/kvm_intel/parameters/unrestricted_guest", "re");
	int c;

	if (!f)
		return 0;
	c = fgetc(f);
	fclose(f);
	return c == EOF ? 0 : (char)c;
}

static void rm_hex(char *s, size_t len, const uint8_t *b, unsigned int n)
{
	size_t at = 0;

	s[0] = '\0';
	for (unsigned int i = 0; i < n && at + 4 < len; i++)
		at += snprintf(s + at, len - at, "%s%02x", i ? " " : "", b[i]);
}

/* Compare the report stream with rm_steps byte by byte. */
static void rm_check_reports(struct ktest *t, const uint8_t *seen, unsigned int n_seen)
{
	unsigned int at = 0;

	for (size_t i = 0; i < ARRAY_SIZE(rm_steps); i++) {
		const struct rm_step *s = &rm_steps[i];
		unsigned int have = n_seen > at ? n_seen - at : 0;
		bool ok = have >= s->n && !memcmp(seen + at, s->bytes, s->n);
		char want[16], got[16];

		if (!ktest_check(t, ok, "%s", s->what)) {
			rm_hex(want, sizeof(want), s->bytes, s->n);
			rm_hex(got, sizeof(got), seen + at, have < s->n ? have : s->n);
			ktest_diag(t, "expected bytes %u..%u = %s, seen %s", at, at + s->n - 1, want,
				  have ? got : "nothing");
		}
		at += s->n;
	}
	if (!ktest_check(t, n_seen == at, "no report bytes beyond the %u expected", at))
		ktest_diag(t, "seen %u bytes%s", n_seen,
			  memchr(seen, RM_FAULT, n_seen) ? ", one of them the fault marker 0xee" : "");
}

static void rm_check_memory(struct ktest *t, struct vm *vm, uint64_t gpa, uint32_t want,
			    const char *what)
{
	const uint8_t *b = vm_gpa(vm, gpa);
	uint8_t w[4];
	char ws[16], gs[16];

	memcpy(w, &want, sizeof(w));
	if (!ktest_check(t, !memcmp(b, w, sizeof(w)), "%s", what)) {
		rm_hex(ws, sizeof(ws), w, 4);
		rm_hex(gs, sizeof(gs), b, 4);
		ktest_diag(t, "expected bytes at %#" PRIx64 " = %s, seen %s", gpa, ws, gs);
	}
}

/*
 * How real mode ran, judged from insn_emulation across the whole guest run:
 * the LOOP alone is 2 * RM_LOOPS instructions if KVM has to emulate them.
 */
static void rm_check_emulation(struct ktest *t, const char *vendor, char ug,
			       long long emulated, long long exits)
{
	bool svm = vendor && !strcmp(vendor, "svm");
	bool want_native = svm || ug == 'Y';

	ktest_diag(t, "KVM stats over the run: insn_emulation +%lld, exits +%lld", emulated,
		  exits);
	if (emulated < 0) {
		ktest_skip(t, "debugfs kvm/<pid>-<fd>/insn_emulation not readable",
			  "real mode ran %s", want_native ? "natively" : "through emulation");
		return;
	}
	if (!vendor) {
		ktest_skip(t, "neither vmx nor svm in /proc/cpuinfo flags",
			  "real mode ran natively or through emulation");
		return;
	}
	if (want_native) {
		if (!ktest_check(t, emulated < RM_NATIVE_MAX,
				"real mode ran natively in the guest (%s)",
				svm ? "svm" : "vmx, unrestricted_guest=Y"))
			ktest_diag(t, "expected fewer than %d emulated instructions, seen %lld",
				  RM_NATIVE_MAX, emulated);
		ktest_skip(t, svm ? "VMX: this CPU is svm, kvm_intel has no hardware support" :
			  "VMX: kvm_intel.unrestricted_guest=Y here",
			  "unrestricted_guest=0: KVM emulates real and big real mode");
		return;
	}
	if (!ktest_check(t, emulated >= 2 * RM_LOOPS,
			"real mode was emulated by KVM (vmx, unrestricted_guest=%c)", ug ? ug : '?'))
		ktest_diag(t, "expected at least %d emulated instructions, seen %lld",
			  2 * RM_LOOPS, emulated);
}

static int rm_enter_real_mode(struct vm *vm, bool wrong)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	if (ioctl(vm->vcpu, KVM_GET_SREGS, &sregs))
		return -1;
	sregs.cs.base = RM_LOAD;
	sregs.cs.selector = RM_LOAD >> 4;
	sregs.ds.base = sregs.es.base = sregs.ss.base = RM_LOAD;
	sregs.ds.selector = sregs.es.selector = sregs.ss.selector = RM_LOAD >> 4;
	if (ioctl(vm->vcpu, KVM_SET_SREGS, &sregs))
		return -1;
	memset(&regs, 0, sizeof(regs));
	regs.rip = 0;
	regs.rsp = 0xf000;
	regs.rflags = 0x2;
	regs.rbx = wrong;
	return ioctl(vm->vcpu, KVM_SET_REGS, &regs);
}

void probe_realmode(struct ktest *t, const struct probe_opts *o)
{
	const char *vendor = rm_vendor();
	char ug = rm_unrestricted_guest();
	long long emul0, exits0, emul1 = -1, exits1 = -1;
	struct kvm_sregs sregs;
	uint8_t seen[64];
	unsigned int n_seen = 0;
	uint32_t byte;
	struct vm vm;
	bool halted = false;

	ktest_diag(t, "vendor: %s; kvm_intel.unrestricted_guest: %s%s", vendor ? vendor : "none",
		  ug == 'Y' ? "Y" : ug == 'N' ? "N" : "absent",
		  ug && vendor && !strcmp(vendor, "svm") ? " (kvm_intel unused: vendor is svm)" : "");
	if (vm_create(&vm, false)) {
		ktest_broken(t, "%s", vm.err);
		goto out;
	}
	vm_load(&vm, RM_LOAD, rm_guest, rm_guest_end - rm_guest);
	if (rm_enter_real_mode(&vm, o->wrong)) {
		ktest_broken(t, "setting the real-mode start state: %s", strerror(errno));
		goto out;
	}
	emul0 = vm_debugfs_stat(&vm, "insn_emulation");
	exits0 = vm_debugfs_stat(&vm, "exits");
	while (n_seen < sizeof(seen)) {
		enum vm_run_result r = vm_run(&vm, VM_WAIT_MS);

		if (r != VM_RUN_EXIT) {
			ktest_diag(t, "guest stopped early: %s",
				  r == VM_RUN_TIMEOUT ? "timed out" : vm.err);
			break;
		}
		if (vm.run->exit_reason == KVM_EXIT_HLT) {
			halted = true;
			break;
		}
		if (!vm_exit_is_out(&vm, RM_PORT, &byte, NULL)) {
			ktest_diag(t, "unexpected exit: %s", vm_exit_str(&vm));
			break;
		}
		seen[n_seen++] = (uint8_t)byte;
	}
	if (emul0 >= 0 && exits0 >= 0) {
		emul1 = vm_debugfs_stat(&vm, "insn_emulation") - emul0;
		exits1 = vm_debugfs_stat(&vm, "exits") - exits0;
	}

	rm_check_reports(t, seen, n_seen);
	ktest_check(t, halted, "the guest ends with HLT (KVM_EXIT_HLT)");
	if (ioctl(vm.vcpu, KVM_GET_SREGS, &sregs)) {
		ktest_broken(t, "ioctl(KVM_GET_SREGS): %s", strerror(errno));
		goto out;
	}
	if (!ktest_check(t, !(sregs.cr0 & 1) && sregs.cs.selector == RM_LOAD >> 4 &&
			sregs.cs.base == RM_LOAD,
			"KVM_GET_SREGS: the vCPU is in real mode at CS=%#x", RM_LOAD >> 4))
		ktest_diag(t, "seen CR0 %#llx, CS %#x base %#llx", (unsigned long long)sregs.cr0,
			  sregs.cs.selector, (unsigned long long)sregs.cs.base);
	if (!ktest_check(t, sregs.fs.selector == 0 && sregs.fs.limit == 0xffffffff,
			"KVM_GET_SREGS: FS=0 kept its 4 GiB limit in real mode"))
		ktest_diag(t, "expected FS selector 0 limit 0xffffffff, seen %#x limit %#x",
			  sregs.fs.selector, sregs.fs.limit);
	rm_check_memory(t, &vm, RM_PM_ADDR, RM_PM_VALUE,
			"guest memory at 0x200000 holds the protected-mode write");
	rm_check_memory(t, &vm, RM_UNREAL_ADDR, RM_UNREAL_VALUE,
			"guest memory at 0x300000 holds the unreal-mode write");
	rm_check_emulation(t, vendor, ug, emul1, exits1);
out:
	vm_destroy(&vm);
}
