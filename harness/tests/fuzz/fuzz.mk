# harness/tests/fuzz/: the scenario parser under libFuzzer, built by clang
# with ASan, UBSan (every report fatal) and LeakSanitizer. Included by
# harness/harness.mk.
#   make fuzz        replay regress/, then fuzz for FUZZ_TIME seconds
#   make fuzz-test   the same for FUZZ_TEST_TIME seconds (make test)

FUZZ_CC ?= clang
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SCENARIO := $(FUZZ_DIR)/fuzz-scenario
FUZZ_TIME ?= 600
FUZZ_TEST_TIME ?= 60
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -Iharness \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

$(FUZZ_SCENARIO): harness/tests/fuzz/scenario.c $(HARNESS_COMMON_SRCS) $(wildcard harness/common/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ harness/tests/fuzz/scenario.c $(HARNESS_COMMON_SRCS)

.PHONY: fuzz fuzz-test
fuzz: $(FUZZ_SCENARIO)
	@harness/tests/fuzz/run.sh $(FUZZ_SCENARIO) $(FUZZ_TIME)

fuzz-test: $(FUZZ_SCENARIO)
	@harness/tests/fuzz/run.sh $(FUZZ_SCENARIO) $(FUZZ_TEST_TIME)
