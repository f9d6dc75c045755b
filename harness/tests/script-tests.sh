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
	alongside_failed_job_fails_after_passing_tests
	coverage_report_counts_lines_and_branches_where_the_hooks_are
	coverage_without_counters_of_this_kernel_is_an_error
	make_lab_boots_an_l1_per_core_up_to_four)

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

# What make coverage reads, made by gcc and a program instead of the
# debug kernel and L1: sources in a tree (linux/), objects built with
# gcov beside it (obj/) the way kbuild does, the .gcno files and sources
# kept as kernel/build.sh keeps them (gcov/), counters in a run's folder
# at the path L1 names them by (run/gcov/boot-1/OBJTREE/...). The tree
# is gone when the report is made, as a rebuilt one would be.
coverage_mock() {
	local c=$tmp/cov f
	rm -rf "$c"
	mkdir -p "$c/linux/security/tunguard" "$c/linux/drivers/net" "$c/obj/security/tunguard" \
		"$c/obj/drivers/net" "$c/gcov/obj/security/tunguard" "$c/gcov/obj/drivers/net"
	cat > "$c/linux/security/tunguard/lsm.c" <<'C'
int tunguard_tun_dev_create(int uid)
{
	if (uid == 0)
		return 0;
	return -1;
}

int tunguard_tun_dev_open(int uid)
{
	if (uid > 1000)
		return -1;
	return 0;
}

#ifdef CONFIG_SECURITY_TUNGUARD_KUNIT_TEST
#if 1
static int kunit_case(int x)
{
	if (x)
		return 1;
	return 0;
}
#endif
int tunguard_kunit_run(void)
{
	return kunit_case(1) + kunit_case(0);
}
#endif /* CONFIG_SECURITY_TUNGUARD_KUNIT_TEST */
C
	cat > "$c/linux/drivers/net/tun.c" <<'C'
int tunguard_tun_dev_create(int uid);
int tunguard_tun_dev_open(int uid);
int tunguard_kunit_run(void);
#define security_tun_dev_create tunguard_tun_dev_create
#define security_tun_dev_open tunguard_tun_dev_open

static int ns_capable(int uid)
{
	return uid == 0;
}

static int tun_set_iff(int uid, int exists, int owner)
{
	int err = 0;

	if (exists) {
		if (owner >= 0 && uid != owner && !ns_capable(uid))
			return -1;
		err = security_tun_dev_open(uid);
		if (err < 0)
			return err;
	} else {
		if (!ns_capable(uid))
			return -1;
		err = security_tun_dev_create(uid +
					      0);
		if (err < 0)
			return err;
	}
	return 0;
}

int main(void)
{
	return tun_set_iff(0, 0, -1) + tun_set_iff(1000, 1, 1000) + tun_set_iff(1001, 1, 1000) +
	       tunguard_kunit_run();
}
C
	for f in security/tunguard/lsm drivers/net/tun; do
		(cd "$c/obj" && gcc -O0 -fprofile-arcs -ftest-coverage \
			-DCONFIG_SECURITY_TUNGUARD_KUNIT_TEST -c -o $f.o ../linux/$f.c) || return 1
		cp "$c/obj/$f.gcno" "$c/gcov/obj/$f.gcno"
	done
	(cd "$c/obj" && gcc -fprofile-arcs -o prog security/tunguard/lsm.o drivers/net/tun.o && ./prog) || true
	cp -r "$c/linux" "$c/gcov/src"
	rm -rf "$c/linux"
	echo "$c/obj" > "$c/gcov/objtree"
	printf 'security/tunguard\ndrivers/net/tun.o\n' > "$c/gcov/profile"
	mkdir -p "$c/run/gcov/boot-1"
	(cd "$c/obj" && find . -name '*.gcda' | cpio -pdm --quiet "$c/run/gcov/boot-1/${c#/}/obj")
	echo "$c"
}

coverage_report_counts_lines_and_branches_where_the_hooks_are() {
	local c out s
	c=$(coverage_mock) || return 1
	out=$(harness/runner/coverage.sh "$c/run" "$c/gcov" 2>&1) ||
		{ echo "$out" | tail -5 | sed 's/^/    # /'; return 1; }
	s=$c/run/coverage/summary.txt
	# lsm.c: neither hook refused anyone (one line and one branch each not taken)
	grep -Eq '^security/tunguard/lsm.c +6/8 +75.0% +2/4 +50.0%' "$s" &&
	grep -Eq '^tunguard_tun_dev_open\(\) +3/4 +75.0% +1/2 +50.0%' "$s" &&
	# the KUnit block (every line run) is out of the figures above, in
	# coverage-all.info's total: a nested #if does not end it early
	grep -Eq "^  with KUnit's cases +12/14 +85.7% +4/6 +66.7%" "$s" &&
	grep -q "left out above: 6 lines, 2 branches and 2 functions" "$s" &&
	! grep -q 'kunit' "$c/run/coverage/coverage.info" &&
	grep -q '^FN:.*kunit_case' "$c/run/coverage/coverage-all.info" &&
	# the open hook's caller never saw a refusal: one of its check's two ways
	grep -Eq '^security_tun_dev_open\(\) check +20 +1 +1/2 taken \[0 1\]' "$s" &&
	grep -Eq '^tun_set_iff\(\) permission check +17 +2 +' "$s" &&
	[ -f "$c/run/coverage/html/index.html" ] &&
	! grep '^SF:' "$c/run/coverage/coverage.info" | grep -qv "^SF:$c/gcov/src/" ||
		{ sed 's/^/    # /' "$s"; return 1; }
}

coverage_without_counters_of_this_kernel_is_an_error() {
	local c out
	c=$(coverage_mock) || return 1
	# counters of a kernel whose objects were elsewhere: not this gcov/
	echo /elsewhere/obj > "$c/gcov/objtree"
	out=$(harness/runner/coverage.sh "$c/run" "$c/gcov" 2>&1) && { echo "    # succeeded"; return 1; }
	[[ $out == *"holds counters of a kernel built in another place"* ]] ||
		{ echo "$out" | tail -3 | sed 's/^/    # /'; return 1; }
	# no counters at all: L1 was not asked, or had none to send
	rm -rf "$c/run/gcov"
	out=$(harness/runner/coverage.sh "$c/run" "$c/gcov" 2>&1) && { echo "    # succeeded"; return 1; }
	[[ $out == *"no gcov counters in $c/run/gcov"* ]] ||
		{ echo "$out" | tail -3 | sed 's/^/    # /'; return 1; }
}

# The runner's options make lab passes, as make -n prints its command
lab_jobs_args() { # lab_jobs_args CORES MAKE_ARGS...
	local cores=$1; shift
	OMP_NUM_THREADS=$cores make -n --no-print-directory lab "$@" 2>&1 |
		grep -E -- '--kernel .* --initrd ' | sed -E 's/.* --initrd [^ ]+ *//; s/ *host-scenarios$//'
}

# one L1 per core (nproc, which OMP_NUM_THREADS sets), up to four; one on
# one core, on the debug kernel, or when LAB_JOBS=1; a -j of LAB_ARGS wins
make_lab_boots_an_l1_per_core_up_to_four() {
	local cores args want got bad=0
	while IFS='|' read -r cores args want; do
		# shellcheck disable=SC2086
		got=$(lab_jobs_args "$cores" $args)
		if [ -n "$want" ]; then [[ " $got " == *" $want "* ]]; else [[ " $got " != *" -j"* ]]; fi ||
			{ echo "    # $cores cores, make lab $args: runner options '$got', expected '${want:-no -j}'"; bad=1; }
	done <<-EOF
		1|VMX=0|
		2|VMX=0|-j 2
		8|VMX=0|-j 4
		2|VMX=0 LAB_JOBS=1|
		8|VMX=0 LAB_JOBS=3|-j 3
		2|DEBUG=1|
		8|VMX=0 LAB_ARGS=-j3|-j3
	EOF
	[ $bad = 0 ] || return 1
	# and none where a -j of make lab's own would be a second one
	got=$(lab_jobs_args 8 VMX=0 LAB_ARGS=--jobs=2)
	[[ $got != *"-j "* ]] || { echo "    # LAB_ARGS=--jobs=2 and make lab added one: '$got'"; return 1; }
}

echo "KTAP version 1"
. "$(dirname "$0")/tap.sh"
tap_run_tests
