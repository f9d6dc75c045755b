#!/bin/bash
# Tests of kernel/build.sh that need no lab: what a user would notice when
# the kernel cannot be built as asked. The output is KTAP and ends with
# "N passed, N failed". Each test stops build.sh before it compiles, but
# build.sh holds the tree's lock while it applies the series, so make test
# runs these before the debug kernel starts compiling beside the lab tests.
# usage: harness/tests/kernel-test.sh
set -uo pipefail

results=$(mktemp -d /tmp/tunlab-kerneltest.XXXXXX)
trap 'rm -rf "$results"' EXIT
tests=(kernel_config_drop_is_an_error kernel_patch_that_does_not_apply_is_named
	kernel_gcov_profile_of_a_path_not_in_the_tree_is_refused)

kernel_config_drop_is_an_error() {
	# e1000 needs CONFIG_ETHERNET, which allnoconfig leaves off: Kconfig
	# drops the request silently, the build must not
	printf 'CONFIG_E1000=y\n' > "$results/e1000.config"
	out=$(KERNEL_CONFIGS="$(ls kernel/config/*.config | tr '\n' ' ') $results/e1000.config" \
		kernel/build.sh "$results/bzImage" 2>&1) && { echo "    # build.sh succeeded"; return 1; }
	[[ $out == *"dropped: CONFIG_E1000=y -> absent (dependencies not met)"* ]] ||
		{ echo "$out" | tail -5 | sed 's/^/    # /'; return 1; }
}

kernel_patch_that_does_not_apply_is_named() {
	mkdir -p "$results/patches"
	cp kernel/patches/6.1/*.patch "$results/patches/"
	cat > "$results/patches/9999-does-not-apply.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: tunlab tests <tests@tunlab.invalid>
Subject: [PATCH] a hunk whose context is not in the tree

---
 drivers/net/tun.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/drivers/net/tun.c b/drivers/net/tun.c
--- a/drivers/net/tun.c
+++ b/drivers/net/tun.c
@@ -1,3 +1,3 @@
-this line is not in tun.c
+nor is this one
 context
 more context
PATCH
	out=$(KERNEL_PATCH_DIR=$results/patches kernel/build.sh "$results/bzImage" 2>&1) &&
		{ echo "    # build.sh succeeded"; return 1; }
	[[ $out == *"patch 9999-does-not-apply.patch does not apply"* &&
	   $out == *"patch failed: drivers/net/tun.c:1"* ]] ||
		{ echo "$out" | tail -5 | sed 's/^/    # /'; return 1; }
}

kernel_gcov_profile_of_a_path_not_in_the_tree_is_refused() {
	# a path out of the tree is refused before anything is unpacked; one
	# the tree does not have, once the series is applied, before any
	# configuration or compile: the debug kernel must not quietly come
	# out with less coverage than asked for
	out=$(KERNEL_GCOV_PROFILE="security/tunguard ../../etc" kernel/build.sh "$results/bzImage" 2>&1) &&
		{ echo "    # build.sh succeeded with ../../etc"; return 1; }
	[[ $out == *"KERNEL_GCOV_PROFILE: '../../etc' is not a folder or object of the tree"* ]] ||
		{ echo "$out" | tail -5 | sed 's/^/    # /'; return 1; }
	out=$(KERNEL_GCOV_PROFILE="security/tunguard drivers/net/tunn.o" kernel/build.sh "$results/bzImage" 2>&1) &&
		{ echo "    # build.sh succeeded with drivers/net/tunn.o"; return 1; }
	[[ $out == *"KERNEL_GCOV_PROFILE: drivers/net/tunn.o: no drivers/net/tunn.c with a Makefile beside it"* &&
	   $out != *"building bzImage"* ]] ||
		{ echo "$out" | tail -5 | sed 's/^/    # /'; return 1; }
	out=$(KERNEL_GCOV_PROFILE="security/tunguardd" kernel/build.sh "$results/bzImage" 2>&1) &&
		{ echo "    # build.sh succeeded with security/tunguardd"; return 1; }
	[[ $out == *"KERNEL_GCOV_PROFILE: security/tunguardd: no such folder with a Makefile"* ]] ||
		{ echo "$out" | tail -5 | sed 's/^/    # /'; return 1; }
}

echo "KTAP version 1"
. "$(dirname "$0")/tap.sh"
tap_run_tests
