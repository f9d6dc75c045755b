# kernel/: Debian's linux-source-6.1 + kernel/patches + kernel/config,
# built by kernel/build.sh, which caches the bzImage under a key made of all
# its inputs (TUNLAB_CACHE, default /var/cache/tunlab) and leaves
# $(KERNEL_BZIMAGE) untouched when nothing changed.

KERNEL_BZIMAGE := $(BUILD)/kernel/bzImage
KERNEL_FRAGMENTS := $(sort $(wildcard kernel/config/*.config))

# The debug lane's kernel: the same tree and fragments plus debug.extra
# (KASAN, lockdep, UBSAN, kmemleak, ...), objects in a folder of their own
# so switching lanes does not rebuild the other one.
KERNEL_DEBUG_BZIMAGE := $(BUILD)/kernel-debug/bzImage
# the kernel L1 boots: the debug one with DEBUG=1 (Makefile)
LAB_KERNEL := $(if $(LAB_DEBUG),$(KERNEL_DEBUG_BZIMAGE),$(KERNEL_BZIMAGE))

# The kernel the nested guests boot (the L1 image carries it): the same
# tree, configured from kernel/config/l2/ alone, a guest that needs none of
# what L1's fragments add, with objects of its own
KERNEL_L2_BZIMAGE := $(BUILD)/kernel-l2/bzImage
KERNEL_L2_FRAGMENTS := $(sort $(wildcard kernel/config/l2/*.config))

.PHONY: kernel kernel-debug kernel-l2
kernel: $(KERNEL_BZIMAGE)
kernel-debug: $(KERNEL_DEBUG_BZIMAGE)
kernel-l2: $(KERNEL_L2_BZIMAGE)

$(KERNEL_BZIMAGE): FORCE
	@kernel/build.sh $@

$(KERNEL_DEBUG_BZIMAGE): FORCE
	@KERNEL_CONFIGS="$(KERNEL_FRAGMENTS) kernel/config/debug.extra" \
		KERNEL_OBJ_DIR=$(BUILD)/kernel/obj-debug kernel/build.sh $@

$(KERNEL_L2_BZIMAGE): FORCE
	@KERNEL_CONFIGS="$(KERNEL_L2_FRAGMENTS)" KERNEL_OBJ_DIR=$(BUILD)/kernel/obj-l2 \
		kernel/build.sh $@
