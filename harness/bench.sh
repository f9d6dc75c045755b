#!/bin/bash
# make bench: the lean lab side by side with a naive stack, in one run.
#
# lean   the lab kernel (kernel/build.sh), the lab's cpio images, qboot
# naive  Debian's stock kernel (kernel/stock.sh), initramfs-tools images
#        (gzip), SeaBIOS, for L1 and for L2 (guest-image/build-naive.sh)
#
# Both stacks run the same L1 work, alternating lean/naive in every round,
# and each figure is the median over the rounds; the ratio is naive/lean
# (for rates, lean/naive: above 1 means the lean stack is faster).
#   L1 start to ready      QEMU started to the executor's hello
#   L2 start to ready      `l2 boot` to the guest agent's "ready"
#   slice                  the whole runner on nested/l2-ping-over-persistent-tap:
#                          L1 boots, an L2 on an iproute2 tap pings L1,
#                          stops, the tap is deleted, L1 powers off
#   suite throughput       scenarios per minute over $BENCH_SUITE (none needs
#                          tunguard, which the stock kernel lacks)
#   kernel rebuilds        nothing changed, one line of tunguard changed, and
#                          from clean: lean is kernel/build.sh (cache, series
#                          applied file by file, ccache), naive is make with
#                          nothing to do, and a fresh tree without ccache,
#                          then the series re-applied with git am; from clean
#                          and the naive edit only with BENCH_KERNEL_CLEAN=1
#                          (about 25 min on 2 cores)
#   tunguard               TUN create+close with 1000 rules vs the module off,
#                          both on the lean stack (the stock kernel has none)
#   irqfd, ioeventfd       KVM signal rates inside L1 (kvm-probes --bench)
# Writes results/bench-<id>/bench.json and bench.txt (the table).
# usage: harness/bench.sh RUNNER
set -uo pipefail
runner=${1:?usage: bench.sh RUNNER}
# the lab kernel's profiled files, as make passes them to kernel/build.sh:
# they are part of its cache key
export KERNEL_GCOV_PROFILE=${KERNEL_GCOV_PROFILE?"set by make bench (kernel/kernel.mk's KERNEL_GCOV_PROFILE)"}
rounds=${BENCH_ROUNDS:-3}
suite_rounds=${BENCH_SUITE_ROUNDS:-1}
read -r -a suite <<< "${BENCH_SUITE:-host-scenarios/persist host-scenarios/create host-scenarios/nested}"
slice=host-scenarios/nested/l2-ping-over-persistent-tap.scn
seabios=/usr/share/seabios/bios-256k.bin
id=$(date -u +%Y%m%d-%H%M%S)
out=results/bench-$id
data=$out/figures.tsv
mkdir -p "$out/runs"
: > "$data"

say() { printf 'bench: %s\n' "$*"; }
# broken WHAT: a figure that could not be measured; said now, the others
# still measured, and the bench's exit status 1 at the end
failures=()
broken() { say "error: $*"; failures+=("$*"); }
# record ITEM STACK VALUE: one measured figure
record() { [ -n "$3" ] && printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$data"; }
since() { echo "$(date +%s.%N) - $1" | bc; }

say "naive stack: Debian's stock kernel, initramfs-tools, SeaBIOS"
kernel/stock.sh build/naive/stock || exit 3
guest-image/build-naive.sh build/naive build/naive/stock build/harness || exit 3
naive_args=(--kernel build/naive/vmlinuz --initrd build/naive/l1.img
	--append "boot=tunlab init=/init tunlab.l2bios=$seabios tunlab.l2append=boot=tunlab,init=/init")

# lab STACK LOG RUNNER_ARGS...: one runner run on that stack; its wall
# time in seconds on stdout
lab() {
	local stack=$1 log=$2 t0
	shift 2
	t0=$(date +%s.%N)
	if [ "$stack" = naive ]; then
		QBOOT=$seabios "$runner" --results "$out/runs/$stack" "${naive_args[@]}" "$@"
	else
		"$runner" --results "$out/runs/$stack" "$@"
	fi > "$log" 2>&1
	since "$t0"
}

for n in $(seq "$rounds"); do
	for stack in lean naive; do
		log=$out/runs/slice-$stack-$n.txt
		say "round $n/$rounds, $stack: slice"
		wall=$(lab "$stack" "$log" --no-ktap "$slice")
		# boots that got there count; a slice that did not pass does not
		record l1_ready "$stack" "$(grep -o 'L1 ready after [0-9.]*' "$log" | awk '{print $4}')"
		record l2_ready "$stack" "$(grep -o 'vm1 ready in [0-9.]*' "$log" | head -1 | awk '{print $4}')"
		if grep -q '^\[1/1\] pass' "$log"; then
			record slice "$stack" "$wall"
		else
			say "  the slice did not pass on $stack (log: $log)"
		fi
	done
done

for n in $(seq "$suite_rounds"); do
	for stack in lean naive; do
		log=$out/runs/suite-$stack-$n.txt
		say "round $n/$suite_rounds, $stack: suite ${suite[*]}"
		wall=$(lab "$stack" "$log" --no-ktap "${suite[@]}")
		count=$(grep -o '^[0-9]* scenarios: [0-9]* passed' "$log" | awk '{print $3}')
		[ -n "$count" ] && record suite_per_min "$stack" "$(echo "$count * 60 / $wall" | bc -l)"
	done
done

# KTAP benchmark figures from inside L1: "# bench: ..." lines
say "KVM and tunguard rates inside L1"
for stack in lean naive; do
	log=$out/runs/ktap-$stack.txt
	lab "$stack" "$log" --no-scenarios --ktap kvm-probes:--bench --ktap tgcheck:--bench >/dev/null
	ktap=$(readlink -f "$out/runs/$stack/latest")/report.ktap
	record irqfd_per_s "$stack" "$(grep -o 'bench: irqfd [0-9]*' "$ktap" | awk '{print $3}')"
	record ioeventfd_per_s "$stack" "$(grep -o 'bench: ioeventfd [0-9]*' "$ktap" | awk '{print $3}')"
	record tunguard_off_per_s "$stack" "$(grep 'bench: off, 1000 rules' "$ktap" | grep -o 'create+close *[0-9]*' | awk '{print $2}')"
	record tunguard_1000_per_s "$stack" "$(grep 'bench: enforce, 1000 named rules' "$ktap" | grep -o 'create+close *[0-9]*' | awk '{print $2}')"
done

# edit_one_line DIR: prefix the message of one pr_info() that a patch of
# DIR adds with "bench: ", the last such line that no later patch carries
# as context or removes; sets edited to the patch's name. 1 if none.
edit_one_line() {
	local patches=("$1"/*.patch) i j line later
	for ((i = ${#patches[@]} - 1; i >= 0; i--)); do
		while IFS= read -r line; do
			later=
			for ((j = i + 1; j < ${#patches[@]}; j++)); do
				if grep -qxF -e " ${line#+}" -e "-${line#+}" "${patches[j]}"; then
					later=1
					break
				fi
			done
			[ -z "$later" ] || continue
			# the line through the environment: awk -v would read its \n
			L=$line awk '!done && $0 == ENVIRON["L"] { sub(/pr_info\("/, "pr_info(\"bench: "); done = 1 } 1' \
				"${patches[i]}" > "${patches[i]}.new" || return 1
			if cmp -s "${patches[i]}" "${patches[i]}.new"; then
				rm -f "${patches[i]}.new"
				continue
			fi
			mv "${patches[i]}.new" "${patches[i]}"
			edited=$(basename "${patches[i]}")
			return 0
		done < <(grep '^+.*pr_info("' "${patches[i]}")
	done
	return 1
}

# Kernel rebuilds: lean is kernel/build.sh, naive is make as a user without
# the cache would run it. They share build/kernel with every other build:
# run make bench alone, or under the same lock as the other builds.
kernel_figures() {
	local t0 edit=$out/patches src=build/kernel/linux obj
	obj=$(realpath -m build/kernel/obj)
	say "kernel rebuilds"
	t0=$(date +%s.%N)
	# the lab kernel as make builds it; anything but "up to date" means the
	# figure would time another configuration's build
	if kernel/build.sh build/kernel/bzImage > "$out/runs/kernel-nochange-lean.txt" 2>&1; then
		if grep -q "up to date" "$out/runs/kernel-nochange-lean.txt"; then
			record kernel_nochange lean "$(since "$t0")"
		else
			broken "kernel_nochange: kernel/build.sh built instead of finding the lab kernel up to date: not make's inputs? ($out/runs/kernel-nochange-lean.txt)"
		fi
	fi
	# make with nothing to do walks the whole tree; the first run settles
	# whatever the last build of another configuration left
	make -s -C "$src" O="$obj" CC="ccache gcc" -j"$(nproc)" bzImage > /dev/null 2>&1
	t0=$(date +%s.%N)
	make -s -C "$src" O="$obj" CC="ccache gcc" -j"$(nproc)" bzImage \
		> "$out/runs/kernel-nochange-naive.txt" 2>&1 && record kernel_nochange naive "$(since "$t0")"
	# one line of tunguard changed, in a copy of the series: a pr_info()
	# the series adds and no later patch carries as context, or the
	# series would no longer apply
	mkdir -p "$edit"
	cp kernel/patches/6.1/*.patch "$edit/"
	if ! edit_one_line "$edit"; then
		broken "kernel_edit: no pr_info() line of the series that no later patch carries as context"
	else
		t0=$(date +%s.%N)
		if KERNEL_PATCH_DIR=$edit TUNLAB_CACHE=$out/cache \
			KERNEL_CCACHE=${KERNEL_CCACHE:-${TUNLAB_CACHE:-/var/cache/tunlab}/ccache} \
			kernel/build.sh "$out/bzImage" > "$out/runs/kernel-edit-lean.txt" 2>&1; then
			record kernel_edit lean "$(since "$t0")"
		else
			broken "kernel_edit: the series with $edited did not build: $(tail -1 "$out/runs/kernel-edit-lean.txt") ($out/runs/kernel-edit-lean.txt)"
		fi
	fi
	if [ -n "${BENCH_KERNEL_CLEAN:-}" ]; then
		# from clean, as on a fresh machine, each from the source package
		# into a tree of its own: lean through an empty ccache store,
		# naive without ccache; then the naive edit loop, the series
		# re-applied with git am on a pristine tree (paths from the top:
		# git -C reads them from the tree)
		t0=$(date +%s.%N)
		TUNLAB_CACHE=$out/cache KERNEL_BUILD_DIR=$out/kernel kernel/build.sh "$out/bzImage" \
			> "$out/runs/kernel-clean-lean.txt" 2>&1 && record kernel_clean lean "$(since "$t0")"
		t0=$(date +%s.%N)
		TUNLAB_CACHE=$out/cache2 KERNEL_CCACHE=off KERNEL_BUILD_DIR=$out/kernel-naive \
			KERNEL_OBJ_DIR=$out/kernel-naive/obj kernel/build.sh "$out/bzImage" \
			> "$out/runs/kernel-clean-naive.txt" 2>&1 && record kernel_clean naive "$(since "$t0")"
		t0=$(date +%s.%N)
		(git -C "$out/kernel-naive/linux" reset -q --hard pristine &&
			for p in "$PWD/$edit"/*.patch; do git -C "$out/kernel-naive/linux" am -q "$p" || exit 1; done &&
			make -s -C "$out/kernel-naive/linux" O="$PWD/$out/kernel-naive/obj" -j"$(nproc)" bzImage) \
			> "$out/runs/kernel-edit-naive.txt" 2>&1 && record kernel_edit naive "$(since "$t0")"
		rm -rf "$out/kernel" "$out/kernel-naive"
	fi
	rm -rf "$out/cache" "$out/cache2" "$out/bzImage" "$edit"
}
# BENCH_KERNEL=0 leaves them out (another build is using the tree)
[ "${BENCH_KERNEL:-1}" = 0 ] || kernel_figures

# medians, ratios, the table
jq -Rn --arg id "$id" --arg cpus "$(nproc)" --argjson rounds "$rounds" '
	def median: sort | if length == 0 then null
		elif length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	[inputs | split("\t") | {item: .[0], stack: .[1], v: (.[2] | tonumber)}] as $f |
	{ "slice": "s", "l1_ready": "s", "l2_ready": "s", "suite_per_min": "scenarios/min",
	  "kernel_nochange": "s", "kernel_edit": "s", "kernel_clean": "s",
	  "tunguard_off_per_s": "ops/s", "tunguard_1000_per_s": "ops/s",
	  "irqfd_per_s": "interrupts/s", "ioeventfd_per_s": "signals/s" } as $units |
	def lean($k): [$f[] | select(.item == $k and .stack == "lean") | .v] | median;
	{ schema: "tunlab-bench/1", id: $id, cpus: ($cpus | tonumber), rounds: $rounds,
	  tunguard_1000_rules_vs_off: (if lean("tunguard_off_per_s") then
		lean("tunguard_1000_per_s") / lean("tunguard_off_per_s") else null end),
	  items: [$units | keys_unsorted[] as $k |
		{ item: $k, unit: $units[$k],
		  lean: ([$f[] | select(.item == $k and .stack == "lean") | .v] | median),
		  naive: ([$f[] | select(.item == $k and .stack == "naive") | .v] | median),
		  samples: { lean: [$f[] | select(.item == $k and .stack == "lean") | .v],
			     naive: [$f[] | select(.item == $k and .stack == "naive") | .v] } } |
		.ratio = (if .lean == null or .naive == null or .lean == 0 or .naive == 0 then null
			  elif (.unit | test("/")) then .lean / .naive else .naive / .lean end)] }' \
	< "$data" > "$out/bench.json"
{
	echo "tunlab bench $id on $(nproc) cpus, $rounds rounds (suite $suite_rounds), medians"
	printf '%-22s %14s %14s %8s  %s\n' item lean naive ratio unit
	jq -r '.items[] | [.item, (.lean // "-"), (.naive // "-"), (.ratio // "-"), .unit] | @tsv' \
		"$out/bench.json" | while IFS=$'\t' read -r item lean naive ratio unit; do
		fmt() { [ "$1" = - ] && echo - || printf '%.2f' "$1"; }
		printf '%-22s %14s %14s %8s  %s\n' "$item" "$(fmt "$lean")" "$(fmt "$naive")" \
			"$( [ "$ratio" = - ] && echo - || printf '%.1fx' "$ratio")" "$unit"
	done
	echo "ratio: naive/lean for times, lean/naive for rates (above 1: lean is faster);"
	echo "tunguard: 1000 rules run at $(jq -r '.tunguard_1000_rules_vs_off // "-" | if type == "number" then . * 100 | floor | tostring + "%" else . end' "$out/bench.json") of the rate with the module off (lean stack)"
} > "$out/bench.txt"
cat "$out/bench.txt"
echo "bench: $out/bench.json"
if [ ${#failures[@]} -gt 0 ]; then
	printf 'bench: not measured: %s\n' "${failures[@]}"
	exit 1
fi
