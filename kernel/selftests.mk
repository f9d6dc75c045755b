# The kernel's own selftests L1 runs (tools/testing/selftests/net/tun.c and
# a few KVM selftests), built by kernel/selftests.sh from the lab kernel's
# tree after the kernel, cached beside it.

KSELFTEST_DIR := $(BUILD)/kselftest
KSELFTEST_STAMP := $(BUILD)/kselftest.stamp

$(KSELFTEST_STAMP): $(KERNEL_BZIMAGE) kernel/selftests.sh
	@kernel/selftests.sh $(KSELFTEST_DIR)
	@touch $@

.PHONY: kselftest
kselftest: $(KSELFTEST_STAMP)
