#!/bin/bash
# The debug lane in make test: part of each lane of the lab on the debug
# kernel (kernel/config/debug.extra), which must end with no kernel report
# and no leak. make test runs it on 6.12's, so this is also where the
# second tree meets each lane: TUN and tunguard (tgcheck, tgstress, the
# scenarios, tun.c's and the series' selftests), KVM (kvm-probes and the
# probes scenario), libvirt, L2 guests on taps: the default suite's
# scenarios; and SELinux enforcing beside tunguard, in a second and a
# third boot, one per LSM order; and the VMX lane (kvm_intel under Bochs,
# each setting), which runs beside them from the start. L1 sends
# the gcov counters of tunguard and tun.c at the end (tunlab.gcov=1),
# and tunguard's line coverage from this run (KUnit's cases left out)
# must reach COVERAGE_FLOOR percent (default 90): fewer counters, or
# none, fail it. The run boots with bad tunguard.* parameters, which
# must be named on the console and ignored. KTAP output, ends with
# "N passed, N failed".
# usage: harness/tests/debug-test.sh RUNNER DEBUG_BZIMAGE [RUNNER_ARGS...]
# env:   VMX_IMAGE (the VMX lane's CD of this kernel), VMX_ARGS (runner
#        options for that lane only)
set -uo pipefail

runner=${1:?usage: debug-test.sh RUNNER DEBUG_BZIMAGE [ARGS...]}
kernel=${2:?usage: debug-test.sh RUNNER DEBUG_BZIMAGE [ARGS...]}
shift 2
args=("$@")
vmx_image=${VMX_IMAGE:?VMX_IMAGE: the boot CD of the VMX lane on the debug kernel, as make debug-test sets it}
read -r -a vmx_args <<< "${VMX_ARGS:-}"
results=$(mktemp -d /tmp/tunlab-debugtest.XXXXXX)
vmx_pid=
# a failure keeps the run's folder (consoles, report, counters) to read
trap 'status=$?; [ -z "$vmx_pid" ] || kill "$vmx_pid" 2>/dev/null
	if [ $status = 0 ]; then rm -rf "$results"; else echo "# the run is kept in $results"; fi' EXIT
floor=${COVERAGE_FLOOR:-90}
tests=(debug_kernel_carries_every_checker lanes_run_clean_on_the_debug_kernel
	bad_boot_parameters_are_named_and_ignored tunguard_line_coverage_reaches_the_floor
	selinux_lane_runs_clean_on_the_debug_kernel selinux_first_runs_clean_on_the_debug_kernel
	vmx_lane_runs_clean_on_the_debug_kernel)

say() { echo "    # $*"; }

debug_kernel_carries_every_checker() {
	local config=$(dirname "$kernel")/config opt missing=0
	local opts="KASAN KASAN_VMALLOC KFENCE PROVE_LOCKING PROVE_RCU DEBUG_LIST
		DEBUG_ATOMIC_SLEEP UBSAN DEBUG_KMEMLEAK GCOV_KERNEL FAULT_INJECTION FAILSLAB
		FAULT_INJECTION_DEBUG_FS"
	# 6.12 has no UBSAN_SANITIZE_ALL: it instruments everything always
	grep -q '^# Linux/x86 6\.1\.' "$config" && opts+=" UBSAN_SANITIZE_ALL"
	for opt in $opts; do
		grep -qx "CONFIG_$opt=y" "$config" || { say "CONFIG_$opt is not set in $config"; missing=1; }
	done
	return $missing
}

lanes_run_clean_on_the_debug_kernel() {
	# tgcheck, a shorter tgstress than make kernel-fuzz and make soak run,
	# kvm-probes, and the default suite's scenarios: TUN and tunguard,
	# the kernel's tun.c and kvm selftests and the series' tunguard
	# selftests (built from this kernel's tree) and the check that cuts
	# them short, libvirt, L2 guests on taps; then kmemleak's scan
	local r j status suite
	# the default suite's files, as the runner lists them, but the SELinux
	# lane's (the boots below)
	mapfile -t suite < <("$runner" --list host-scenarios | cut -f1 | sed 's/:[0-9]*$//' |
		sort -u | grep -v '^host-scenarios/selinux/')
	[ "${#suite[@]}" -gt 20 ] || { say "tunlab --list host-scenarios gave ${#suite[@]} files"; return 1; }
	# the caller's arguments after tunlab.gcov=1: a later tunlab.gcov=0 wins;
	# tunguard's boot parameters with values it must refuse (below), then
	# audit_allow=1, which the series' test allows_audited_only_when_asked
	# reads from the command line (the default lanes boot without it)
	out=$("$runner" --results "$results" --kernel "$kernel" --append tunlab.gcov=1 \
		--append tunguard.mode=bogus --append tunguard.audit_allow=maybe \
		--append tunguard.audit_allow=1 "${args[@]}" \
		--ktap tgcheck --ktap tgstress:--policies,3000,--soak,30 --ktap kvm-probes \
		"${suite[@]}" 2>&1); status=$?
	r=$results/latest j=$r/report.json
	echo "$out" | grep -E '^\[ktap\]|scenarios: ' | sed 's/^/    # /'
	# what tgstress got through on the debug kernel: policies, records checked
	grep -E '# ([0-9]+ policies in|[0-9]+ ways to refuse|[0-9.]+ s, [0-9]+ workers|[0-9]+ records checked)' \
		"$r/report.ktap" 2>/dev/null | sed -E 's/^ *# /    # tgstress: /'
	[ "$status" = 0 ] || { echo "$out" | tail -20 | sed 's/^/    #   /'; say "exit status $status"; return 1; }
	jq -e '.run.kernel_report == null' "$j" >/dev/null ||
		{ say "kernel report: $(jq -r '.run.kernel_report.kind' "$j")"; return 1; }
	jq -e '[.suites[] | select(.name == "kmemleak" and .result == "pass")] | length == 1' "$j" >/dev/null &&
	jq -e '[.suites[] | select((.name == "tgcheck" or .name == "tgstress" or
		(.name | startswith("kvm-probes"))) and .result == "pass")] | length == 3' \
		"$j" >/dev/null || { say "kmemleak, tgcheck, tgstress or kvm-probes did not report passing"; return 1; }
}

# The run above booted with tunguard.mode=bogus and tunguard.audit_allow=maybe
# (before audit_allow=1): each is named on the console with the value kept,
# and tgcheck, which needs the default mode in force, passed
bad_boot_parameters_are_named_and_ignored() {
	local r=$results/latest want missing=0
	for want in "tunguard: unknown tunguard.mode=bogus, keeping enforce" \
		"tunguard: unknown tunguard.audit_allow=maybe, keeping 0"; do
		grep -qF "$want" "$r"/l1-console*.log 2>/dev/null ||
			{ say "not on L1's console: '$want'"; missing=1; }
	done
	return $missing
}

tunguard_line_coverage_reaches_the_floor() {
	# the counters the run above brought back, through lcov
	local gcov=$(dirname "$kernel")/gcov r=$results/latest out pct
	out=$(harness/runner/coverage.sh "$r" "$gcov" 2>&1) ||
		{ echo "$out" | tail -5 | sed 's/^/    #   /'; say "no coverage report from this run"; return 1; }
	sed -n '/^file /,/^$/p' "$r/coverage/summary.txt" | sed '/^$/d; s/^/    # /'
	pct=$(awk '/^security\/tunguard \(all files\)/ { sub(/%/, "", $5); print $5 }' "$r/coverage/summary.txt")
	[ -n "$pct" ] || { say "no tunguard line in $r/coverage/summary.txt"; return 1; }
	awk -v p="$pct" -v f="$floor" 'BEGIN { exit !(p >= f) }' ||
		{ say "tunguard's lines: $pct% covered, below the floor of $floor% (COVERAGE_FLOOR)"; return 1; }
}

# SELinux enforcing with the lab's policy and its scenarios, in a boot of
# the debug kernel of its own with the LSMs in ORDER: no kernel report,
# no leak. Those written for the other LSM order skip
selinux_boot_runs_clean() { # selinux_boot_runs_clean ORDER
	local order=$1 r j status
	out=$("$runner" --results "$results" --kernel "$kernel" "${args[@]}" \
		--lsm "$order" --selinux enforcing --no-ktap host-scenarios/selinux 2>&1); status=$?
	r=$results/latest j=$r/report.json
	echo "$out" | grep -E '^\[ktap\]|scenarios: |L1 ready' | sed 's/^/    # /'
	[ "$status" = 0 ] || { echo "$out" | tail -20 | sed 's/^/    #   /'; say "exit status $status"; return 1; }
	jq -e --arg order "$order" '.run.kernel_report == null and .run.lsm == $order' "$j" >/dev/null ||
		{ say "kernel report or LSM order: $(jq -c '[.run.kernel_report.kind, .run.lsm]' "$j"), expected [null,\"$order\"]"; return 1; }
	jq -e '[.suites[] | select(.name == "kmemleak" and .result == "pass")] | length == 1' "$j" >/dev/null ||
		{ say "kmemleak did not report passing"; return 1; }
	jq -e '[.scenarios[] | select(.result == "pass")] | length > 0' "$j" >/dev/null ||
		{ say "no SELinux scenario ran"; return 1; }
}

# --selinux's order: SELinux started after tunguard
selinux_lane_runs_clean_on_the_debug_kernel() {
	selinux_boot_runs_clean capability,tunguard,selinux
}

# and before it: each LSM's blob offsets and hook order the other way round
selinux_first_runs_clean_on_the_debug_kernel() {
	selinux_boot_runs_clean capability,selinux,tunguard
}

# The VMX lane on this kernel: kvm_intel under each setting, kvm-probes
# in each boot, kmemleak's scan in the first, kvm_intel's default (the
# runner leaves it out of the others: two and a half minutes a scan under
# Bochs). It is the only lane of kvm_intel's code on this tree. One Bochs
# of one thread, booted acpi=off (VMX_ARGS: this kernel spends 43 s of a
# boot in acpi_init under Bochs), about 8 minutes from its start: it runs
# beside the tests above, from the start, in a results folder of its own
start_vmx_lane() {
	mkdir -p "$results/vmx"
	"$runner" --results "$results/vmx" --vmx-only --vmx-image "$vmx_image" "${args[@]}" \
		"${vmx_args[@]}" > "$results/vmx.out" 2>&1 &
	vmx_pid=$!
}

vmx_lane_runs_clean_on_the_debug_kernel() {
	local status r j
	wait "$vmx_pid"; status=$?
	vmx_pid=
	r=$results/vmx/latest j=$r/report.json
	grep -E '^\[ktap\]|ready after' "$results/vmx.out" | sed 's/^/    # /'
	[ "$status" = 0 ] || { tail -20 "$results/vmx.out" | sed 's/^/    #   /'; say "exit status $status"; return 1; }
	jq -e '.run.kernel_report == null' "$j" >/dev/null ||
		{ say "kernel report: $(jq -r '.run.kernel_report.kind' "$j")"; return 1; }
	jq -e '[.suites[] | select(.name == "kvm-probes" and .result == "pass" and
		(.lane | startswith("bochs vmx ")))] | length == 3' "$j" >/dev/null ||
		{ say "kvm-probes did not pass under each of the 3 settings: $(jq -c '[.suites[] | [.name, .lane, .result]]' "$j")"; return 1; }
	jq -e '[.suites[] | select(.name == "kmemleak")] | map(.result) == ["pass"]' "$j" >/dev/null ||
		{ say "expected one kmemleak scan, passing: $(jq -c '[.suites[] | select(.name == "kmemleak") | .result]' "$j")"; return 1; }
}

echo "KTAP version 1"
. "$(dirname "$0")/tap.sh"
start_vmx_lane
tap_run_tests
