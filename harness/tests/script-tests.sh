#!/bin/bash
# Tests of the project's scripts that need no lab: each states what a user
# would notice; the output is KTAP and ends with "N passed, N failed".
# usage: harness/tests/script-tests.sh
set -uo pipefail

tmp=$(mktemp -d /tmp/tunlab-scripttest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tests=(layout_check_accepts_includes_that_go_one_way
	layout_check_names_a_wrong_way_include
	layout_check_needs_a_readme_per_folder
	l1_init_step_failure_reaches_its_fallback
	alongside_job_is_stopped_when_a_test_fails
	alongside_failed_job_fails_after_passing_tests)

# A tree of three folders: b and c may include a, a nothing.
layout_tree() {
	local t=$tmp/tree
	rm -rf "$t"
	mkdir -p "$t/a" "$t/b" "$t/c"
	printf '# a\n\nMay include: nothing outside a/.\n' > "$t/a/README.md"
	printf '# b\n\nMay include: `a/`.\n' > "$t/b/README.md"
	printf '# c\n\nMay include: `a/`.\n' > "$t/c/README.md"
	printf '#include "x.h"\n' > "$t/a/x.c"
	: > "$t/a/x.h"
	printf '#include <stdio.h>\n#include "y.h"\n#include "a/x.h"\n' > "$t/b/y.c"
	: > "$t/b/y.h"
	printf '#include "a/x.h"\n' > "$t/c/z.c"
	echo "$t"
}

layout_check_accepts_includes_that_go_one_way() {
	local t out
	t=$(layout_tree)
	out=$(harness/tests/check-layout.sh "$t" 2>&1) ||
		{ echo "$out" | sed 's/^/    # /'; return 1; }
}

layout_check_names_a_wrong_way_include() {
	local t out
	t=$(layout_tree)
	printf '#include "a/x.h"\n#include "b/y.h"\n' > "$t/c/z.c"
	out=$(harness/tests/check-layout.sh "$t" 2>&1) &&
		{ echo "    # c/z.c includes b/y.h, yet the check passed"; return 1; }
	[[ $out == *"$t/c/z.c:2: #include \"b/y.h\" reaches b/, but c/ may include only: a"* ]] ||
		{ echo "$out" | sed 's/^/    # /'; return 1; }
}

layout_check_needs_a_readme_per_folder() {
	local t out
	t=$(layout_tree)
	mkdir -p "$t/d"
	printf '#include "a/x.h"\n' > "$t/d/w.c"
	out=$(harness/tests/check-layout.sh "$t" 2>&1) &&
		{ echo "    # d/ has no README, yet the check passed"; return 1; }
	[[ $out == *"$t/d/w.c: in no folder with a README.md"* ]] ||
		{ echo "$out" | sed 's/^/    # /'; return 1; }
}

l1_init_step_failure_reaches_its_fallback() {
	# L1's init runs `step find_results_port || power_off`: a failed step
	# must say so and fail, or L1 waits out the runner's boot timeout.
	# The step() of the real init, run by busybox's sh as in L1.
	local fn out
	fn=$(awk '/^step\(\) \{$/,/^\}$/' guest-image/l1/init)
	[ -n "$fn" ] || { echo "    # no step() in guest-image/l1/init"; return 1; }
	out=$(busybox sh -c "$fn
		fails() { return 3; }
		works() { :; }
		step works || echo 'fallback after works'
		step fails || echo \"fallback after fails (\$?)\"" 2>&1)
	[[ $out == *"tunlab-init: step fails failed (status 3)"* &&
	   $out == *"fallback after fails (3)"* && $out != *"fallback after works"* ]] ||
		{ echo "$out" | sed 's/^/    # /'; return 1; }
}

alongside_job_is_stopped_when_a_test_fails() {
	# make test's debug kernel build must not outlive a failed lab test
	local out status
	out=$(harness/tests/alongside.sh "$tmp/job.log" "echo \$\$ > $tmp/job.pid; sleep 60" \
		true "exit 7" "touch $tmp/not-reached" 2>&1); status=$?
	[ "$status" = 7 ] && [ ! -e "$tmp/not-reached" ] ||
		{ echo "    # status $status, expected 7 and no command after the failure"; return 1; }
	! kill -0 "$(cat "$tmp/job.pid")" 2>/dev/null ||
		{ echo "    # the job still runs"; kill "$(cat "$tmp/job.pid")"; return 1; }
	[[ $out == *"'exit 7' failed (status 7)"* ]] || { echo "$out" | sed 's/^/    # /'; return 1; }
}

alongside_failed_job_fails_after_passing_tests() {
	local out status
	out=$(harness/tests/alongside.sh "$tmp/job.log" "echo compile error; exit 2" true true 2>&1); status=$?
	[ "$status" = 1 ] && [[ $out == *"compile error"* && $out == *"failed (status 2"* ]] ||
		{ echo "    # status $status:"; echo "$out" | sed 's/^/    # /'; return 1; }
}

echo "KTAP version 1"
. "$(dirname "$0")/tap.sh"
tap_run_tests
