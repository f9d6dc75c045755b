# tunlab: a virtualization lab for TUN/TAP confinement.
#
#   make lab    install what is missing, build kernel, images and harness,
#               boot the nested stack, run every scenario, write the report
#   make test   the whole test suite: unit tests, KUnit, lab integration
#
# The pipeline: deps -> kernel -> images -> lab -> results/<run-id>/

BUILD := build
SCENARIOS ?= host-scenarios
# extra options for the runner, e.g. LAB_ARGS=--console
LAB_ARGS ?=
# as given, before the lanes below add theirs (make coverage passes it on)
LAB_USER_ARGS := $(LAB_ARGS)
# KERNEL=6.1|6.12: the Debian tree and series L1's kernel is built from
# (kernel/kernel.mk; 6.1 by default)
# DEBUG=1: L1 runs the debug kernel (kernel/config/debug.extra: KASAN,
# lockdep, UBSAN, kmemleak, ...), built beside the default one
DEBUG ?=
LAB_DEBUG := $(filter 1,$(DEBUG))
# Under TCG the debug kernel boots in one to two minutes, not one second,
# and runs the lab several times slower: longer limits, waits in L1 for
# what must happen four times longer (tunlab.slow=4: an L2 to be ready, a
# probe's guest), and RCU's stall warning only past 300 s (at 21 s it
# fires on slow emulation, not on a kernel that hangs)
DEBUG_LAB_ARGS := --boot-timeout 600 --step-timeout 1800 \
	--append "rcupdate.rcu_cpu_stall_timeout=300 tunlab.slow=4"

.DEFAULT_GOAL := lab

include harness/harness.mk
include kernel/kernel.mk
include kernel/selftests.mk
include guest-image/image.mk

# LSM=selinux: the suite with SELinux started beside tunguard and the lab's
# policy enforcing (README, "SELinux beside tunguard"); nothing: as always
LSM ?=
ifneq ($(filter-out selinux,$(LSM)),)
$(error LSM=$(LSM): expected selinux, or nothing for the default lane)
endif
override LAB_ARGS += $(if $(LSM),--selinux enforcing)

# VMX=0 leaves out the VMX lane: kvm-probes in L1 under Bochs, once per
# kvm_intel setting, about 40 s of CPU (README "The VMX lane"). A run of
# chosen SCENARIOS (the edit loop) leaves it out unless VMX=1 asks for it:
# the lane runs kvm-probes, no scenario. DEBUG=1 leaves it out too unless
# VMX=1 asks: under Bochs the debug kernel takes about two minutes a boot
# (make test runs it: debug-test.sh), with acpi=off, as the lane's
# VMX_DEBUG_ARGS say
VMX ?= $(if $(or $(LAB_DEBUG),$(filter command line environment,$(origin SCENARIOS))),0,1)
VMX_DEBUG_ARGS := --vmx-append acpi=off
override LAB_ARGS += $(if $(filter 1,$(VMX)),--vmx --vmx-image \
	$(if $(LAB_DEBUG),$(IMAGE_VMX_DEBUG) $(VMX_DEBUG_ARGS),$(IMAGE_VMX)))

override LAB_ARGS += $(if $(LAB_DEBUG),$(DEBUG_LAB_ARGS))

# --- prerequisites ----------------------------------------------------------
# jq and xmllint let the tests check report.json and junit.xml; secilc
# compiles the SELinux policy (guest-image/selinux/); Bochs (with its
# text display and BIOS), isolinux and xorriso run the VMX lane from a
# boot CD (guest-image/vmx/)
DEPS_PACKAGES := linux-source-6.1 qemu-system-x86 busybox-static iproute2 \
	expect libvirt-dev gcc make libc6-dev bc bison flex libelf-dev \
	libssl-dev cpio xz-utils git perl jq libxml2-utils ccache secilc \
	bochs bochs-term bochsbios vgabios isolinux syslinux-common xorriso
# make bench's naive stack: mkinitramfs builds its initramfs images
DEPS_PACKAGES += initramfs-tools
# kernel/check-series.sh: the tunguard series on Debian's 6.12 tree too,
# Sphinx for the guide the series adds, and ply and GitPython for
# checkpatch's SPDX check (scripts/spdxcheck.py: without them it fails
# on import and checkpatch takes every SPDX tag as valid)
DEPS_PACKAGES += linux-source-6.12 python3-sphinx python3-ply python3-git
# libvirt inside L1: its QEMU driver, embedded in the harness's launcher,
# which builds domain XML with libxml2
DEPS_PACKAGES += libvirt-daemon-driver-qemu libxml2-dev pkgconf
# make test reads report.ktap with the kernel's own parser (kunit.py)
DEPS_PACKAGES += python3
# tunlab merge reads report.json with json-c; the sharding test starts a
# one-node Slurm cluster (slurmctld, slurmd, munged) on this machine
DEPS_PACKAGES += libjson-c-dev slurm-wlm munge
# make fuzz: the scenario parser under libFuzzer, with clang's sanitizers
DEPS_PACKAGES += clang libclang-rt-14-dev
# make coverage and make test's debug lane: the kernel's gcov counters
# into a report (lcov, genhtml; gcov comes with gcc)
DEPS_PACKAGES += lcov

.PHONY: deps
deps:
	@missing=$$(for p in $(DEPS_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -z "$$missing" ]; then echo "deps: all present"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "deps: missing packages:" $$missing; \
		echo "deps: as root, run: apt-get update && apt-get install -y --no-install-recommends" $$missing; \
		exit 1; \
	fi; \
	echo "deps: installing" $$missing; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get update -q >/dev/null && \
	apt-get install -y -q --no-install-recommends $$missing >/dev/null || \
		{ echo "deps: apt-get install failed for:" $$missing; exit 1; }

# --- the lab -----------------------------------------------------------------
.PHONY: lab build check
build: harness $(LAB_KERNEL) images

# SLURM=1: the plan as SHARDS shards of a Slurm job array, merged by a job
# that depends on them (harness/runner/slurm-lab.sh; needs a cluster)
SHARDS ?= 2
# make lab boots one L1 per core, up to four (the runner's -j: the plan
# dealt out between them; README "Two or more L1s"); LAB_JOBS=1 boots one.
# Not for DEBUG=1 (the debug kernel's L1s are memory- and CPU-bound one
# at a time) nor SLURM=1 (the shards are the parallelism); a -j or --jobs
# in LAB_ARGS wins
LAB_JOBS ?= $(shell n=$$(nproc); [ "$$n" -gt 4 ] && n=4; echo $$n)
LAB_JOBS_ARGS := $(if $(LAB_DEBUG)$(filter 1,$(SLURM))$(filter -j% --jobs%,$(LAB_USER_ARGS)),,$(if $(filter-out 1,$(LAB_JOBS)),-j $(LAB_JOBS)))
lab: deps
	@$(MAKE) --no-print-directory build
ifeq ($(SLURM),1)
	@SHARDS=$(SHARDS) TUNLAB=$(HARNESS_RUNNER) harness/runner/slurm-lab.sh results --kernel $(LAB_KERNEL) --initrd $(IMAGE_L1) $(LAB_ARGS) $(SCENARIOS)
else
	@$(HARNESS_RUNNER) --kernel $(LAB_KERNEL) --initrd $(IMAGE_L1) $(LAB_JOBS_ARGS) $(LAB_ARGS) $(SCENARIOS)
endif

# validate the scenario files without booting anything
check: $(HARNESS_RUNNER)
	@$(HARNESS_RUNNER) --check $(SCENARIOS)

# L1 on this terminal: a shell with the lab's tools; 'exit' or Ctrl-D
# leaves, Ctrl-C goes to L1 (harness/tests/shell.exp drives it in make test)
.PHONY: shell
shell: deps
	@$(MAKE) --no-print-directory build
	@$(HARNESS_RUNNER) shell --kernel $(KERNEL_BZIMAGE) --initrd $(IMAGE_L1)

# --- tests -------------------------------------------------------------------
# On a fresh machine the debug kernel is the longest build: it compiles at
# nice 19 beside the tests that leave a core idle (harness/tests/alongside.sh)
# instead of after them.
.PHONY: test kernel-test lab-test fault-test debug-test
test: deps
	@$(MAKE) --no-print-directory unit-test
	@$(MAKE) --no-print-directory build
	@$(MAKE) --no-print-directory kernel-test
	@harness/tests/alongside.sh $(BUILD)/kernel-debug.log \
		"$(MAKE) --no-print-directory kernel-debug KERNEL=$(TEST_DEBUG_KERNEL)" \
		"$(MAKE) --no-print-directory fuzz-test" guest-image/selinux/test-policy.sh \
		"$(MAKE) --no-print-directory lab-test" "$(MAKE) --no-print-directory fault-test"
	@$(MAKE) --no-print-directory debug-test KERNEL=$(TEST_DEBUG_KERNEL)

# kernel/build.sh's refusals: a dropped Kconfig option, a patch that does
# not apply
kernel-test:
	@harness/tests/kernel-test.sh

lab-test: build
	@KERNEL_GCOV=$(KERNEL_GCOV) harness/tests/lab-test.sh $(HARNESS_RUNNER)

# faults injected into real runs (harness/tests/fault-test.sh; as root: it
# mounts small tmpfs folders for the results)
fault-test: build
	@harness/tests/fault-test.sh $(HARNESS_RUNNER)

# the TUN and tunguard part of the lab on the debug kernel: no kernel
# report, no leak (the whole suite: make lab DEBUG=1); the debug kernel of
# KERNEL, and in make test of TEST_DEBUG_KERNEL. make test runs the whole
# suite on 6.1's lab kernel and this part, the series' and tun.c's
# selftests among it, on 6.12's debug kernel: the second tree costs no
# kernel build of its own, the debug kernel serves both roles (README,
# "Two lab kernels")
TEST_DEBUG_KERNEL ?= 6.12
# tunguard's line coverage (percent) the debug lane's run must reach
COVERAGE_FLOOR ?= 90
debug-test:
	@$(MAKE) --no-print-directory build DEBUG=1
	@COVERAGE_FLOOR=$(COVERAGE_FLOOR) VMX_IMAGE=$(IMAGE_VMX_DEBUG) \
		VMX_ARGS="$(VMX_DEBUG_ARGS)" harness/tests/debug-test.sh $(HARNESS_RUNNER) \
		$(KERNEL_DEBUG_BZIMAGE) --initrd $(IMAGE_L1) $(DEBUG_LAB_ARGS)

# --- the mutation check --------------------------------------------------------
# kernel/mutants.sh: each edit of kernel/mutants/6.1.list (tun.c's permission
# paths, tunguard) built alone and run through the TUN and tunguard part of
# the suite; fails if a mutant not marked equivalent survives.
# MUTANTS="ID ..." runs only those. mutants-selftest: a mutant that changes
# nothing must be reported survived (the check bites).
MUTANTS ?=
.PHONY: mutants mutants-selftest
mutants: deps
	@$(MAKE) --no-print-directory build
	@kernel/mutants.sh $(HARNESS_RUNNER) $(MUTANTS)

mutants-selftest: deps
	@$(MAKE) --no-print-directory build
	@MUTANTS_LIST=kernel/mutants/selftest.list kernel/mutants.sh $(HARNESS_RUNNER); \
	status=$$?; \
	if [ $$status = 1 ] && grep -q '^noop-comment  *survived ' results/mutants-selftest.txt; then \
		echo "mutants-selftest: the no-op mutant survived and the check failed, as it must"; \
	else \
		echo "mutants-selftest: FAIL: exit status $$status, expected 1 with noop-comment survived"; exit 1; \
	fi

# --- the debug lane's long runs ----------------------------------------------
# tgstress (harness/l1-programs/tgstress) alone on the debug kernel, its
# kmemleak scan after it; kernel reports on the console fail the run:
#   make soak DURATION=SECONDS    the soak (default 600 s)
#   make kernel-fuzz POLICIES=N   the policy fuzz (default 100000 policies)
DURATION ?= 600
POLICIES ?= 100000
DEBUG_RUN = $(HARNESS_RUNNER) --kernel $(KERNEL_DEBUG_BZIMAGE) --initrd $(IMAGE_L1) \
	$(DEBUG_LAB_ARGS) --no-scenarios

.PHONY: soak kernel-fuzz
soak: deps
	@$(MAKE) --no-print-directory build DEBUG=1
	@$(DEBUG_RUN) --timeout $$(($(DURATION) + 3600)) --ktap tgstress:--policies,0,--soak,$(DURATION)

kernel-fuzz: deps
	@$(MAKE) --no-print-directory build DEBUG=1
	@$(DEBUG_RUN) --timeout 86400 --ktap tgstress:--policies,$(POLICIES),--soak,0

# --- kernel coverage -------------------------------------------------------------
# make coverage: make lab with L1 sending the gcov counters of what the
# kernel profiles (KERNEL_GCOV_PROFILE: tunguard, tun.c) once the suite
# has run (tunlab.gcov=1), then lcov's report of them in
# results/latest/coverage/ (harness/runner/coverage.sh). The lab kernel's
# by default, whose branches are the code's own; DEBUG=1 the debug
# kernel's, whose checkers add branches only a bug takes (README, "Kernel
# coverage"). Without the VMX lane: its L1s under Bochs run kvm-probes
# alone, and would take 40 s each to send counters of code they barely
# touch. The report is made whatever the suite's result; the status is
# the suite's, or the report's when the suite passed.
.PHONY: coverage
coverage: deps
	@status=0; $(MAKE) --no-print-directory lab VMX=0 \
		LAB_ARGS="$(LAB_USER_ARGS) --append tunlab.gcov=1" || status=$$?; \
	harness/runner/coverage.sh results/latest $(LAB_GCOV) || \
		{ s=$$?; [ $$status != 0 ] || status=$$s; }; \
	exit $$status

# --- speed ----------------------------------------------------------------------
.PHONY: bench
bench: deps
	@$(MAKE) --no-print-directory build
	@KERNEL_GCOV_PROFILE="$(KERNEL_GCOV_PROFILE)" harness/bench.sh $(HARNESS_RUNNER)

.PHONY: clean FORCE
clean:
	rm -rf $(BUILD)
FORCE:
