#!/bin/bash
# Run tunguard's KUnit suites the kernel's way: tools/testing/kunit/kunit.py
# builds a User Mode Linux kernel from the patched tree with the series'
# security/tunguard/.kunitconfig, boots it and parses its KTAP. It is the
# fast loop for the policy code: no lab kernel, no QEMU, no image.
#
# usage: kernel/kunit.sh
# env:   KERNEL_VERSION (6.1, the default, or 6.12), KERNEL_BUILD_DIR (the
#        tree kernel/build.sh prepares: build/kernel, build/kernel-6.12),
#        KUNIT_BUILD_DIR (UML objects: build/kunit, build/kunit-6.12),
#        KERNEL_PATCH_DIR (the series; default kernel/patches/VERSION),
#        KERNEL_JOBS, TUNLAB_CACHE, KERNEL_CCACHE (as kernel/build.sh),
#        KBUILD_LOCK (a lock file taken around the build and run, for a
#        machine whose kernel builds share one; default none, as
#        kernel/build.sh takes none: a caller that runs `flock FILE make
#        kunit` holds it already, and taking it again here would wait on
#        itself), KBUILD_LOCK_WAIT (seconds to wait for it, default 3600)
# exit:  0 every test passed; 1 a test failed, the build failed, or the
#        tree or series is missing or broken
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
kver=${KERNEL_VERSION:-6.1}
suffix=$([ "$kver" = 6.1 ] || echo "-$kver")
build_dir=$(realpath -m "${KERNEL_BUILD_DIR:-$top/build/kernel$suffix}")
src=$build_dir/linux
obj=$(realpath -m "${KUNIT_BUILD_DIR:-$top/build/kunit$suffix}")
jobs=${KERNEL_JOBS:-$(nproc)}
cache=${TUNLAB_CACHE:-/var/cache/tunlab}
ccache_dir=${KERNEL_CCACHE:-$cache/ccache}
lock=${KBUILD_LOCK:-}
lock_wait=${KBUILD_LOCK_WAIT:-3600}

say() { printf 'kunit: %s\n' "$*"; }
die() { printf 'kunit: error: %s\n' "$*" >&2; exit 1; }

command -v python3 >/dev/null || die "python3 not found (kunit.py needs it: apt-get install python3)"
patch_dir=${KERNEL_PATCH_DIR:-$here/patches/$kver}
compgen -G "$patch_dir/*.patch" >/dev/null || die "no series for $kver: no patches in $patch_dir"

# The shared build lock (only when asked for) first, then the tree's
# (kernel/build.sh's order when make runs under the shared lock), so two
# runs cannot deadlock. A bounded wait: a lock this process's caller
# already holds (KBUILD_LOCK set under `flock FILE make kunit`) ends in
# an error, not a hang.
if [ -n "$lock" ]; then
	[[ $lock_wait =~ ^[0-9]+$ ]] || die "KBUILD_LOCK_WAIT=$lock_wait is not a number of seconds"
	exec 8> "$lock" || die "cannot open the build lock $lock"
	if ! flock -n 8; then
		say "waiting up to $lock_wait s for $lock"
		flock -w "$lock_wait" 8 ||
			die "$lock still held after $lock_wait s (by another build, or by this run's caller: under \`flock $lock ...\` leave KBUILD_LOCK unset)"
	fi
fi
mkdir -p "$build_dir"
exec 9> "$build_dir/.lock"
if ! flock -n 9; then
	say "waiting for another build in $build_dir"
	flock 9
fi

# Debian's tree with the series, as the lab kernel is built from; a patch
# that does not apply stops here with its hunk.
KERNEL_VERSION=$kver KERNEL_BUILD_DIR=$build_dir KERNEL_PATCH_DIR=$patch_dir \
	KERNEL_TREE_LOCKED=1 "$here/build.sh" --tree || die "could not prepare the $kver tree with kernel/build.sh --tree"
[ -f "$src/tools/testing/kunit/kunit.py" ] || die "$src has no tools/testing/kunit/kunit.py"
[ -f "$src/security/tunguard/.kunitconfig" ] ||
	die "the $kver series has no security/tunguard/.kunitconfig (its KUnit patch adds it)"

make_opts=()
if [ "$ccache_dir" != off ]; then
	command -v ccache >/dev/null || die "ccache not found (make deps installs it; KERNEL_CCACHE=off builds without)"
	export CCACHE_DIR=$ccache_dir CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	# paths relative to the folder that holds the tree (and, by default,
	# the objects), so another checkout's runs hit too
	CCACHE_BASEDIR=$(dirname "$build_dir")
	export CCACHE_BASEDIR
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	mkdir -p "$CCACHE_DIR"
	make_opts=(--make_options "CC=ccache gcc")
	ccache -z >/dev/null
fi

mkdir -p "$obj"
log=$obj.log
say "$kver: kunit.py run --kunitconfig=security/tunguard (UML, objects in $obj, log $log)"
t0=$(date +%s)
status=0
(cd "$src" && python3 tools/testing/kunit/kunit.py run --kunitconfig=security/tunguard \
	--build_dir="$obj" --jobs="$jobs" "${make_opts[@]}") > "$log" 2>&1 || status=$?
secs=$(( $(date +%s) - t0 ))

# kunit.py's own summary: the suites with their results and the count;
# on a failure, all of what it printed (the failed expectations with it)
summary=$(grep -E "Testing complete|=+ .*(\[PASSED\]|\[FAILED\]|\[SKIPPED\])|^\[[0-9:]+\] =+ [a-z_]+ \(" "$log" || true)
if [ $status -ne 0 ] || ! grep -q "Testing complete" "$log"; then
	cat "$log"
	[ $status -ne 0 ] || status=1
	say "FAIL after $secs s (kunit.py exit status $status; log $log)"
	exit 1
fi
echo "$summary"
ran=$(sed -n 's/.*Testing complete\. Ran \([0-9]*\) tests.*/\1/p' "$log" | tail -1)
[ "${ran:-0}" -gt 0 ] || die "kunit.py ran no test (log $log)"
if [ ${#make_opts[@]} -gt 0 ]; then
	say "ccache: $(ccache -s | grep -E "^ *(Hits|Misses):" | tr -s ' ' | paste -sd ' ')"
fi
say "$kver: $ran tests passed in $secs s"
