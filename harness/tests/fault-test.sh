#!/bin/bash
# Faults injected into real lab runs: L1's QEMU killed mid-scenario, an L2
# that never boots, QEMU missing inside L1, a results folder that cannot be
# written or fills up, Ctrl-C on the runner. Each test states what a user
# must see: the fault named precisely, nothing already reported lost, no
# half-written report, no guest left running. A TERM to `tunlab run` (a
# scheduler's cancel) stops its L1. KTAP output, ends with
# "N passed, N failed".
# usage: harness/tests/fault-test.sh RUNNER [TEST...]   (default: every test)
set -uo pipefail

runner=${1:?usage: fault-test.sh RUNNER}
results=$(mktemp -d /tmp/tunlab-faulttest.XXXXXX)
mounts=()
cleanup() {
	for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
	rm -rf "$results"
}
trap cleanup EXIT
tests=(l1_qemu_killed_mid_scenario_is_an_error_and_the_rest_runs
	l2_that_never_boots_fails_its_step_and_is_stopped
	scenario_process_killed_is_reported_on_its_own_scenario
	qemu_missing_in_l1_is_a_setup_error_naming_it
	unwritable_results_folder_stops_before_boot
	full_results_folder_is_reported_and_leaves_no_half_report
	ctrl_c_stops_the_guests_and_writes_an_interrupted_report
	tunlab_run_stopped_by_term_stops_its_l1)

say() { echo "    # $*"; }

# A scenario folder: first passes, then one whose step sleeps STEP_SECONDS,
# then one more that passes.
three_scenarios() { # three_scenarios DIR SLEEP_SECONDS
	mkdir -p "$1"
	printf 'scenario the one before\nrun true => ok\n' > "$1/a.scn"
	printf 'scenario the long one\ntimeout 600\nrun sleep %s => ok\n' "$2" > "$1/b.scn"
	printf 'scenario the one after\nrun true => ok\n' > "$1/c.scn"
}

# Start the runner in the background: $rpid, its output in $rout.
start_runner() {
	rout=$results/runner.out
	"$runner" --results "$results" "$@" > "$rout" 2>&1 &
	rpid=$!
}

# Wait until the runner's output shows TEXT (at most SECONDS).
wait_for() { # wait_for TEXT SECONDS
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		grep -qF -- "$1" "$rout" && return 0
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.2
	done
	say "the runner never printed: $1"
	tail -5 "$rout" | sed 's/^/    #   /'
	return 1
}

# The runner's own QEMU (L1), by parent: no other QEMU on the machine is touched.
l1_qemu() {
	pgrep -P "$rpid" -x qemu-system-x86 | head -1
}

reports_are_whole() { # report.json and junit.xml parse, and say STATUS
	local r=$results/latest
	jq -e . "$r/report.json" >/dev/null && xmllint --noout "$r/junit.xml" ||
		{ say "a report file is not whole"; return 1; }
}

l1_qemu_killed_mid_scenario_is_an_error_and_the_rest_runs() {
	local d=$results/killed qemu status
	three_scenarios "$d" 120
	start_runner --no-ktap "$d"
	wait_for "$d/b.scn:1 the long one" 180 || return 1
	qemu=$(l1_qemu)
	[ -n "$qemu" ] || { say "no QEMU under the runner"; return 1; }
	kill -KILL "$qemu"
	wait "$rpid"; status=$?
	local j=$results/latest/report.json
	reports_are_whole &&
	[ "$status" = 3 ] || { say "exit status $status, expected 3 (an error)"; return 1; }
	jq -e '.scenarios[0].result == "pass" and .scenarios[2].result == "pass" and
		.scenarios[1].result == "error" and
		(.scenarios[1].reason | test("L1 stopped unexpectedly: QEMU killed by signal 9"))' "$j" >/dev/null ||
		{ jq -r '.scenarios[] | "    # \(.result) \(.title): \(.reason)"' "$j"; return 1; }
	grep -qF "booting L1 (tcg" "$rout" && grep -q "again for the rest of the plan" "$rout" ||
		{ say "the rest of the plan did not go to a fresh L1"; return 1; }
}

l2_that_never_boots_fails_its_step_and_is_stopped() {
	# L2's kernel given an init that never starts the agent: QEMU runs,
	# the guest never says ready, nor answers the command sent after the
	# deadline that tells a hung guest from a lost "ready" line
	local d=$results/l2
	mkdir -p "$d"
	cat > "$d/l2.scn" <<'SCN'
scenario an L2 that never boots
requires kvm
as root   create tap lab0 persist                     => ok
as root   l2 boot vm1 net=lab0                        => ok
as root   delete tap lab0                             => ok

scenario no QEMU is left behind by the one before
run pidof qemu-system-x86_64                          => fail
SCN
	run_expect 1 --no-ktap --append tunlab.l2append=rdinit=/bin/cat "$d" || return 1
	local j=$results/latest/report.json
	reports_are_whole &&
	jq -e '.scenarios[0].result == "fail" and
		(.scenarios[0].steps[1].message | test("l2 boot vm1: the guest was not ready within [0-9]+ s")) and
		(.scenarios[0].steps[1].message | test("did not answer a command sent after the deadline either: L2 hung")) and
		.scenarios[1].result == "pass"' "$j" >/dev/null ||
		{ jq -r '.scenarios[] | "    # \(.result) \(.title): \(.steps | map(.message) | join(" / "))"' "$j"; return 1; }
	ls "$results"/latest/l2-001-vm1.log >/dev/null 2>&1 ||
		{ say "the guest's console log is not kept"; return 1; }
}

scenario_process_killed_is_reported_on_its_own_scenario() {
	# the executor's process for a group (a scenario and the one that
	# continues it) killed in the group's second file of the plan: the
	# error lands on the scenario it was in, the continuation is not run,
	# the scenarios before and after keep their own results
	local d=$results/died
	mkdir -p "$d"
	printf 'scenario the one before\nrun true => ok\n' > "$d/a.scn"
	cat > "$d/b.scn" <<'SCN'
scenario the one that dies
run true                          => ok
run sh -c kill${IFS}-KILL${IFS}$PPID  => ok

scenario the one that continues it
continues
run true                          => ok
SCN
	printf 'scenario the one after\nrun true => ok\n' > "$d/c.scn"
	run_expect 3 --no-ktap "$d" || return 1
	local j=$results/latest/report.json
	reports_are_whole &&
	jq -e '[.scenarios[].result] == ["pass", "error", "error", "pass"] and
		(.scenarios[1].reason | test("scenario process died \\(signal 9\\)")) and
		(.scenarios[2].reason | test("^not run: .*died"))' "$j" >/dev/null ||
		{ jq -r '.scenarios[] | "    # \(.result) \(.title): \(.reason)"' "$j"; return 1; }
}

# Run the runner in the foreground; its status must be WANT.
run_expect() { # run_expect WANT ARGS...
	local want=$1; shift
	out=$("$runner" --results "$results" "$@" 2>&1); status=$?
	[ "$status" = "$want" ] && return 0
	echo "$out" | tail -15 | sed 's/^/    #   /'
	say "tunlab $*: exit status $status, expected $want"
	return 1
}

qemu_missing_in_l1_is_a_setup_error_naming_it() {
	# the same L1 image without QEMU: an l2 step is a broken lab, not a
	# failed expectation, and says which program is missing
	local d=$results/noqemu root=$results/l1-noqemu.root
	mkdir -p "$d"
	cp -a build/images/l1.root "$root" && rm -f "$root/usr/bin/qemu-system-x86_64" &&
		(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$results/l1-noqemu.cpio" ||
		{ say "cannot make an L1 image without QEMU"; return 1; }
	cat > "$d/l2.scn" <<'SCN'
scenario an L2 in an L1 without QEMU
as root   create tap lab0 persist                     => ok
as root   l2 boot vm1 net=lab0                        => ok
as root   delete tap lab0                             => ok
SCN
	run_expect 3 --no-ktap --initrd "$results/l1-noqemu.cpio" "$d" || return 1
	jq -e '.scenarios[0].result == "error" and
		(.scenarios[0].steps[1].message | test("qemu-system-x86_64.*(not found|No such file)"))' \
		"$results/latest/report.json" >/dev/null ||
		{ jq -r '.scenarios[0].steps[] | "    # \(.result): \(.message)"' "$results/latest/report.json"; return 1; }
}

# A tmpfs of SIZE at DIR, unmounted when the tests end.
small_tmpfs() { # small_tmpfs DIR SIZE [ro]
	mkdir -p "$1" && mount -t tmpfs -o "size=$2${3:+,$3}" tunlab-faulttest "$1" ||
		{ say "cannot mount a tmpfs on $1"; return 1; }
	mounts+=("$1")
}

unwritable_results_folder_stops_before_boot() {
	local d=$results/ro
	small_tmpfs "$d" 1m ro || return 1
	out=$("$runner" --results "$d" --no-ktap host-scenarios/persist/owner-dac.scn 2>&1); status=$?
	[ "$status" = 3 ] && [[ $out == *"cannot create a run folder in $d: Read-only file system"* ]] &&
		[[ $out != *"booting L1"* ]] ||
		{ echo "$out" | tail -5 | sed 's/^/    #   /'; say "exit status $status"; return 1; }
}

full_results_folder_is_reported_and_leaves_no_half_report() {
	# room for the run folder and the first reports, not for the console
	# log and everything after it
	local d=$results/full r
	small_tmpfs "$d" 16k || return 1
	out=$("$runner" --results "$d" --no-ktap host-scenarios/persist 2>&1); status=$?
	r=$d/latest
	[ "$status" = 3 ] && [[ $out == *"No space left on device"* ]] &&
		[[ $out == *"the summary above is the whole run"* ]] ||
		{ echo "$out" | tail -8 | sed 's/^/    #   /'; say "exit status $status, expected 3 naming ENOSPC"; return 1; }
	# the summary still reached the terminal, whole
	[[ $out == *"scenarios: "*" passed, "* ]] || { say "no summary on the terminal"; return 1; }
	for f in report.json junit.xml; do
		[ ! -e "$r/$f" ] || case $f in
			report.json) jq -e . "$r/$f" >/dev/null ;;
			junit.xml) xmllint --noout "$r/$f" ;;
		esac || { say "$f is half written"; return 1; }
	done
	! ls "$r"/*.tmp.* >/dev/null 2>&1 || { say "temporary report files left: $(ls "$r"/*.tmp.*)"; return 1; }
}

ctrl_c_stops_the_guests_and_writes_an_interrupted_report() {
	local d=$results/int qemu status j
	three_scenarios "$d" 120
	start_runner --no-ktap "$d"
	wait_for "$d/b.scn:1 the long one" 180 || return 1
	qemu=$(l1_qemu)
	kill -INT "$rpid"
	wait "$rpid"; status=$?
	j=$results/latest/report.json
	[ "$status" = 130 ] || { tail -5 "$rout" | sed 's/^/    #   /'; say "exit status $status, expected 130"; return 1; }
	! kill -0 "$qemu" 2>/dev/null || { say "L1's QEMU ($qemu) still runs"; kill -KILL "$qemu"; return 1; }
	reports_are_whole &&
	jq -e '.run.interrupted == true and .scenarios[0].result == "pass" and
		.scenarios[1].result == "error" and .scenarios[1].reason == "interrupted" and
		.scenarios[2].result == "notrun"' "$j" >/dev/null &&
	grep -q "interrupted" "$results/latest/summary.txt" ||
		{ jq -c '{run: .run.interrupted, s: [.scenarios[] | [.result, .reason]]}' "$j" | sed 's/^/    # /'; return 1; }
}

tunlab_run_stopped_by_term_stops_its_l1() {
	local qemu status
	rout=$results/run.out
	"$runner" run -- sh -c 'echo started; exec sleep 600' > "$rout" 2>&1 &
	rpid=$!
	wait_for started 180 || return 1
	qemu=$(l1_qemu)
	[ -n "$qemu" ] || { say "no L1 QEMU under the runner"; return 1; }
	kill -TERM "$rpid"
	wait "$rpid"; status=$?
	! kill -0 "$qemu" 2>/dev/null || { say "L1's QEMU ($qemu) still runs"; kill -KILL "$qemu"; return 1; }
	[ "$status" = 143 ] && grep -q "interrupted (SIGTERM); L1 stopped" "$rout" ||
		{ tail -5 "$rout" | sed 's/^/    #   /'; say "exit status $status, expected 143 and a message"; return 1; }
}

[ $# -gt 1 ] && tests=("${@:2}")
echo "KTAP version 1"
clear_latest() { rm -f "$results/latest"; }
. "$(dirname "$0")/tap.sh"
tap_run_tests clear_latest
