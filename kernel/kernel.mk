# kernel/: Debian's linux-source-6.1 + kernel/patches + kernel/config,
# built by kernel/build.sh, which caches the bzImage under a key made of all
# its inputs (TUNLAB_CACHE, default /var/cache/tunlab) and leaves
# $(KERNEL_BZIMAGE) untouched when nothing changed.

KERNEL_BZIMAGE := $(BUILD)/kernel/bzImage
# The second configuration: SELinux stacked with tunguard, to show both
# keep per-device state in the shared TUN blob (booted by make test).
KERNEL_SELINUX_BZIMAGE := $(BUILD)/kernel-selinux/bzImage
KERNEL_FRAGMENTS := $(sort $(wildcard kernel/config/*.config))

.PHONY: kernel kernel-selinux
kernel: $(KERNEL_BZIMAGE)
kernel-selinux: $(KERNEL_SELINUX_BZIMAGE)

$(KERNEL_BZIMAGE): FORCE
	@kernel/build.sh $@

$(KERNEL_SELINUX_BZIMAGE): FORCE
	@KERNEL_CONFIGS="$(KERNEL_FRAGMENTS) kernel/config/selinux.extra" \
		KERNEL_OBJ_DIR=$(BUILD)/kernel/obj-selinux kernel/build.sh $@
