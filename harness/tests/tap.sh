# Sourced by the shell test programs (lab-test.sh, fault-test.sh, ...): run
# the functions named in the array tests, one TAP line each with the time
# it took, and a summary.
#
# usage: tap_run_tests [BEFORE_EACH]   (BEFORE_EACH: a command run before
#                                        every test, e.g. to clear state)
# The exit status is 0 when every test passed.
tap_run_tests() {
	local _tap_before=${1:-} _tap_t _tap_t0 _tap_n=0 _tap_passed=0 _tap_failed=0
	echo "1..${#tests[@]}"
	for _tap_t in "${tests[@]}"; do
		_tap_n=$((_tap_n + 1))
		[ -z "$_tap_before" ] || $_tap_before
		_tap_t0=$(date +%s.%N)
		if "$_tap_t"; then
			echo "# $_tap_t took $(printf "%.1f" "$(echo "$(date +%s.%N) - $_tap_t0" | bc)") s"
			echo "ok $_tap_n $_tap_t"
			_tap_passed=$((_tap_passed + 1))
		else
			echo "not ok $_tap_n $_tap_t"
			_tap_failed=$((_tap_failed + 1))
		fi
	done
	echo "$_tap_passed passed, $_tap_failed failed"
	[ "$_tap_failed" -eq 0 ]
}
