# The kernel's own selftests L1 runs (tools/testing/selftests/net/tun.c,
# the series' tunguard tests and a few KVM selftests), built by
# kernel/selftests.sh from the tree of the kernel L1 boots (KERNEL) after
# that kernel, cached beside it; one folder per version.

KSELFTEST_DIR := $(BUILD)/kselftest$(KERNEL_SUFFIX)
KSELFTEST_STAMP := $(BUILD)/kselftest$(KERNEL_SUFFIX).stamp

# after the kernel L1 boots (its build leaves the tree), again when the
# series changes
$(KSELFTEST_STAMP): $(LAB_KERNEL) kernel/selftests.sh $(wildcard kernel/patches/$(KERNEL)/*.patch)
	@KERNEL_VERSION=$(KERNEL) KERNEL_BUILD_DIR=$(KERNEL_DIR) kernel/selftests.sh $(KSELFTEST_DIR)
	@touch $@

.PHONY: kselftest
kselftest: $(KSELFTEST_STAMP)
