#!/bin/bash
# Run a CPU-bound job (a kernel build) at the lowest priority beside a list
# of commands that leave a core idle (the lab tests mostly wait on L1's
# TCG vCPUs), so it takes only what they leave. The commands run in order
# and stop at the first failure, whose status is the script's; then the
# job is stopped. When they all pass, the script waits for the job and
# fails, quoting the end of its log, if the job failed.
# usage: harness/tests/alongside.sh LOG JOB COMMAND...   (each a shell string)
set -uo pipefail

[ $# -ge 3 ] || { echo "usage: alongside.sh LOG JOB COMMAND..." >&2; exit 2; }
log=$1 job=$2
shift 2

mkdir -p "$(dirname "$log")"
# a process group of its own, so stopping it stops make, build.sh and gcc
setsid nice -n 19 bash -c "$job" > "$log" 2>&1 < /dev/null &
pid=$!
stop_job() {
	kill -TERM -- "-$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}
trap 'stop_job; exit 130' INT
trap 'stop_job; exit 143' TERM
echo "alongside: '$job' runs at nice 19 beside the tests (log: $log)"

for cmd in "$@"; do
	bash -c "$cmd"
	status=$?
	if [ "$status" -ne 0 ]; then
		echo "alongside: '$cmd' failed (status $status); stopping '$job'"
		stop_job
		exit "$status"
	fi
done

t0=$(date +%s)
wait "$pid"
status=$?
if [ "$status" -ne 0 ]; then
	tail -20 "$log" | sed 's/^/    /'
	echo "alongside: '$job' failed (status $status; log: $log)"
	exit 1
fi
echo "alongside: '$job' done; the tests waited $(( $(date +%s) - t0 )) s more for it"
