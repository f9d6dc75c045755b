# guest-image/vmx/: the VMX lane's L1 (kvm_intel under Bochs' emulated
# VMX): a boot CD with the lab kernel and a small initramfs, the Bochs
# machine that boots it, and the debugger script that starts Bochs
# running. Included at the end of image.mk.

IMAGE_VMX := $(IMAGE_DIR)/vmx
IMAGE_VMX_CD := $(IMAGE_VMX)/boot.iso
# the same with the debug kernel (make debug-test, make lab DEBUG=1 VMX=1)
IMAGE_VMX_DEBUG := $(IMAGE_DIR)/vmx-debug
IMAGE_VMX_DEBUG_CD := $(IMAGE_VMX_DEBUG)/boot.iso
IMAGE_VMX_INPUTS := guest-image/vmx/build-cd.sh guest-image/vmx/isolinux.cfg \
	guest-image/vmx/bochsrc guest-image/vmx/continue.rc guest-image/l1/init \
	$(IMAGE_COMMON) $(HARNESS_EXEC) $(HARNESS_DIR)/l1/ktap/kvm-probes

$(IMAGE_VMX_CD): $(IMAGE_VMX_INPUTS) $(KERNEL_BZIMAGE)
	@echo "image: VMX lane boot CD"
	@guest-image/vmx/build-cd.sh $(IMAGE_VMX) $(IMAGE_DIR)/vmx.staging \
		$(KERNEL_BZIMAGE) $(HARNESS_DIR)

$(IMAGE_VMX_DEBUG_CD): $(IMAGE_VMX_INPUTS) $(KERNEL_DEBUG_BZIMAGE)
	@echo "image: VMX lane boot CD, debug kernel"
	@guest-image/vmx/build-cd.sh $(IMAGE_VMX_DEBUG) $(IMAGE_DIR)/vmx-debug.staging \
		$(KERNEL_DEBUG_BZIMAGE) $(HARNESS_DIR)

# the CD of the kernel L1 boots: with DEBUG=1 the debug kernel's, so a
# debug build does not build the default kernel too
images: $(if $(LAB_DEBUG),$(IMAGE_VMX_DEBUG_CD),$(IMAGE_VMX_CD))
