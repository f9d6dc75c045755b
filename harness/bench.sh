#!/bin/bash
# make bench: the lab's speed figures, measured on this machine.
#   kernel, nothing changed      kernel/build.sh with its cache warm
#   kernel, from clean           only with BENCH_KERNEL_CLEAN=1 (~6 min on 2 cores)
#   images                       L2 + L1 initramfs rebuilt from scratch
#   L1 start to ready            runner start of QEMU to the executor's hello
#   L2 start to ready            `l2 boot` to the guest agent's "ready"
#   make lab, warm build         the whole command with nothing to rebuild
#   KTAP programs' --bench       figures the probes and module checks print
# usage: harness/bench.sh RUNNER
set -uo pipefail
runner=${1:?usage: bench.sh RUNNER}
out=$(mktemp -d /tmp/tunlab-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT

secs() { local t0=$1; echo "$(date +%s.%N) - $t0" | bc | xargs printf '%.1f'; }
row() { printf '%-34s %s\n' "$1" "$2"; }

echo "tunlab bench on $(nproc) cpus, $(date -u +%Y-%m-%dT%H:%MZ)"
t0=$(date +%s.%N); kernel/build.sh build/kernel/bzImage >/dev/null
row "kernel, nothing changed" "$(secs "$t0") s"
if [ -n "${BENCH_KERNEL_CLEAN:-}" ]; then
	t0=$(date +%s.%N)
	TUNLAB_CACHE=$out/cache KERNEL_BUILD_DIR=$out/kernel kernel/build.sh "$out/bzImage" >/dev/null
	row "kernel, from clean" "$(secs "$t0") s"
fi
t0=$(date +%s.%N)
guest-image/build-l2.sh "$out/l2.cpio" "$out/l2.root" &&
	guest-image/build-l1.sh "$out/l1.cpio" "$out/l1.root" build/kernel/bzImage "$out/l2.cpio" build/harness
row "images (L2 + L1)" "$(secs "$t0") s, L1 $(( $(stat -c %s "$out/l1.cpio") / 1048576 )) MiB"

for i in 1 2 3; do
	"$runner" --results "$out/runs" host-scenarios/nested/l2-ping-over-persistent-tap.scn > "$out/run$i.txt" 2>&1
done
l1=$(grep -ho 'L1 ready after [0-9.]* s' "$out"/run*.txt | awk '{print $4}' | sort -n | tr '\n' ' ')
l2=$(grep -ho 'vm1 ready in [0-9.]* s' "$out"/runs/*/summary.txt "$out"/run*.txt | awk '{print $4}' | sort -n | uniq | tr '\n' ' ')
slice=$(grep -ho '^\[1/1\] pass *[0-9.]*s' "$out"/run*.txt | awk '{print $3}' | tr '\n' ' ')
row "L1 start to ready (3 runs)" "$l1 s"
row "L2 start to ready (3 runs)" "$l2 s"
row "slice scenario (3 runs)" "$slice"

t0=$(date +%s.%N); make --no-print-directory lab > "$out/lab.txt" 2>&1; status=$?
row "make lab, warm build" "$(secs "$t0") s (exit $status)"
grep -h 'scenarios:' "$out/lab.txt" | sed 's/^/  /'
# the suite's own rates, from the run make lab just made
report=results/latest/report.json
if [ -r "$report" ]; then
	row "suite" "$(jq -r '(.scenarios | length) as $n | ([.scenarios[].duration_ms] | add) as $ms |
		"\($n) scenarios in \($ms / 1000 | floor) s of scenario time: \($n * 60000 / $ms | floor) per minute"' "$report")"
	row "scenario without an L2 (mean)" "$(jq -r '[.scenarios[] | select([.steps[].text | test("l2 boot")] | any | not) |
		.duration_ms] | "\(add / length | floor) ms over \(length) scenarios"' "$report")"
	row "l2 boot to ready (mean)" "$(jq -r '[.scenarios[].steps[] | select(.message != null) |
		.message | capture("ready in (?<s>[0-9.]+) s") | .s | tonumber] |
		"\(add / length * 100 | floor / 100) s over \(length) boots"' "$report")"
	row "L1 suites (KUnit, tgcheck, probes)" "$(jq -r '[.suites[] | "\(.name) \(.duration_ms / 1000 | floor) s"] | join(", ")' "$report")"
fi

if ls build/harness/l1/ktap/* >/dev/null 2>&1; then
	spec=$(for p in build/harness/l1/ktap/*; do printf -- '--ktap %s:--bench ' "$(basename "$p")"; done)
	# shellcheck disable=SC2086
	"$runner" --results "$out/runs" --no-scenarios $spec > "$out/ktap.txt" 2>&1
	echo "KTAP programs with --bench (inside L1):"
	grep -h '# bench' "$out"/runs/latest/report.ktap | sed 's/^ *# bench: */  /'
fi
