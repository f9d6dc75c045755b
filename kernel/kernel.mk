# kernel/: Debian's linux-source-6.1 + kernel/patches + kernel/config,
# built by kernel/build.sh, which caches the bzImage under a key made of all
# its inputs (TUNLAB_CACHE, default /var/cache/tunlab) and leaves
# $(KERNEL_BZIMAGE) untouched when nothing changed.

KERNEL_BZIMAGE := $(BUILD)/kernel/bzImage

.PHONY: kernel
kernel: $(KERNEL_BZIMAGE)

$(KERNEL_BZIMAGE): FORCE
	@kernel/build.sh $@
