# harness/: C sources by where they run (harness/README.md has the map).
#   common/       linked into everything below
#   runner/       L0: the runner (tunlab), report/ inside it
#   executor/     L1: the executor (tunlab-exec, static: L1 has no libc
#                 of its own to offer it)
#   l1-programs/  L1: the KTAP programs (static), lib/ shared by them
#   tests/        the unit tests (L0) and the lab tests

HARNESS_DIR := $(BUILD)/harness
HARNESS_CC ?= gcc
HARNESS_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -MMD -MP -Iharness

HARNESS_COMMON_SRCS := $(wildcard harness/common/*.c)
HARNESS_RUNNER_SRCS := $(wildcard harness/runner/*.c harness/runner/report/*.c)
HARNESS_EXEC_SRCS := $(wildcard harness/executor/*.c)
HARNESS_L1LIB_SRCS := $(wildcard harness/l1-programs/lib/*.c)
# executor/avc.c, kmemleak.c, l2path.c and gcov.c: the executor's text
# logic the unit tests check (gcov.c and kmemleak.c on files the tests make)
HARNESS_UNIT_SRCS := $(filter-out harness/runner/main.c,$(HARNESS_RUNNER_SRCS)) \
	$(HARNESS_L1LIB_SRCS) harness/executor/avc.c harness/executor/kmemleak.c \
	harness/executor/l2path.c harness/executor/gcov.c \
	harness/l1-programs/tgstress/model.c \
	$(wildcard harness/tests/*.c)

# KTAP programs run inside L1: one per folder of l1-programs/ but lib/,
# named after its folder, all its .c files linked
HARNESS_KTAP_NAMES := $(filter-out lib,$(notdir $(patsubst %/,%,$(dir $(wildcard harness/l1-programs/*/*.c)))))
HARNESS_KTAP := $(foreach d,$(sort $(HARNESS_KTAP_NAMES)),$(HARNESS_DIR)/l1/ktap/$(d))

HARNESS_RUNNER := $(HARNESS_DIR)/tunlab
HARNESS_EXEC := $(HARNESS_DIR)/l1/tunlab-exec
HARNESS_UNIT := $(HARNESS_DIR)/unit-tests
HARNESS_L1_BINS := $(HARNESS_EXEC) $(HARNESS_KTAP)

# objects of harness/X.c: dyn/X.o for L0 programs, static/X.o for L1 ones
harness_objs = $(patsubst harness/%.c,$(HARNESS_DIR)/$(1)/%.o,$(2))

$(HARNESS_DIR)/dyn/%.o: harness/%.c
	@mkdir -p $(dir $@)
	$(HARNESS_CC) $(HARNESS_CFLAGS) -c $< -o $@

$(HARNESS_DIR)/static/%.o: harness/%.c
	@mkdir -p $(dir $@)
	$(HARNESS_CC) $(HARNESS_CFLAGS) -c $< -o $@

# common/ and l1-programs/lib/ as archives: each program takes only the
# objects it uses
$(foreach k,dyn static,$(eval $(HARNESS_DIR)/$(k)/libcommon.a: $(call harness_objs,$(k),$(HARNESS_COMMON_SRCS))))
$(HARNESS_DIR)/static/libl1.a: $(call harness_objs,static,$(HARNESS_L1LIB_SRCS))
$(HARNESS_DIR)/%.a:
	@rm -f $@
	ar rcs $@ $^

$(HARNESS_RUNNER): $(call harness_objs,dyn,$(HARNESS_RUNNER_SRCS)) $(HARNESS_DIR)/dyn/libcommon.a
	$(HARNESS_CC) -pthread -o $@ $^ -ljson-c

$(HARNESS_EXEC): $(call harness_objs,static,$(HARNESS_EXEC_SRCS)) $(HARNESS_DIR)/static/libcommon.a
	@mkdir -p $(dir $@)
	$(HARNESS_CC) -static -o $@ $^

define HARNESS_KTAP_RULE
$(HARNESS_DIR)/l1/ktap/$(1): $(call harness_objs,static,$(wildcard harness/l1-programs/$(1)/*.c)) \
		$(HARNESS_DIR)/static/libl1.a $(HARNESS_DIR)/static/libcommon.a
	@mkdir -p $$(dir $$@)
	$$(HARNESS_CC) -static -o $$@ $$^
endef
$(foreach d,$(sort $(HARNESS_KTAP_NAMES)),$(eval $(call HARNESS_KTAP_RULE,$(d))))

# L1: the libvirt launcher, linked against libvirt and libxml2 (no static
# libvirt exists: it goes into L1's libvirt layer with libvirt itself)
HARNESS_VIRT := $(HARNESS_DIR)/l1/tunlab-virt
HARNESS_VIRT_LIBS := libvirt libxml-2.0

$(HARNESS_VIRT): $(wildcard harness/executor/libvirt/*.c)
	@mkdir -p $(dir $@)
	$(HARNESS_CC) $(HARNESS_CFLAGS) $$(pkg-config --cflags $(HARNESS_VIRT_LIBS)) -o $@ $(filter %.c,$^) \
		$$(pkg-config --libs $(HARNESS_VIRT_LIBS)) -pthread

$(HARNESS_UNIT): $(call harness_objs,dyn,$(HARNESS_UNIT_SRCS)) $(HARNESS_DIR)/dyn/libcommon.a
	$(HARNESS_CC) -pthread -o $@ $^ -ljson-c

-include $(shell find $(HARNESS_DIR) -name '*.d' 2>/dev/null)

.PHONY: harness unit-test check-layout
harness: $(HARNESS_RUNNER) $(HARNESS_EXEC) $(HARNESS_KTAP) $(HARNESS_VIRT)

# includes go one way (harness/README.md)
check-layout:
	@harness/tests/check-layout.sh harness && echo "check-layout: every include goes the allowed way"

unit-test: $(HARNESS_UNIT) check-layout
	$(HARNESS_UNIT) harness/tests/data
	@harness/tests/script-tests.sh

# the scenario parser under libFuzzer: make fuzz, make fuzz-test
include harness/tests/fuzz/fuzz.mk
