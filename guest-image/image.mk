# guest-image/: the L2 initramfs (busybox + agent) and the L1 initramfs
# (busybox, iproute2, QEMU + closure + firmware, L2 kernel, L2 image,
# harness). Both are reproducible: sorted newc, root-owned, fixed mtimes.

# one folder per kernel version (kernel/kernel.mk): L1's image carries the
# selftests built from that kernel's tree, the VMX lane's CD the kernel
IMAGE_DIR := $(BUILD)/images$(KERNEL_SUFFIX)
IMAGE_L2 := $(IMAGE_DIR)/l2.cpio
IMAGE_L1 := $(IMAGE_DIR)/l1.cpio
IMAGE_COMMON := guest-image/lib.sh /bin/busybox

$(IMAGE_L2): guest-image/build-l2.sh guest-image/l2/init $(IMAGE_COMMON)
	@mkdir -p $(IMAGE_DIR)
	@echo "image: L2 initramfs"
	@guest-image/build-l2.sh $@ $(IMAGE_DIR)/l2.root

IMAGE_L1_SHELL := guest-image/l1-shell.sh guest-image/l1/shell/profile \
	$(wildcard guest-image/l1/shell/policies/*.policy)
# the kernel's selftests (kernel/selftests.mk), wherever BUILD puts them
$(IMAGE_L1): export TUNLAB_KSELFTEST := $(abspath $(KSELFTEST_DIR))

$(IMAGE_L1): guest-image/build-l1.sh guest-image/l1/init guest-image/l1/kselftest-cut-short \
		guest-image/l1/kselftest-xen-shinfo \
		$(IMAGE_COMMON) $(IMAGE_L1_SHELL) \
		guest-image/l1-kselftest.sh $(KSELFTEST_STAMP) \
		$(IMAGE_L2) $(KERNEL_L2_BZIMAGE) $(HARNESS_L1_BINS) \
		/usr/bin/qemu-system-x86_64 /usr/sbin/ip
	@echo "image: L1 initramfs"
	@guest-image/build-l1.sh $@ $(IMAGE_DIR)/l1.root $(KERNEL_L2_BZIMAGE) \
		$(IMAGE_L2) $(HARNESS_DIR)

# libvirt's QEMU driver and the launcher: a layer the runner appends to the
# L1 image only for the boots that use it (build-l1-libvirt.sh says why)
IMAGE_L1_LIBVIRT := $(IMAGE_DIR)/l1-libvirt.cpio

$(IMAGE_L1_LIBVIRT): guest-image/build-l1-libvirt.sh guest-image/l1/libvirt-qemu.conf \
		guest-image/lib.sh $(IMAGE_L1) $(HARNESS_VIRT) \
		/usr/lib/x86_64-linux-gnu/libvirt/connection-driver/libvirt_driver_qemu.so
	@echo "image: L1 libvirt layer"
	@guest-image/build-l1-libvirt.sh $@ $(IMAGE_DIR)/l1-libvirt.root $(IMAGE_DIR)/l1.root \
		$(HARNESS_VIRT)

.PHONY: images
images: $(IMAGE_L1) $(IMAGE_L1_LIBVIRT)

include guest-image/selinux/policy.mk
include guest-image/vmx/vmx.mk
