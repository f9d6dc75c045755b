# guest-image/selinux/: the lab's SELinux policy, CIL sources compiled by
# secilc into the binary policy L1 loads at boot when its lsm= starts
# SELinux (guest-image/l1/init). Included at the end of image.mk.

SELINUX_POLICY_SRC := $(sort $(wildcard guest-image/selinux/*.cil))
SELINUX_POLICY := $(BUILD)/selinux/policy.33

$(SELINUX_POLICY): guest-image/selinux/build-policy.sh $(SELINUX_POLICY_SRC)
	@mkdir -p $(@D)
	@echo "selinux: policy ($(notdir $(SELINUX_POLICY_SRC)))"
	@guest-image/selinux/build-policy.sh $@ $(SELINUX_POLICY_SRC)

.PHONY: selinux-policy
selinux-policy: $(SELINUX_POLICY)

# every L1 image carries the policy; build-l1.sh finds it here
$(IMAGE_L1): $(SELINUX_POLICY)
$(IMAGE_L1): export TUNLAB_SELINUX_POLICY := $(SELINUX_POLICY)
