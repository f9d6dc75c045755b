# harness/: the L0 runner (tunlab), the L1 executor (tunlab-exec, static:
# L1 has no libc of its own to offer it), and their unit tests.

HARNESS_DIR := $(BUILD)/harness
HARNESS_CC ?= gcc
HARNESS_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -MMD -MP

HARNESS_SHARED := util.c scenario.c proto.c
HARNESS_RUNNER_SRCS := $(HARNESS_SHARED) accel.c console.c qemu.c result.c \
	report.c bundle.c suite.c lab.c runner.c
HARNESS_EXEC_SRCS := $(HARNESS_SHARED) actions.c l2.c exec.c
HARNESS_UNIT_SRCS := $(filter-out runner.c,$(HARNESS_RUNNER_SRCS)) \
	tests/check.c tests/unit_scenario.c tests/unit_runner.c tests/unit_main.c

HARNESS_RUNNER := $(HARNESS_DIR)/tunlab
HARNESS_EXEC := $(HARNESS_DIR)/l1/tunlab-exec
HARNESS_UNIT := $(HARNESS_DIR)/unit-tests
HARNESS_L1_BINS := $(HARNESS_EXEC)

harness_objs = $(addprefix $(HARNESS_DIR)/$(1)/,$(2:.c=.o))

$(HARNESS_DIR)/dyn/%.o: harness/%.c
	@mkdir -p $(dir $@)
	$(HARNESS_CC) $(HARNESS_CFLAGS) -Iharness -c $< -o $@

$(HARNESS_DIR)/static/%.o: harness/%.c
	@mkdir -p $(dir $@)
	$(HARNESS_CC) $(HARNESS_CFLAGS) -Iharness -c $< -o $@

$(HARNESS_RUNNER): $(call harness_objs,dyn,$(HARNESS_RUNNER_SRCS))
	$(HARNESS_CC) -o $@ $^

$(HARNESS_EXEC): $(call harness_objs,static,$(HARNESS_EXEC_SRCS))
	@mkdir -p $(dir $@)
	$(HARNESS_CC) -static -o $@ $^

$(HARNESS_UNIT): $(call harness_objs,dyn,$(HARNESS_UNIT_SRCS))
	$(HARNESS_CC) -o $@ $^

-include $(wildcard $(HARNESS_DIR)/*/*.d $(HARNESS_DIR)/*/tests/*.d)

.PHONY: harness unit-test
harness: $(HARNESS_RUNNER) $(HARNESS_EXEC)

unit-test: $(HARNESS_UNIT)
	$(HARNESS_UNIT) harness/tests/data
