# kernel/: Debian's linux-source-$(KERNEL) + kernel/patches/$(KERNEL) +
# kernel/config, built by kernel/build.sh, which caches the bzImage under a
# key made of all its inputs (TUNLAB_CACHE, default /var/cache/tunlab) and
# leaves $(KERNEL_BZIMAGE) untouched when nothing changed.

# KERNEL=6.1 (the default) or 6.12: the Debian tree and the series L1's
# kernel is built from. Each version has a folder of its own (tree,
# objects, bzImage, and the selftests and images built for it: see
# KERNEL_SUFFIX) and a cache key of its own, so switching versions
# rebuilds neither; 6.1 keeps the folders it always had.
KERNEL ?= 6.1
KERNEL_VERSIONS := 6.1 6.12
ifneq ($(words $(filter $(KERNEL_VERSIONS),$(KERNEL))),1)
$(error KERNEL=$(KERNEL): expected one of $(KERNEL_VERSIONS))
endif
# what a version's folders end with: nothing for 6.1, -6.12 for 6.12
KERNEL_SUFFIX := $(if $(filter 6.1,$(KERNEL)),,-$(KERNEL))
KERNEL_DIR := $(BUILD)/kernel$(KERNEL_SUFFIX)
KERNEL_BZIMAGE := $(KERNEL_DIR)/bzImage
# the shared fragments, then the version's own (what only its Kconfig has)
KERNEL_FRAGMENTS := $(sort $(wildcard kernel/config/*.config)) \
	$(sort $(wildcard kernel/config/$(KERNEL)/*.config))

# The debug lane's kernel: the same tree and fragments plus debug.extra
# (KASAN, lockdep, UBSAN, kmemleak, ...) and the version's own
# debug-$(KERNEL).extra (what only that tree's Kconfig has), objects in a
# folder of their own so switching lanes does not rebuild the other one.
KERNEL_DEBUG_BZIMAGE := $(BUILD)/kernel-debug$(KERNEL_SUFFIX)/bzImage
KERNEL_DEBUG_FRAGMENTS := $(KERNEL_FRAGMENTS) kernel/config/debug.extra \
	$(wildcard kernel/config/debug-$(KERNEL).extra)
# Coverage (kernel/config/coverage.config has CONFIG_GCOV_KERNEL, in the
# lab and the debug kernel alike): what of the tree is built with gcov
# profiling, the lines make coverage reports on. kernel/build.sh adds
# GCOV_PROFILE for each to the tree after the series, keys the cache on
# the list, and keeps the .gcno files and sources lcov reads in gcov/
# beside the bzImage.
KERNEL_GCOV_PROFILE := security/tunguard drivers/net/tun.o
KERNEL_GCOV := $(KERNEL_DIR)/gcov
KERNEL_DEBUG_GCOV := $(BUILD)/kernel-debug$(KERNEL_SUFFIX)/gcov
# the kernel L1 boots: the debug one with DEBUG=1 (Makefile)
LAB_KERNEL := $(if $(LAB_DEBUG),$(KERNEL_DEBUG_BZIMAGE),$(KERNEL_BZIMAGE))
LAB_GCOV := $(if $(LAB_DEBUG),$(KERNEL_DEBUG_GCOV),$(KERNEL_GCOV))

# The kernel the nested guests boot (the L1 image carries it): Debian's
# 6.1 tree as it is, whatever L1 runs (a guest kernel that never sees
# tunguard), configured from kernel/config/l2/ alone, a guest that needs
# none of what L1's fragments add. Its tree is its own and carries no
# series, so an edit to the series (the edit loop) leaves its cache key,
# and the L2 kernel, as they are.
KERNEL_L2_BZIMAGE := $(BUILD)/kernel-l2/bzImage
KERNEL_L2_FRAGMENTS := $(sort $(wildcard kernel/config/l2/*.config))

.PHONY: kernel kernel-debug kernel-l2
kernel: $(KERNEL_BZIMAGE)
kernel-debug: $(KERNEL_DEBUG_BZIMAGE)
kernel-l2: $(KERNEL_L2_BZIMAGE)

$(KERNEL_BZIMAGE): FORCE
	@KERNEL_VERSION=$(KERNEL) KERNEL_BUILD_DIR=$(KERNEL_DIR) \
		KERNEL_GCOV_PROFILE="$(KERNEL_GCOV_PROFILE)" kernel/build.sh $@

$(KERNEL_DEBUG_BZIMAGE): FORCE
	@KERNEL_VERSION=$(KERNEL) KERNEL_BUILD_DIR=$(KERNEL_DIR) \
		KERNEL_CONFIGS="$(KERNEL_DEBUG_FRAGMENTS)" \
		KERNEL_GCOV_PROFILE="$(KERNEL_GCOV_PROFILE)" \
		KERNEL_OBJ_DIR=$(KERNEL_DIR)/obj-debug kernel/build.sh $@

$(KERNEL_L2_BZIMAGE): FORCE
	@KERNEL_VERSION=6.1 KERNEL_BUILD_DIR=$(BUILD)/kernel-l2 KERNEL_PATCH_DIR=none \
		KERNEL_CONFIGS="$(KERNEL_L2_FRAGMENTS)" kernel/build.sh $@

# make kunit: tunguard's KUnit suites under User Mode Linux, built and run
# by the tree's own kunit.py with the series' security/tunguard/.kunitconfig
# (kernel/kunit.sh): the fast loop for the policy code, no lab kernel, no
# QEMU. The same tree as the lab kernel's, UML objects of their own.
# Like the kernel targets it takes no machine-wide lock of its own: where
# kernel builds share one, run `flock LOCKFILE make kunit`, or pass
# KBUILD_LOCK=LOCKFILE for kunit.sh to take it (bounded by
# KBUILD_LOCK_WAIT seconds), never both.
.PHONY: kunit
kunit:
	@KERNEL_VERSION=$(KERNEL) KERNEL_BUILD_DIR=$(KERNEL_DIR) \
		KUNIT_BUILD_DIR=$(BUILD)/kunit$(KERNEL_SUFFIX) kernel/kunit.sh
