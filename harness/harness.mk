# harness/: the L0 runner (tunlab), the L1 executor (tunlab-exec, static:
# L1 has no libc of its own to offer it), and their unit tests.

HARNESS_DIR := $(BUILD)/harness
HARNESS_CC ?= gcc
HARNESS_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -MMD -MP

HARNESS_SHARED := util.c scenario.c proto.c
HARNESS_RUNNER_SRCS := $(HARNESS_SHARED) accel.c console.c qemu.c result.c \
	report.c report_xml.c bundle.c suite.c lab.c runner.c
HARNESS_EXEC_SRCS := $(HARNESS_SHARED) accel.c actions.c l2.c exec.c
HARNESS_UNIT_SRCS := $(filter-out runner.c,$(HARNESS_RUNNER_SRCS)) \
	tests/check.c tests/unit_scenario.c tests/unit_runner.c tests/unit_main.c

# KTAP programs run inside L1 (one per folder, all its .c files linked)
HARNESS_KTAP_NAMES := $(notdir $(patsubst %/,%,$(dir $(wildcard harness/tgcheck/*.c harness/probes/*.c))))
HARNESS_KTAP_BIN = $(HARNESS_DIR)/l1/ktap/$(if $(filter probes,$(1)),kvm-probes,$(1))
HARNESS_KTAP := $(foreach d,$(sort $(HARNESS_KTAP_NAMES)),$(call HARNESS_KTAP_BIN,$(d)))

HARNESS_RUNNER := $(HARNESS_DIR)/tunlab
HARNESS_EXEC := $(HARNESS_DIR)/l1/tunlab-exec
HARNESS_UNIT := $(HARNESS_DIR)/unit-tests
HARNESS_L1_BINS := $(HARNESS_EXEC) $(HARNESS_KTAP)

harness_objs = $(addprefix $(HARNESS_DIR)/$(1)/,$(2:.c=.o))

$(HARNESS_DIR)/dyn/%.o: harness/%.c
	@mkdir -p $(dir $@)
	$(HARNESS_CC) $(HARNESS_CFLAGS) -Iharness -c $< -o $@

$(HARNESS_DIR)/static/%.o: harness/%.c
	@mkdir -p $(dir $@)
	$(HARNESS_CC) $(HARNESS_CFLAGS) -Iharness -c $< -o $@

$(HARNESS_RUNNER): $(call harness_objs,dyn,$(HARNESS_RUNNER_SRCS))
	$(HARNESS_CC) -pthread -o $@ $^

$(HARNESS_EXEC): $(call harness_objs,static,$(HARNESS_EXEC_SRCS))
	@mkdir -p $(dir $@)
	$(HARNESS_CC) -static -o $@ $^

define HARNESS_KTAP_RULE
$(call HARNESS_KTAP_BIN,$(1)): $(wildcard harness/$(1)/*.c harness/$(1)/*.h)
	@mkdir -p $$(dir $$@)
	$$(HARNESS_CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static -o $$@ $(wildcard harness/$(1)/*.c)
endef
$(foreach d,$(sort $(HARNESS_KTAP_NAMES)),$(eval $(call HARNESS_KTAP_RULE,$(d))))

$(HARNESS_UNIT): $(call harness_objs,dyn,$(HARNESS_UNIT_SRCS))
	$(HARNESS_CC) -pthread -o $@ $^

-include $(wildcard $(HARNESS_DIR)/*/*.d $(HARNESS_DIR)/*/tests/*.d)

.PHONY: harness unit-test
harness: $(HARNESS_RUNNER) $(HARNESS_EXEC) $(HARNESS_KTAP)

unit-test: $(HARNESS_UNIT)
	$(HARNESS_UNIT) harness/tests/data
