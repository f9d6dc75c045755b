# guest-image/: the L2 initramfs (busybox + agent) and the L1 initramfs
# (busybox, iproute2, QEMU + closure + firmware, lab kernel, L2 image,
# harness). Both are reproducible: sorted newc, root-owned, fixed mtimes.

IMAGE_DIR := $(BUILD)/images
IMAGE_L2 := $(IMAGE_DIR)/l2.cpio
IMAGE_L1 := $(IMAGE_DIR)/l1.cpio
IMAGE_COMMON := guest-image/lib.sh /bin/busybox

$(IMAGE_L2): guest-image/build-l2.sh guest-image/l2/init $(IMAGE_COMMON)
	@mkdir -p $(IMAGE_DIR)
	@echo "image: L2 initramfs"
	@guest-image/build-l2.sh $@ $(IMAGE_DIR)/l2.root

$(IMAGE_L1): guest-image/build-l1.sh guest-image/l1/init $(IMAGE_COMMON) \
		$(IMAGE_L2) $(KERNEL_BZIMAGE) $(HARNESS_L1_BINS) \
		/usr/bin/qemu-system-x86_64 /usr/sbin/ip
	@echo "image: L1 initramfs"
	@guest-image/build-l1.sh $@ $(IMAGE_DIR)/l1.root $(KERNEL_BZIMAGE) \
		$(IMAGE_L2) $(HARNESS_DIR)

.PHONY: images
images: $(IMAGE_L1)

include guest-image/selinux/policy.mk
include guest-image/vmx/vmx.mk
