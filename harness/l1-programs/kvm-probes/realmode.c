// SPDX-License-Identifier: GPL-2.0
/*
 * realmode probe: a guest that starts in real mode, enters protected mode,
 * loads a 4 GiB data segment, goes back to real mode and uses the cached
 * limit there ("unreal" or big real mode) to read and write above 1 MiB,
 * then runs a loop and a POPCNT on memory above 1 MiB in big real mode.
 *
 * What KVM does with it depends on the vendor and on kvm_intel's settings:
 *
 * - SVM, and VMX with unrestricted_guest=Y: the CPU runs real mode, the
 *   mode switches and big real mode inside the guest; KVM emulates next to
 *   nothing.
 * - VMX with unrestricted_guest=N: real mode whose segments look like real
 *   mode (base = selector * 16, 64 KiB limits) runs natively in virtual-8086
 *   mode. Big real mode cannot: vm86 segments have 64 KiB limits. With
 *   emulate_invalid_guest_state=Y (the default) KVM's instruction emulator
 *   runs every instruction while FS keeps its 4 GiB limit; with =N KVM
 *   squeezes the segments into vm86 shape and each access beyond 64 KiB
 *   faults (#GP) and is emulated on its own.
 *   Either way an instruction the emulator lacks (POPCNT) cannot run in big
 *   real mode: KVM stops with KVM_EXIT_INTERNAL_ERROR, suberror
 *   KVM_INTERNAL_ERROR_EMULATION and the instruction's bytes, as
 *   Documentation/virt/kvm/api.rst describes, where the CPU would run it.
 *
 * The probe checks the guest-visible results, which must not depend on the
 * setting, and KVM's insn_emulation statistic per phase of the guest, which
 * must.
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
#define RM_LOOPS	20000		/* plain real mode: 2 instructions each */
#define RM_BIG_LOOPS	1000		/* big real mode: 2 instructions, 1 access */
#define RM_FAULT	0xee		/* reported by the #UD/#SS/#GP handler */
/* fewer emulated instructions than this over a loop phase: it ran natively */
#define RM_NATIVE_MAX	(RM_BIG_LOOPS / 4)

#define RM_STR(x) #x
#define RM_XSTR(x) RM_STR(x)

extern const uint8_t rm_guest[], rm_popcnt[], rm_guest_end[];

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
	"	mov $" RM_XSTR(RM_UNREAL_ADDR) ", %edi\n"
	"	xor %eax, %eax\n"
	"	mov $" RM_XSTR(RM_BIG_LOOPS) ", %cx\n"
	"5:	addl %fs:(%edi), %eax\n"
	"	loop 5b\n"
	"	out %al, %dx\n"
	"	mov %ah, %al\n"
	"	out %al, %dx\n"
	"rm_popcnt:\n"
	"	popcnt %fs:(%edi), %eax\n"
	"	out %al, %dx\n"
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

/* How KVM runs this guest, from the vendor and kvm_intel's parameters. */
enum rm_mode {
	RM_UNKNOWN,	/* neither vmx nor svm: nothing to expect */
	RM_NATIVE,	/* svm, or vmx with unrestricted_guest=Y */
	RM_EMULATED,	/* vmx, unrestricted_guest=N, emulate_invalid_guest_state=Y */
	RM_VM86,	/* vmx, unrestricted_guest=N, emulate_invalid_guest_state=N */
};

/* Phases of the guest whose statistics are checked, by their last report. */
enum rm_phase {
	RM_PHASE_REAL,		/* real mode up to the 20000-iteration loop */
	RM_PHASE_BIG_LOOP,	/* the loop over fs:[0x300000] in big real mode */
	RM_PHASE_NONE,
};

#define RM_BIG_SUM	((uint32_t)RM_UNREAL_VALUE * RM_BIG_LOOPS)

/* The report bytes, in order, and what each group shows. */
static const struct rm_step {
	unsigned int n;
	uint8_t bytes[4];
	enum rm_phase ends;	/* the phase this step's last byte ends */
	bool native_only;	/* only where the CPU runs big real mode itself */
	const char *what;
} rm_steps[] = {
	{ 1, { 0x00 }, RM_PHASE_NONE, false, "16-bit code runs with CR0.PE=0" },
	{ 1, { 0xa5 }, RM_PHASE_NONE, false,
	  "real-mode segments: 2000:0000 and 1fff:0010 are one byte" },
	{ 1, { 0x49 }, RM_PHASE_NONE, false,
	  "INT 30h goes through the real-mode IVT and IRET returns" },
	{ 2, { 0x60, 0xea }, RM_PHASE_REAL, false, "a 20000-iteration LOOP adds up to 0xea60" },
	{ 1, { 0x01 }, RM_PHASE_NONE, false,
	  "protected mode entered through a far jump (CR0.PE=1)" },
	{ 1, { 0xc0 }, RM_PHASE_NONE, false, "a flat 4 GiB segment writes and reads 0x200000" },
	{ 1, { 0x00 }, RM_PHASE_NONE, false,
	  "back in real mode through a 16-bit segment (CR0.PE=0)" },
	{ 4, { 0x11, 0xee, 0xff, 0xc0 }, RM_PHASE_NONE, false,
	  "unreal mode: fs:[0x200000] reads what protected mode wrote" },
	{ 4, { 0xde, 0xb0, 0xa1, 0x5e }, RM_PHASE_NONE, false,
	  "unreal mode: fs:[0x300000] reads back its own write" },
	{ 2, { (uint8_t)RM_BIG_SUM, (uint8_t)(RM_BIG_SUM >> 8) }, RM_PHASE_BIG_LOOP, false,
	  "unreal mode: 1000 additions of fs:[0x300000] add up" },
	{ 1, { (uint8_t)__builtin_popcount(RM_UNREAL_VALUE) }, RM_PHASE_NONE, true,
	  "unreal mode: POPCNT of fs:[0x300000] counts its bits" },
};

/* The statistics read at each report, to tell the phases apart. */
struct rm_stats {
	long long emulated;	/* insn_emulation */
	long long failed;	/* insn_emulation_fail */
	long long exits;
};

static void rm_stats_read(struct vm *vm, struct rm_stats *s)
{
	s->emulated = vm_debugfs_stat(vm, "insn_emulation");
	s->failed = vm_debugfs_stat(vm, "insn_emulation_fail");
	s->exits = vm_debugfs_stat(vm, "exits");
}

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

/* A boolean kvm_intel parameter as 'Y'/'N', or 0 where it is absent. */
static char rm_kvm_intel_param(const char *name)
{
	char path[128];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "/sys/module/kvm_intel/parameters/%s", name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	c = fgetc(f);
	fclose(f);
	return c == EOF ? 0 : (char)c;
}

static enum rm_mode rm_mode_of(const char *vendor, char ug, char eigs)
{
	if (!vendor)
		return RM_UNKNOWN;
	if (!strcmp(vendor, "svm") || ug == 'Y')
		return RM_NATIVE;
	return eigs == 'N' ? RM_VM86 : RM_EMULATED;
}

static const char *rm_mode_str(enum rm_mode m)
{
	switch (m) {
	case RM_NATIVE:
		return "the CPU runs real and big real mode";
	case RM_EMULATED:
		return "vm86 for real mode, KVM's emulator for big real mode";
	case RM_VM86:
		return "vm86 for both, each access beyond 64 KiB emulated";
	case RM_UNKNOWN:
		break;
	}
	return "unknown";
}

static void rm_hex(char *s, size_t len, const uint8_t *b, unsigned int n)
{
	size_t at = 0;

	s[0] = '\0';
	for (unsigned int i = 0; i < n && at + 4 < len; i++)
		at += snprintf(s + at, len - at, "%s%02x", i ? " " : "", b[i]);
}

/*
 * Compare the report stream with rm_steps byte by byte. Where big real mode
 * is not native the stream must end before the native-only steps.
 */
static void rm_check_reports(struct ktest *t, enum rm_mode mode, const uint8_t *seen,
			     unsigned int n_seen)
{
	unsigned int at = 0;

	for (size_t i = 0; i < ARRAY_SIZE(rm_steps); i++) {
		const struct rm_step *s = &rm_steps[i];
		unsigned int have = n_seen > at ? n_seen - at : 0;
		bool ok = have >= s->n && !memcmp(seen + at, s->bytes, s->n);
		char want[16], got[16];

		if (s->native_only && mode != RM_NATIVE)
			break;
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

/* The report count at which @phase ends, from rm_steps. */
static unsigned int rm_phase_end(enum rm_phase phase)
{
	unsigned int at = 0;

	for (size_t i = 0; i < ARRAY_SIZE(rm_steps); i++) {
		at += rm_steps[i].n;
		if (rm_steps[i].ends == phase)
			return at;
	}
	abort();
}

/* insn_emulation over the big real mode loop, per mode: [min, max) */
static const struct {
	long long min, max;
	const char *what;
} rm_big_loop[] = {
	[RM_NATIVE] = { 0, RM_NATIVE_MAX, "ran natively" },
	[RM_EMULATED] = { 2 * RM_BIG_LOOPS, 1000 * RM_BIG_LOOPS, "every instruction emulated" },
	[RM_VM86] = { RM_BIG_LOOPS, 2 * RM_BIG_LOOPS,
		      "each access beyond the vm86 limit emulated, the rest native" },
};

/*
 * How each phase ran, from insn_emulation: plain real mode (2 * RM_LOOPS
 * instructions in the loop) must never be emulated, vm86 runs it; the big
 * real mode loop (2 * RM_BIG_LOOPS instructions, RM_BIG_LOOPS accesses
 * above 1 MiB) is native, wholly emulated, or emulated access by access.
 */
static void rm_check_emulation(struct ktest *t, enum rm_mode mode, const struct rm_stats *at,
			       unsigned int n_seen)
{
	unsigned int real_end = rm_phase_end(RM_PHASE_REAL);
	unsigned int big_end = rm_phase_end(RM_PHASE_BIG_LOOP);
	long long real, big;

	if (at[0].emulated < 0) {
		ktest_skip(t, "debugfs kvm/<pid>-<fd>/insn_emulation not readable",
			   "insn_emulation per phase: %s", rm_mode_str(mode));
		return;
	}
	if (mode == RM_UNKNOWN) {
		ktest_skip(t, "neither vmx nor svm in /proc/cpuinfo flags",
			   "insn_emulation per phase");
		return;
	}
	if (n_seen < big_end) {
		ktest_check(t, false, "insn_emulation per phase: the guest reached the phases");
		return;
	}
	real = at[real_end].emulated - at[0].emulated;
	/* from the last unreal read-back to the loop's first report byte */
	big = at[big_end - 1].emulated - at[big_end - 2].emulated;
	ktest_diag(t, "insn_emulation: real-mode phase +%lld, big real mode loop +%lld", real, big);

	if (!ktest_check(t, real < RM_NATIVE_MAX, "plain real mode ran without emulation (%s)",
			 mode == RM_NATIVE ? "native" : "vm86"))
		ktest_diag(t, "expected fewer than %d emulated instructions over %d loop "
			   "iterations, seen %lld", RM_NATIVE_MAX, RM_LOOPS, real);

	if (!ktest_check(t, big >= rm_big_loop[mode].min && big < rm_big_loop[mode].max,
			 "big real mode loop: %s", rm_big_loop[mode].what))
		ktest_diag(t, "expected %lld to %lld emulated instructions over %d iterations, "
			   "seen %lld", rm_big_loop[mode].min, rm_big_loop[mode].max - 1,
			   RM_BIG_LOOPS, big);
}

/*
 * The end of the run: HLT where big real mode is native; elsewhere KVM's
 * documented emulation failure on POPCNT, with its bytes and its counter.
 */
static void rm_check_end(struct ktest *t, struct vm *vm, enum rm_mode mode, bool halted,
			 long long failed)
{
	struct kvm_run *run = vm->run;
	size_t at = rm_popcnt - rm_guest;
	bool bytes_ok;

	if (mode == RM_NATIVE || mode == RM_UNKNOWN) {
		ktest_check(t, halted, "the guest ends with HLT (KVM_EXIT_HLT)");
		return;
	}
	if (!ktest_check(t, !halted && run->exit_reason == KVM_EXIT_INTERNAL_ERROR &&
			 run->emulation_failure.suberror == KVM_INTERNAL_ERROR_EMULATION,
			 "POPCNT in big real mode: KVM_EXIT_INTERNAL_ERROR, "
			 "KVM_INTERNAL_ERROR_EMULATION")) {
		ktest_diag(t, "the run ended with %s", halted ? "KVM_EXIT_HLT" : vm_exit_str(vm));
		return;
	}
	bytes_ok = (run->emulation_failure.flags &
		    KVM_INTERNAL_ERROR_EMULATION_FLAG_INSTRUCTION_BYTES) &&
		   run->emulation_failure.insn_size > 0 &&
		   run->emulation_failure.insn_size <= sizeof(run->emulation_failure.insn_bytes) &&
		   run->emulation_failure.insn_size <= (size_t)(rm_guest_end - rm_popcnt) &&
		   !memcmp(run->emulation_failure.insn_bytes, rm_guest + at,
			   run->emulation_failure.insn_size);
	if (!ktest_check(t, bytes_ok, "the failure reports the POPCNT's bytes")) {
		char want[48], got[48];

		rm_hex(want, sizeof(want), rm_popcnt, 8);
		rm_hex(got, sizeof(got), run->emulation_failure.insn_bytes,
		       run->emulation_failure.insn_size < 8 ? run->emulation_failure.insn_size : 8);
		ktest_diag(t, "flags %#llx, %u bytes: %s; the guest's: %s",
			   (unsigned long long)run->emulation_failure.flags,
			   run->emulation_failure.insn_size, got, want);
	}
	if (!ktest_check(t, failed == 1, "insn_emulation_fail counted it once"))
		ktest_diag(t, "insn_emulation_fail +%lld", failed);
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
	char ug = rm_kvm_intel_param("unrestricted_guest");
	char eigs = rm_kvm_intel_param("emulate_invalid_guest_state");
	enum rm_mode mode = rm_mode_of(vendor, ug, eigs);
	struct rm_stats at[64 + 1], end;
	struct kvm_sregs sregs;
	uint8_t seen[64];
	unsigned int n_seen = 0;
	uint32_t byte;
	struct vm vm;
	bool halted = false;

	ktest_diag(t, "vendor: %s; kvm_intel.unrestricted_guest: %s, "
		   "emulate_invalid_guest_state: %s%s", vendor ? vendor : "none",
		   ug ? (char[]){ ug, 0 } : "absent", eigs ? (char[]){ eigs, 0 } : "absent",
		   ug && vendor && !strcmp(vendor, "svm") ? " (kvm_intel unused: vendor is svm)" : "");
	ktest_diag(t, "expected: %s", rm_mode_str(mode));
	if (vm_create(&vm, false)) {
		ktest_broken(t, "%s", vm.err);
		goto out;
	}
	vm_load(&vm, RM_LOAD, rm_guest, rm_guest_end - rm_guest);
	if (rm_enter_real_mode(&vm, o->wrong)) {
		ktest_broken(t, "setting the real-mode start state: %s", strerror(errno));
		goto out;
	}
	rm_stats_read(&vm, &at[0]);
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
			if (vm.run->exit_reason != KVM_EXIT_INTERNAL_ERROR || mode == RM_NATIVE)
				ktest_diag(t, "unexpected exit: %s", vm_exit_str(&vm));
			break;
		}
		seen[n_seen++] = (uint8_t)byte;
		rm_stats_read(&vm, &at[n_seen]);
	}
	rm_stats_read(&vm, &end);
	ktest_diag(t, "KVM stats over the run: insn_emulation +%lld, insn_emulation_fail +%lld, "
		   "exits +%lld", end.emulated - at[0].emulated, end.failed - at[0].failed,
		   end.exits - at[0].exits);

	rm_check_reports(t, mode, seen, n_seen);
	rm_check_end(t, &vm, mode, halted, end.failed - at[0].failed);
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
	rm_check_emulation(t, mode, at, n_seen);
out:
	vm_destroy(&vm);
}
