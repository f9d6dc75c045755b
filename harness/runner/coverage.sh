#!/bin/bash
# Kernel coverage of a run (make coverage): the gcov counters L1 sent
# (RUN/gcov/boot-N/, tunlab.gcov=1) with the .gcno files and sources the
# debug kernel's build kept (build/kernel-debug/gcov/, kernel/build.sh),
# through Debian's lcov into RUN/coverage/: coverage.info (lcov's
# tracefile, lines and branches, without KUnit's cases; coverage-all.info
# with them), html/ (genhtml) and summary.txt (lines
# and branches per file, then each TUN hook's call site and each
# permission check of tun_set_iff() in tun.c, branch by branch, and
# tunguard's hook functions).
#
# Branches are gcc's: one per outcome of each conditional jump in the
# optimised (-O2) code, so a line may show more or fewer than its source
# has conditions, and likely()/WARN_ON() paths count like any other.
#
# usage: harness/runner/coverage.sh RUN_DIR GCOV_DIR
# exit:  0 report written; 1 no counters, or counters of another kernel;
#        2 usage; 3 lcov missing or failed
set -euo pipefail

run=${1:?usage: coverage.sh RUN_DIR GCOV_DIR}
gcov=${2:?usage: coverage.sh RUN_DIR GCOV_DIR}
out=$run/coverage

say() { printf 'coverage: %s\n' "$*"; }
die() { printf 'coverage: error: %s\n' "$2" >&2; exit "$1"; }

for tool in lcov genhtml gcov; do
	command -v $tool >/dev/null || die 3 "$tool not found (Debian's lcov and gcc: make deps)"
done
[ -d "$run" ] || die 2 "$run: no such run folder"
[ -f "$gcov/objtree" ] && [ -d "$gcov/obj" ] ||
	die 1 "$gcov: no .gcno files of a gcov kernel (build it: make kernel-debug)"
gcov=$(realpath "$gcov")
objtree=$(cat "$gcov/objtree")
shopt -s nullglob
sets=("$run"/gcov/boot-*)
shopt -u nullglob
[ ${#sets[@]} -gt 0 ] ||
	die 1 "no gcov counters in $run/gcov (L1 sends them with tunlab.gcov=1 on a kernel built with gcov; see the gcov suite in $run/report.ktap)"

rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/tunlab-coverage.XXXXXX")
trap 'rm -rf "$work"' EXIT

# lcov's output, but for its progress and the warnings that say nothing:
# Debian's 1.16 on perl 5.36 warns of subroutines it redefines, and of
# sources not at the path the build had (gone, as expected: the copies
# in gcov/src/ are the ones genhtml reads).
lcov_quiet() {
	local log=$work/lcov.log
	if ! "$@" > "$log" 2>&1; then
		sed 's/^/    /' "$log" >&2
		die 3 "$1 failed: $*"
	fi
	grep -i -e warning -e error "$log" |
		grep -v -e 'redefined at /usr/bin/' -e 'could not open' -e 'exclusion markers may be ignored' |
		sed 's/^/coverage: lcov: /' >&2 || true
}
lcov_rc=(--rc lcov_branch_coverage=1 --gcov-tool gcov)

# Zero for every profiled line first, so a file no counter reached is
# 0% in the report rather than absent from it.
cp -r "$gcov/obj" "$work/initial"
lcov_quiet lcov "${lcov_rc[@]}" --capture --initial --directory "$work/initial" -o "$work/initial.info"
adds=(-a "$work/initial.info")

# Each boot's counters beside the .gcno files, at the path L1 named them
# by: the object folder of the build they came from.
for set in "${sets[@]}"; do
	name=$(basename "$set")
	from=$set/${objtree#/}
	if [ ! -d "$from" ]; then
		other=$(cd "$set" && find . -name '*.gcda' | head -1)
		die 1 "$set holds counters of a kernel built in another place (${other#.}), not of the one whose .gcno files are in $gcov (objects in $objtree): rebuild and rerun, or point at the right gcov/"
	fi
	cp -r "$gcov/obj" "$work/$name"
	n=0
	while IFS= read -r rel; do
		gcda=${rel%.gcno}.gcda
		if [ -f "$from/$gcda" ]; then
			cp "$from/$gcda" "$work/$name/$gcda"
			n=$((n + 1))
		fi
	done < <(cd "$gcov/obj" && find . -name '*.gcno' | sed 's|^\./||')
	[ "$n" -gt 0 ] || die 1 "$set has no counters for any file in $gcov/obj"
	lcov_quiet lcov "${lcov_rc[@]}" --capture --directory "$work/$name" -o "$work/$name.info"
	adds+=(-a "$work/$name.info")
	say "$name: counters of $n files"
done
lcov_quiet lcov "${lcov_rc[@]}" "${adds[@]}" -o "$work/all.info"

# Only the profiled sources (not the header functions inlined into
# them), named by their copies in gcov/src/.
patterns=()
while IFS= read -r p; do
	case $p in
	*.o) patterns+=("*/${p%.o}.c") ;;
	*) patterns+=("*/$p/*") ;;
	esac
done < "$gcov/profile"
lcov_quiet lcov "${lcov_rc[@]}" --extract "$work/all.info" "${patterns[@]}" -o "$work/ours.info"
awk -v src="$gcov/src" -v profile="$gcov/profile" '
	BEGIN { while ((getline p < profile) > 0) { sub(/\.o$/, ".c", p); keep[p] = 1 } }
	/^SF:/ {
		path = substr($0, 4)
		for (p in keep) {
			i = index(path, "/" p)
			if (i && (substr(path, i + 1) == p || substr(path, i + 1 + length(p), 1) == "/")) {
				path = src "/" substr(path, i + 1)
				break
			}
		}
		print "SF:" path
		next
	}
	{ print }' "$work/ours.info" > "$out/coverage-all.info"

# KUnit's cases are compiled into the files they test, between
# "#ifdef CONFIG_..._KUNIT_TEST" and its #endif (decision.c, policy.c):
# they run at every boot and cover themselves, which says nothing of the
# code under test. coverage.info, the summary and the HTML leave those
# blocks out (their lines, branches and functions; the per-file totals
# recounted); coverage-all.info keeps them.
awk -v left="$work/left-out" '
	function load(f,    line, n, depth, in_k, kd, s) {
		nr = n = depth = in_k = 0
		while ((getline line < f) > 0) {
			n++
			if (line ~ /^[ \t]*#[ \t]*if/) {
				depth++
				if (!in_k && line ~ /KUNIT/) { in_k = 1; kd = depth; s = n }
			} else if (line ~ /^[ \t]*#[ \t]*endif/) {
				if (in_k && depth == kd) { rs[++nr] = s; re[nr] = n; in_k = 0 }
				depth--
			}
		}
		close(f)
	}
	function kunit(l,    i) {
		for (i = 1; i <= nr; i++)
			if (l + 0 >= rs[i] && l + 0 <= re[i])
				return 1
		return 0
	}
	/^SF:/ { load(substr($0, 4)); lf = lh = bf = bh = fnf = fnh = 0; split("", gone); print; next }
	/^FN:/ { split(substr($0, 4), a, ","); if (kunit(a[1])) { gone[a[2]] = 1; xf++; next }
		 fnf++; print; next }
	/^FNDA:/ { split(substr($0, 6), a, ","); if (a[2] in gone) next
		   if (a[1] > 0) fnh++; print; next }
	/^DA:/ { split(substr($0, 4), a, ","); if (kunit(a[1])) { xl++; next }
		 lf++; if (a[2] > 0) lh++; print; next }
	/^BRDA:/ { split(substr($0, 6), a, ","); if (kunit(a[1])) { xb++; next }
		   bf++; if (a[4] != "-" && a[4] > 0) bh++; print; next }
	/^(FNF|FNH|LF|LH|BRF|BRH):/ { next }
	/^end_of_record/ {
		printf "FNF:%d\nFNH:%d\nLF:%d\nLH:%d\nBRF:%d\nBRH:%d\n", fnf, fnh, lf, lh, bf, bh
		print; next
	}
	{ print }
	END { printf "%d lines, %d branches and %d functions\n", xl, xb, xf > left }
' "$out/coverage-all.info" > "$out/coverage.info"

title="tunlab $(basename "$(realpath "$run")")"
lcov_quiet genhtml --branch-coverage --legend --title "$title" --prefix "$gcov/src" \
	-o "$out/html" "$out/coverage.info"

# summary.txt: per file, then the call sites and hooks, from the tracefile
# (@1, coverage.info by default; "tunguard" as @2: only tunguard's total)
summarize() {
	awk -v src="$gcov/src/" -v only="${2:-}" '
	function pct(h, f) { return f ? sprintf("%5.1f%%", 100 * h / f) : "    -" }
	/^SF:/ { f = substr($0, 4); sub("^" src, "", f); files[++nf] = f }
	/^DA:/ { split(substr($0, 4), a, ","); lf[f]++; if (a[2] > 0) lh[f]++ }
	/^BRDA:/ { split(substr($0, 6), a, ","); bf[f]++; if (a[4] != "-" && a[4] > 0) bh[f]++ }
	END {
		if (!only)
			printf "%-34s %-15s %7s %-17s %7s\n", "file", "lines hit/all", "", " branches hit/all", ""
		for (i = 1; i <= nf; i++) {
			f = files[i]
			if (!only)
				printf "%-34s %7d/%-7d %7s %8d/%-8d %7s\n", f, lh[f], lf[f], pct(lh[f], lf[f]),
					bh[f], bf[f], pct(bh[f], bf[f])
			if (index(f, "security/tunguard/") == 1) {
				tl += lf[f]; th += lh[f]; tbf += bf[f]; tbh += bh[f]
			}
		}
		if (tl)
			printf "%-34s %7d/%-7d %7s %8d/%-8d %7s\n",
				only ? "  with KUnit'"'"'s cases" : "security/tunguard (all files)",
				th, tl, pct(th, tl), tbh, tbf, pct(tbh, tbf)
	}' "${1:-$out/coverage.info}"
}

# Branches of line @2 of file @1 (relative to gcov/src): "hit/all
# [taken counts]", "no branch" or "not instrumented"; and its count.
line_detail() {
	awk -v want="$gcov/src/$1" -v line="$2" '
	/^SF:/ { in_f = substr($0, 4) == want }
	in_f && /^DA:/ { split(substr($0, 4), a, ","); if (a[1] == line) runs = a[2] }
	in_f && /^BRDA:/ {
		split(substr($0, 6), a, ",")
		if (a[1] == line) { n++; t = t (t ? " " : "") a[4]; if (a[4] != "-" && a[4] > 0) h++ }
	}
	END {
		if (runs == "") { print "-\tnot instrumented"; exit }
		if (!n) { print runs "\tno branch"; exit }
		printf "%s\t%d/%d taken [%s]\n", runs, h, n, t
	}' "$out/coverage.info"
}

# The lines of tun.c that decide whether a TUN request reaches the LSMs
# and what their answer does: each hook call's statement, the guard
# before it and the check after it; tun_not_capable(); and every
# capability check in tun_set_iff(). One "LABEL<TAB>LINE" per line.
tun_sites() {
	awk '
	# the statements of its body: not the signature, braces or blank lines
	/^static .*tun_not_capable\(/ { nc = 1; next }
	nc && /^}/ { nc = 0; next }
	nc && !/^[ \t{]*$/ { print "tun_not_capable()\t" NR; next }
	nc { next }
	/^static int tun_set_iff\(/ { iff = 1 }
	iff && /^}/ { iff = 0 }
	iff && /capable\(/ { print "tun_set_iff() permission check\t" NR }
	/security_tun_dev_(create|open|attach|attach_queue)\(/ {
		match($0, /security_tun_dev_[a-z_]+/)
		hook = substr($0, RSTART, RLENGTH) "()"
		if (prev ~ /^[ \t]*if \(.*\)[ \t]*$/) print hook " guard\t" NR - 1
		print hook " call\t" NR
		stmt = $0 !~ /;[ \t]*$/; after = 4; site = hook; prevsite = 1
		prev = $0
		next
	}
	stmt { print site " call\t" NR; stmt = $0 !~ /;[ \t]*$/; prev = $0; next }
	prevsite && after > 0 {
		after--
		if ($0 ~ /^[ \t]*if \(/) { print site " check\t" NR; prevsite = 0 }
	}
	{ prev = $0 }' "$gcov/src/drivers/net/tun.c"
}

# tunguard's hook functions: lines and branches from each one's start to
# the next function's
tunguard_hooks() {
	awk -v want="$gcov/src/security/tunguard/lsm.c" '
	function pct(h, f) { return f ? sprintf("%5.1f%%", 100 * h / f) : "    -" }
	/^SF:/ { in_f = substr($0, 4) == want; next }
	in_f && /^FN:/ { split(substr($0, 4), a, ","); fl[a[2]] = a[1]; starts[++nfn] = a[1] }
	in_f && /^DA:/ { split(substr($0, 4), a, ","); da[a[1]] = a[2] }
	in_f && /^BRDA:/ { split(substr($0, 6), a, ","); nb[a[1]]++; if (a[4] != "-" && a[4] > 0) hb[a[1]]++ }
	END {
		for (fn in fl) {
			if (fn !~ /^tunguard_tun_dev_/) continue
			s = fl[fn]; e = 1e9
			for (i = 1; i <= nfn; i++) if (starts[i] > s && starts[i] < e) e = starts[i]
			L = H = B = BH = 0
			for (l in da) if (l + 0 >= s && l + 0 < e) { L++; if (da[l] > 0) H++ }
			for (l in nb) if (l + 0 >= s && l + 0 < e) { B += nb[l]; BH += hb[l] }
			printf "%-34s %7d/%-7d %7s %8d/%-8d %7s\n", fn "()", H, L, pct(H, L), BH, B, pct(BH, B)
		}
	}' "$out/coverage.info" | sort
}

{
	echo "Kernel coverage of run $(basename "$(realpath "$run")"): ${#sets[@]} L1 boot(s) of counters"
	echo "(gcc's branches at -O2: a source condition may be several, or none)"
	echo
	summarize
	summarize "$out/coverage-all.info" tunguard
	echo "KUnit's cases (#ifdef ...KUNIT... blocks) left out above: $(cat "$work/left-out")"
	echo
	echo "tunguard's TUN hooks (security/tunguard/lsm.c)"
	tunguard_hooks
	echo
	echo "TUN hook call sites and permission checks in drivers/net/tun.c"
	printf '%-42s %6s %10s  %s\n' "site" "line" "runs" "branches (times each was taken; - never reached)"
	if [ -f "$gcov/src/drivers/net/tun.c" ]; then
		while IFS=$'\t' read -r label line; do
			IFS=$'\t' read -r runs branches <<< "$(line_detail drivers/net/tun.c "$line")"
			printf '%-42s %6s %10s  %s\n' "$label" "$line" "$runs" "$branches"
		done < <(tun_sites)
	else
		echo "(drivers/net/tun.c is not profiled)"
	fi
} > "$out/summary.txt"

cat "$out/summary.txt"
say "report: $out/html/index.html, $out/coverage.info, $out/summary.txt ($out/coverage-all.info with KUnit's cases)"
