#!/bin/bash
# Check the tunguard series the way an upstream maintainer would, on each
# Debian tree it is carried on: every patch applies with `git am` on the
# pristine tree, passes scripts/checkpatch.pl --strict and (with --build)
# builds the lab configuration on its own; the admin guide builds without
# Sphinx warnings; and the files both series share (tunguard's core, its
# selftests, its guide) are the same on every tree, only lsm.c's glue and
# the tree-specific hunks differing.
#
# usage: kernel/check-series.sh [--build] VERSION...   (e.g. 6.1 6.12)
# env:   TUNLAB_CACHE (ccache store as kernel/build.sh), KERNEL_JOBS
# Trees are unpacked under build/kernel-check/VERSION/ (outside git).
# KBUILD_LOCK: a lock file --build takes around each build, for a machine
# whose kernel builds take turns (default none).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=0
[ "${1:-}" != --build ] || { build=1; shift; }
[ $# -gt 0 ] || { echo "usage: kernel/check-series.sh [--build] VERSION..." >&2; exit 2; }
top=$(realpath -m "$here/../build/kernel-check")
cache=${TUNLAB_CACHE:-/var/cache/tunlab}
jobs=${KERNEL_JOBS:-$(nproc)}
failed=0

say() { printf 'check-series: %s\n' "$*"; }
fail() { printf 'check-series: FAIL: %s\n' "$*"; failed=$((failed + 1)); }

locked() {
	if [ -n "${KBUILD_LOCK:-}" ]; then
		flock "$KBUILD_LOCK" "$@"
	else
		"$@"
	fi
}

# A pristine tree per version, kept between runs like kernel/build.sh's.
pristine_tree() {
	local v=$1 src=$top/$1/linux tar=/usr/src/linux-source-$1.tar.xz
	[ -r "$tar" ] || { echo "check-series: $tar missing (make deps installs linux-source-$v)" >&2; exit 1; }
	if [ ! -d "$src/.git" ]; then
		say "$v: unpacking $tar"
		mkdir -p "$src"
		tar -xJf "$tar" -C "$src" --strip-components=1
		git -C "$src" init -q
		git -C "$src" config user.name tunlab
		git -C "$src" config user.email tunlab@invalid
		git -C "$src" add -A -f
		git -C "$src" commit -q -m "Debian linux-source-$v"
		git -C "$src" tag pristine
	fi
	git -C "$src" am --abort >/dev/null 2>&1 || true
	git -C "$src" reset -q --hard pristine
	git -C "$src" clean -qfdx
}

build_lab_config() {
	local v=$1 src=$top/$1/linux obj=$top/$1/obj
	mkdir -p "$obj"
	local frags=("$here"/config/*.config)
	[ -d "$here/config/$v" ] && frags+=("$here/config/$v"/*.config)
	cat "${frags[@]}" > "$obj.requested"
	locked env CCACHE_DIR="$cache/ccache" CCACHE_BASEDIR="$top" \
		CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime \
		sh -c "make -s -C '$src' O='$obj' CC='ccache gcc' KCONFIG_ALLCONFIG='$obj.requested' allnoconfig >/dev/null &&
		       make -s -C '$src' O='$obj' CC='ccache gcc' -j$jobs vmlinux" > "$obj.log" 2>&1
}

# checkpatch asks "does MAINTAINERS need updating?" of every patch that adds
# a file without touching MAINTAINERS. When each file a patch adds lies
# under a folder tunguard's entry already lists (security/tunguard/'s
# .kunitconfig), the answer is no and the question is not a finding.
# Patches that delete or rename files are always asked.
maintained_adds() {
	local p=$1 src=$2 f d ok
	grep -qE '^(deleted file mode|rename (from|to) )' "$p" && return 1
	for f in $(awk '/^diff --git /{ f = $4; sub(/^b\//, "", f) } /^new file mode/{ print f }' "$p"); do
		ok=0
		for d in $(awk '/^TUNGUARD SECURITY MODULE$/{ e = 1; next } e && /^$/{ exit }
				e && /^F:/{ print $2 }' "$src/MAINTAINERS"); do
			case $d in */) case $f in "$d"*) ok=1 ;; esac ;; esac
		done
		[ $ok = 1 ] || return 1
	done
}

for v in "$@"; do
	src=$top/$v/linux
	pristine_tree "$v"
	shopt -s nullglob
	patches=("$here/patches/$v"/*.patch)
	shopt -u nullglob
	[ ${#patches[@]} -gt 0 ] || { fail "$v: no patches in kernel/patches/$v"; continue; }
	for p in "${patches[@]}"; do
		name=$(basename "$p")
		if ! git -C "$src" am -q "$p" > "$top/$v/am.log" 2>&1; then
			fail "$v: $name does not apply with git am ($top/$v/am.log)"
			git -C "$src" am --abort >/dev/null 2>&1 || true
			break
		fi
		ignore=()
		! maintained_adds "$p" "$src" || ignore=(--ignore FILE_PATH_CHANGES)
		if ! out=$("$src/scripts/checkpatch.pl" --strict -q "${ignore[@]}" "$p" 2>&1); then
			fail "$v: $name: checkpatch --strict:"
			echo "$out" | sed 's/^/    /'
		fi
		if [ $build = 1 ]; then
			t0=$(date +%s)
			if build_lab_config "$v"; then
				say "$v: $name builds ($(( $(date +%s) - t0 )) s)"
			else
				fail "$v: $name does not build (log: $top/$v/obj.log)"
				tail -5 "$top/$v/obj.log" | sed 's/^/    /'
			fi
		else
			say "$v: $name applies, checkpatch clean"
		fi
	done
	# the admin guide, with the tree's own Sphinx setup
	if make -s -C "$src" O="$top/$v/doc" SPHINXDIRS=admin-guide/LSM htmldocs > "$top/$v/doc.log" 2>&1; then
		if grep -i "tunguard.*\(warning\|error\)" "$top/$v/doc.log"; then
			fail "$v: Documentation/admin-guide/LSM/tunguard.rst has Sphinx warnings ($top/$v/doc.log)"
		else
			say "$v: tunguard.rst builds without warnings"
		fi
	else
		fail "$v: make htmldocs failed ($top/$v/doc.log)"
	fi
done

# What both trees must share byte for byte.
if [ $# -gt 1 ]; then
	a=$top/$1/linux
	shift
	for v in "$@"; do
		b=$top/$v/linux
		if diff -r -x lsm.c "$a/security/tunguard" "$b/security/tunguard" >/dev/null &&
			diff -r "$a/tools/testing/selftests/tunguard" "$b/tools/testing/selftests/tunguard" >/dev/null &&
			cmp -s "$a/Documentation/admin-guide/LSM/tunguard.rst" "$b/Documentation/admin-guide/LSM/tunguard.rst"; then
			say "tunguard core, selftests and guide are identical on $(basename "$(dirname "$a")") and $v"
		else
			fail "the shared tunguard files differ between $(basename "$(dirname "$a")") and $v"
		fi
	done
fi

[ $failed = 0 ] && say "all checks passed" || say "$failed check(s) failed"
[ $failed = 0 ]
