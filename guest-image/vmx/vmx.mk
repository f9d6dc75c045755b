# guest-image/vmx/: the VMX lane's L1 (kvm_intel under Bochs' emulated
# VMX): a boot CD with the lab kernel and a small initramfs, the Bochs
# machine that boots it, and the debugger script that starts Bochs
# running. Included at the end of image.mk.

IMAGE_VMX := $(IMAGE_DIR)/vmx
IMAGE_VMX_CD := $(IMAGE_VMX)/boot.iso

$(IMAGE_VMX_CD): guest-image/vmx/build-cd.sh guest-image/vmx/isolinux.cfg \
		guest-image/vmx/bochsrc guest-image/vmx/continue.rc guest-image/l1/init \
		$(IMAGE_COMMON) $(KERNEL_BZIMAGE) $(HARNESS_EXEC) $(HARNESS_DIR)/l1/ktap/kvm-probes
	@echo "image: VMX lane boot CD"
	@guest-image/vmx/build-cd.sh $(IMAGE_VMX) $(IMAGE_DIR)/vmx.staging \
		$(KERNEL_BZIMAGE) $(HARNESS_DIR)

# not with DEBUG=1: the lane boots the default kernel, which a debug
# build would otherwise have to build too (the Makefile leaves the lane
# out of such runs)
images: $(if $(LAB_DEBUG),,$(IMAGE_VMX_CD))
