#!/bin/bash
# Fuzz the scenario parser: replay every input that once broke it, then let
# libFuzzer mutate the corpus for SECONDS. The corpus lives in
# build/fuzz/corpus (kept between runs, so long runs build on each other)
# and is seeded with the suite and the malformed corpus; what it finds goes
# to build/fuzz/findings/, to be added to harness/tests/fuzz/regress/ once
# fixed. Exit 0 when nothing was found.
# usage: harness/tests/fuzz/run.sh FUZZER SECONDS
set -uo pipefail
fuzzer=${1:?usage: run.sh FUZZER SECONDS}
seconds=${2:?usage: run.sh FUZZER SECONDS}
here=$(cd "$(dirname "$0")" && pwd)
out=$(dirname "$fuzzer")
corpus=$out/corpus findings=$out/findings log=$out/fuzz.log
mkdir -p "$corpus" "$findings"

# seeds under their content's hash, as libFuzzer names its own inputs
while IFS= read -r f; do
	cp "$f" "$corpus/$(sha1sum < "$f" | cut -c1-40)"
done < <(find host-scenarios harness/tests/data -name '*.scn')

regress=("$here"/regress/*)
if [ -e "${regress[0]}" ]; then
	if ! "$fuzzer" "${regress[@]}" > "$log" 2>&1; then
		grep -E 'ERROR|SUMMARY|Running:' "$log" | tail -5 | sed 's/^/fuzz: /'
		echo "fuzz: a regression input breaks the parser again (log: $log)"
		exit 1
	fi
	echo "fuzz: ${#regress[@]} regression inputs replayed, none breaks the parser"
fi

# one job: the machine's other core belongs to the lab
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-artifact_prefix="$findings/" -print_final_stats=1 "$corpus" > "$log" 2>&1
status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
done=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/\1 edges, \2 features, \3 inputs in the corpus/p' <<<"$done")
echo "fuzz: ${runs:-?} inputs in $seconds s; coverage: ${cov:-unknown}"
if [ "$status" -ne 0 ]; then
	grep -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|Test unit written' "$log" | head -6 | sed 's/^/fuzz: /'
	echo "fuzz: the parser broke (exit $status); the input is in $findings/, the log in $log"
	exit 1
fi
