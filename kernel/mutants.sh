#!/bin/bash
# The mutation check: does the suite fail on a broken kernel? Each mutant
# of kernel/mutants/VERSION.list (a small edit to tun.c's permission paths
# or to tunguard) is applied alone on top of the series, the kernel built,
# and the part of the suite that can catch it run on that kernel, lane by
# lane until one fails:
#
#   scenarios  KUnit (every boot), tgcheck, and the TUN and tunguard
#              scenarios that boot no L2 (tunguard, persist, create,
#              multiqueue, fdpass, netns)
#   tgstress   the model-based fuzz and soak, with a fixed seed
#   selinux    host-scenarios/selinux with SELinux enforcing (those that boot
#              no L2 either)
#   selftests  the series' own selftests (host-scenarios/kselftest/tunguard.scn,
#              tools/testing/selftests/tunguard), booted with
#              tunguard.audit_allow=1: last, as they take 40 s
#
# A mutant is caught (a lane failed, timed out or saw a kernel report; the
# tests that failed are named), survived (every lane passed), build-failed
# (its kernel does not build: a list problem, not a catch) or error (the
# lab could not run). The unmutated kernel runs the same lanes first and
# must pass them all, or no catch would mean anything.
#
# usage: kernel/mutants.sh RUNNER [ID...]      (make mutants [MUTANTS="ID..."])
#        kernel/mutants.sh --check [ID...]     generate the patches, build nothing
# env:   KERNEL_VERSION (6.1), MUTANTS_LIST (default kernel/mutants/VERSION.list),
#        MUTANTS_SEED (tgstress's seed, default 14), MUTANTS_KERNEL (the
#        unmutated kernel, default build/kernel/bzImage), MUTANTS_INITRD,
#        MUTANTS_BASELINE=0 (skip the unmutated kernel's lanes: only right
#        when neither the suite nor the series changed since they passed),
#        MUTANTS_TREE (a tree with the tag pristine to read the files from,
#        default build/kernel/linux; else the source package is read),
#        TUNLAB_CACHE, KERNEL_JOBS as kernel/build.sh, KBUILD_LOCK (a lock
#        file taken around each mutant's build, for a machine whose kernel
#        builds take turns; default none)
# Exit status: 0 every mutant caught or marked equivalent; 1 a mutant
# survived that is not marked equivalent, or did not build, or its lab
# could not run; 2 usage, or a list error (a mutant whose old text is not
# found exactly once is named); 3 the unmutated kernel fails the lanes.
#
# Each mutant kernel is built by kernel/build.sh from the lab's tree
# (build/kernel/linux) with the series plus the mutant's patch, objects in
# build/kernel/obj-mutants, so a mutant recompiles the file it touches
# (through ccache) and relinks. Its bzImage is cached under
# build/mutants/cache by its own key: the lab kernel's cache and objects
# are never touched, and kernel/build.sh re-applies the plain series
# before any other build of that tree. Per mutant: results/mutants-ID/
# (the run folders, mutant.tsv), build/mutants/ID/ (bzImage, build.log);
# the table: results/mutants-LIST.txt (results/mutants-6.1.txt).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$top"
kver=${KERNEL_VERSION:-6.1}
list=${MUTANTS_LIST:-kernel/mutants/$kver.list}
seed=${MUTANTS_SEED:-14}
work=$top/build/mutants
results=$top/results
tar_path=${KERNEL_SRC_TAR:-/usr/src/linux-source-$kver.tar.xz}
src=${MUTANTS_TREE:-$top/build/kernel/linux}

say() { printf 'mutants: %s\n' "$*"; }
die() { printf 'mutants: error: %s\n' "$*" >&2; exit "${2:-2}"; }

check_only=0
if [ "${1:-}" = --check ]; then
	check_only=1
	shift
else
	runner=${1:?usage: kernel/mutants.sh RUNNER [ID...] | --check [ID...]}
	shift
	[ -x "$runner" ] || die "$runner is not a program (make harness)"
fi
ids=("$@")
[ -r "$list" ] || die "$list not found"
shopt -s nullglob
series=("$here/patches/$kver"/*.patch)
shopt -u nullglob
[ ${#series[@]} -gt 0 ] || die "no patches in kernel/patches/$kver"

# --- the files the list names, as the series leaves them -------------------
# From the lab tree's pristine commit when it is there (instant), else from
# the source package; then the series applied to those files only. Kept
# under a key of the package and the series.
files=$(awk '$1 == "mutant" { print $3 }' "$list" | sort -u)
series_key=$( { stat -c %s-%Y "$tar_path" 2>/dev/null; cat "${series[@]}"; echo "$files"; } |
	sha256sum | cut -c1-16)
series_dir=$work/series-$series_key
if [ ! -d "$series_dir" ]; then
	rm -rf "$series_dir.tmp" && mkdir -p "$series_dir.tmp"
	for f in $files; do
		mkdir -p "$series_dir.tmp/$(dirname "$f")"
		if [ -d "$src/.git" ] && git -C "$src" rev-parse -q --verify pristine >/dev/null; then
			git -C "$src" show "pristine:$f" > "$series_dir.tmp/$f" 2>/dev/null || rm -f "$series_dir.tmp/$f"
		fi
	done
	missing=$(for f in $files; do [ -e "$series_dir.tmp/$f" ] || echo "linux-source-$kver/$f"; done)
	if [ -n "$missing" ] && [ ! -d "$src/.git" ]; then
		[ -r "$tar_path" ] || die "$tar_path not found (make deps)"
		say "reading $(echo "$missing" | wc -l) file(s) from $tar_path"
		# files the series creates are not in the package: not an error here
		tar -xJf "$tar_path" -C "$series_dir.tmp" --strip-components=1 $missing 2>/dev/null
	fi
	inc=()
	for f in $files; do inc+=(--include="$f"); done
	# outside any repository: git apply in a subfolder of one (this one)
	# would take the patch's paths from the repository's top
	for p in "${series[@]}"; do
		(cd "$series_dir.tmp" && GIT_CEILING_DIRECTORIES=$work git apply --whitespace=nowarn "${inc[@]}" "$p") ||
			die "$(basename "$p") does not apply to the files the list names"
	done
	mv "$series_dir.tmp" "$series_dir"
fi

# --- one patch per mutant ----------------------------------------------------
rm -rf "$work/patches"
index=$(python3 "$here/mutants/gen.py" "$list" "$series_dir" "$work/patches" "${ids[@]}") || exit 2
n_total=$(printf '%s\n' "$index" | grep -c .)
say "$n_total mutant(s) from $list, each applies exactly once"
if [ $check_only = 1 ]; then
	printf '%s\n' "$index" | awk -F'\t' '{ printf "  %-32s %s\n", $1, $2 }'
	exit 0
fi

# --- the lanes ---------------------------------------------------------------
# the scenario folders of the TUN and tunguard suite, without the
# scenarios that boot an L2 (25 s each under TCG; they test the guests)
no_l2() { for f in "$@"; do grep -q '^[^#]*l2 boot' "$f" || echo "$f"; done; }
read -r -a scenario_files <<< "$(no_l2 host-scenarios/{tunguard,persist,create,multiqueue,fdpass,netns}/*.scn | tr '\n' ' ')"
read -r -a selinux_files <<< "$(no_l2 host-scenarios/selinux/*.scn | tr '\n' ' ')"
lane_names=(scenarios tgstress selinux selftests)
lane_args() {
	case $1 in
	scenarios) echo "--ktap tgcheck --fail-fast ${scenario_files[*]}" ;;
	tgstress) echo "--no-scenarios --ktap tgstress:--seed,$seed" ;;
	selinux) echo "--selinux enforcing --no-ktap ${selinux_files[*]}" ;;
	# with allowed decisions audited when audit is on: the default lanes
	# boot without it, so this lane takes the series test's other way
	selftests) echo "--append tunguard.audit_allow=1 --no-ktap host-scenarios/kselftest/tunguard.scn" ;;
	esac
}
initrd=${MUTANTS_INITRD:-build/images/l1.cpio}
run_args=(--initrd "$initrd" --timeout 1800 --step-timeout 180 --boot-timeout 180)

# What failed in a run folder, on one line: the kernel report, the suites
# with their first not-ok tests, the scenarios with their first failing step.
caught_by() {
	jq -r '
		[ (.run.kernel_report // empty | "kernel \(.kind)"),
		  (.suites[] | select(.result != "pass" and .result != "skip") |
			"\(.name) (\([(.lines // [])[] | select(test("^ {0,4}not ok ")) |
				sub("^ *not ok [0-9]+ "; "")][0:3] | join(", ")))"),
		  (.scenarios[] | select(.result != "pass" and .result != "skip" and .result != "notrun") |
			"\(.file):\(.line) [\(.result)]")
		] | if length == 0 then "exit status \(.run.exit_status)" else .[0:4] | join("; ") end' "$1"
}

# run_lane LANE KERNEL DIR: 0 passed, 1 caught (caught_by in $what), 2 error
run_lane() {
	local lane=$1 kernel=$2 dir=$3 status
	read -r -a extra <<< "$(lane_args "$lane")"
	"$runner" --results "$dir" --kernel "$kernel" "${run_args[@]}" "${extra[@]}" \
		< /dev/null > "$dir/$lane.log" 2>&1
	status=$?
	what=
	case $status in
	0) return 0 ;;
	1|124|125)
		what="$lane: $(caught_by "$dir/latest/report.json" 2>/dev/null || echo "exit status $status")"
		return 1 ;;
	*)
		what="$lane: exit status $status ($(grep -m1 -iE 'error|tunlab:' "$dir/$lane.log" | cut -c1-120))"
		return 2 ;;
	esac
}

# KBUILD_LOCK: builds take turns with the machine's other kernel builds
locked() {
	if [ -n "${KBUILD_LOCK:-}" ]; then
		flock "$KBUILD_LOCK" "$@"
	else
		"$@"
	fi
}

t_start=$(date +%s)
base_kernel=${MUTANTS_KERNEL:-build/kernel/bzImage}
[ -r "$base_kernel" ] || die "$base_kernel not found (make kernel)"
[ -r "$initrd" ] || die "$initrd not found (make images)"

# --- the unmutated kernel must pass every lane -------------------------------
base_dir=$results/mutants-baseline
if [ "${MUTANTS_BASELINE:-1}" = 0 ]; then
	say "MUTANTS_BASELINE=0: the unmutated kernel's lanes are not run (trust an earlier pass)"
else
	rm -rf "$base_dir" && mkdir -p "$base_dir"
	t0=$(date +%s)
	for lane in "${lane_names[@]}"; do
		run_lane "$lane" "$base_kernel" "$base_dir" ||
			die "the unmutated kernel fails: $what (logs in $base_dir)" 3
	done
	say "the unmutated kernel passes every lane ($(( $(date +%s) - t0 )) s)"
fi

# --- each mutant -------------------------------------------------------------
table=$work/table.txt
: > "$table"
n_caught=0 n_survived=0 n_equiv=0 n_buildfail=0 n_error=0 n_bad_equiv=0
while IFS=$'\t' read -r id file equiv why; do
	mdir=$work/$id rdir=$results/mutants-$id
	rm -rf "$mdir/patches" "$rdir" && mkdir -p "$mdir/patches" "$rdir"
	for p in "${series[@]}"; do ln -s "$p" "$mdir/patches/"; done
	cp "$work/patches/$id.patch" "$mdir/patches/9999-mutant-$id.patch"
	t0=$(date +%s)
	if locked env KERNEL_PATCH_DIR="$mdir/patches" KERNEL_OBJ_DIR="$top/build/kernel/obj-mutants" \
		TUNLAB_CACHE="$work/cache" KERNEL_CCACHE="${TUNLAB_CACHE:-/var/cache/tunlab}/ccache" \
		kernel/build.sh "$mdir/bzImage" < /dev/null > "$mdir/build.log" 2>&1; then
		# the build's own time, not the wait for the lock: "built in N s",
		# nothing when the bzImage came from the cache
		t_build=$(sed -n 's/^kernel: built in \([0-9]*\) s.*/\1/p' "$mdir/build.log")
		t_build=${t_build:-0}
		t0=$(date +%s)
		result=survived what="every lane passed"
		for lane in "${lane_names[@]}"; do
			run_lane "$lane" "$mdir/bzImage" "$rdir"
			case $? in
			1) result=caught; break ;;
			2) result=error; break ;;
			esac
		done
		t_run=$(( $(date +%s) - t0 ))
	else
		t_build=$(( $(date +%s) - t0 )) t_run=0
		if grep -q "does not apply" "$mdir/build.log"; then
			result=error what="the patch does not apply on the tree ($mdir/build.log)"
		else
			result=build-failed what="$(grep -m1 -E 'error:' "$mdir/build.log" | cut -c1-120) ($mdir/build.log)"
		fi
	fi
	if [ "$equiv" != - ]; then
		case $result in
		survived) result=equivalent what="marked equivalent: $equiv" ;;
		caught) n_bad_equiv=$((n_bad_equiv + 1)); what="marked equivalent, yet $what" ;;
		esac
	fi
	case $result in
	caught) n_caught=$((n_caught + 1)) ;;
	survived) n_survived=$((n_survived + 1)) ;;
	equivalent) n_equiv=$((n_equiv + 1)) ;;
	build-failed) n_buildfail=$((n_buildfail + 1)) ;;
	*) n_error=$((n_error + 1)) ;;
	esac
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$result" "$t_build" "$t_run" "$what" "$why" > "$rdir/mutant.tsv"
	cat "$rdir/mutant.tsv" >> "$table"
	printf 'mutants: %-30s %-12s build %4ss run %4ss  %s\n' "$id" "$result" "$t_build" "$t_run" "$what"
done <<< "$index"

# --- the table and the score -------------------------------------------------
killable=$((n_caught + n_survived))
{
	printf '%-32s %-12s %7s %7s  %s\n' mutant result build run "caught by / why"
	while IFS=$'\t' read -r id result tb tr what why; do
		printf '%-32s %-12s %6ss %6ss  %s\n' "$id" "$result" "$tb" "$tr" "$what"
	done < "$table"
	echo
	echo "$n_total mutants: $n_caught caught, $n_survived survived, $n_equiv equivalent," \
		"$n_buildfail build-failed, $n_error error"
	[ "$killable" -gt 0 ] &&
		echo "score: $n_caught of $killable non-equivalent mutants caught ($((100 * n_caught / killable))%)"
	echo "time: $(( $(date +%s) - t_start )) s in all (the unmutated kernel's lanes and the waits for the build lock included)"
} | tee "$results/mutants-$(basename "$list" .list).txt"
[ "$n_bad_equiv" -eq 0 ] || say "$n_bad_equiv mutant(s) marked equivalent were caught: drop the mark"
[ "$n_survived" -eq 0 ] && [ "$n_buildfail" -eq 0 ] && [ "$n_error" -eq 0 ]
