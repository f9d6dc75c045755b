#!/bin/bash
# Build the kernel's own selftests that L1 runs, from the lab kernel's tree
# (build/kernel/linux: Debian's 6.1 with kernel/patches/6.1 applied;
# KERNEL_VERSION=6.12 with KERNEL_BUILD_DIR=build/kernel-6.12: 6.12's), with the
# tree's own Makefiles, linked statically: L1 has no libc of its own for
# them. The results are cached beside the kernel under a key made of the
# source package, the series' changes to tools/ and the uapi headers, this
# script and the compiler, so a warm cache needs no tree at all.
#
# usage: kernel/selftests.sh OUT_DIR
#   OUT_DIR/net/tun, OUT_DIR/kvm/<test>, OUT_DIR/tunguard/tunguard_test
#   (the names the tree gives them)
# env:   KERNEL_VERSION, KERNEL_BUILD_DIR, KERNEL_PATCH_DIR, TUNLAB_CACHE,
#        KERNEL_CCACHE (as kernel/build.sh)
set -euo pipefail

out=${1:?usage: kernel/selftests.sh OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
kver=${KERNEL_VERSION:-6.1}
build_dir=$(realpath -m "${KERNEL_BUILD_DIR:-$here/../build/kernel}")
src=$build_dir/linux
cache=${TUNLAB_CACHE:-/var/cache/tunlab}
out=$(realpath -m "$out")

# tools/testing/selftests/net: the TUN driver's own test (5 cases)
NET_TESTS="tun"
# tools/testing/selftests/tunguard: the series' own tests of the module
TUNGUARD_TESTS="tunguard_test"
# tools/testing/selftests/kvm: what the lab's nested guests lean on
# (host-scenarios/kselftest/kvm.scn says why each is run); one the tree
# does not have is left out (mmio_warning_test is gone by 6.12)
KVM_TESTS="x86_64/userspace_io_test x86_64/xen_shinfo_test x86_64/xapic_ipi_test
x86_64/svm_int_ctl_test x86_64/smm_test x86_64/set_sregs_test
x86_64/mmio_warning_test x86_64/vmx_exception_with_invalid_guest_state"

say() { printf 'kselftest: %s\n' "$*"; }
die() { printf 'kselftest: error: %s\n' "$*" >&2; exit 1; }

# The programs are built from tools/ and the exported (uapi) headers only:
# the key takes the source package and the parts of the series under those
# folders, not the kernel's key, so an edit to tunguard's code or to a
# configuration fragment does not rebuild them (41 s of an edit loop), and
# the lab and debug kernels of one version share them.
src_version=$(dpkg-query -W -f='${Version}' "linux-source-$kver" 2>/dev/null || echo unknown)
shopt -s nullglob
patches=("${KERNEL_PATCH_DIR:-$here/patches/$kver}"/*.patch)
shopt -u nullglob
[ ${#patches[@]} -gt 0 ] || die "no patches in ${KERNEL_PATCH_DIR:-$here/patches/$kver}"
series_hunks() { # the diffs of the series that touch what the programs are built from
	awk '/^diff --git /{ keep = ($3 ~ /^a\/(tools|usr|include\/uapi|arch\/[^\/]+\/include\/uapi)\//) }
		keep' "${patches[@]}"
}
key=$( {
	echo "source $kver $src_version"
	series_hunks
	cat "$0"
	gcc --version | head -1
} | sha256sum | cut -c1-16)
cached=$cache/kselftest/$key

install_result() {
	rm -rf "$out"
	mkdir -p "$(dirname "$out")"
	cp -a "$cached" "$out"
}

if [ -d "$cached" ]; then
	say "up to date (cache $key)"
	install_result
	exit 0
fi

# The tree kernel/build.sh leaves: Debian's $kver, the series applied (it
# carries tools/testing/selftests/tunguard). When
# it is gone (make clean, or a clone that found the kernel cached), let
# kernel/build.sh make it again into a scratch cache; ccache answers the
# compiles.
tree_ready() {
	[ -d "$src/.git" ] && [ "$(cat "$src/.tunlab-source" 2>/dev/null)" = "$src_version" ] &&
		[ "$(git -C "$src" rev-parse HEAD)" != "$(git -C "$src" rev-parse pristine)" ] &&
		[ "$(git -C "$src" log --format=%s pristine..HEAD | wc -l)" = ${#patches[@]} ]
}
if ! tree_ready; then
	say "the kernel tree is not in $src: preparing it with kernel/build.sh"
	scratch=$(mktemp -d)
	trap 'rm -rf "$scratch"' EXIT
	TUNLAB_CACHE=$scratch KERNEL_CCACHE=${KERNEL_CCACHE:-$cache/ccache} KERNEL_VERSION=$kver \
		KERNEL_BUILD_DIR=$build_dir "$here/build.sh" "$scratch/bzImage" >/dev/null
	tree_ready || die "kernel/build.sh left no patched tree in $src"
fi

t0=$(date +%s)
work=$cached.tmp
rm -rf "$work"
mkdir -p "$work"
log=$build_dir/selftests.log
: > "$log"
# the tree's UAPI headers, exported outside it (make O=: the tree stays
# as kernel/build.sh left it)
make -s -C "$src" O="$work/hdr" headers >> "$log" 2>&1 || die "make headers failed (log: $log)"
hdrs="-isystem $work/hdr/usr/include"
net_bins=$(for t in $NET_TESTS; do echo "$work/net/$t"; done)
mkdir -p "$work/net"
# shellcheck disable=SC2086
make -C "$src/tools/testing/selftests/net" OUTPUT="$work/net" KHDR_INCLUDES="$hdrs" \
	LDFLAGS=-static $net_bins >> "$log" 2>&1 || { tail -20 "$log" >&2; die "net selftests failed (log: $log)"; }
tg_bins=$(for t in $TUNGUARD_TESTS; do echo "$work/tunguard/$t"; done)
mkdir -p "$work/tunguard"
# shellcheck disable=SC2086
make -C "$src/tools/testing/selftests/tunguard" OUTPUT="$work/tunguard" KHDR_INCLUDES="$hdrs" \
	LDFLAGS=-static $tg_bins >> "$log" 2>&1 || { tail -20 "$log" >&2; die "tunguard selftests failed (log: $log)"; }
for t in $KVM_TESTS; do
	[ -f "$src/tools/testing/selftests/kvm/$t.c" ] || say "$t: not in linux-source-$kver, left out"
done
kvm_bins=$(for t in $KVM_TESTS; do
	[ ! -f "$src/tools/testing/selftests/kvm/$t.c" ] || echo "$work/kvm/$t"
done)
# shellcheck disable=SC2086
make -C "$src/tools/testing/selftests/kvm" -j"$(nproc)" OUTPUT="$work/kvm" KHDR_INCLUDES="$hdrs" \
	LINUX_HDR_PATH="$work/hdr/usr/include/" LDFLAGS="-static -pthread -no-pie" $kvm_bins >> "$log" 2>&1 ||
	{ tail -20 "$log" >&2; die "KVM selftests failed (log: $log)"; }

# the programs only, stripped: each is static, 1.5 MiB with its symbols,
# and every L1 boot loads them
mkdir -p "$work.bin"
for b in $net_bins $tg_bins $kvm_bins; do
	rel=${b#"$work"/}
	install -D -m 0755 -s "$b" "$work.bin/$rel"
done
rm -rf "$work"
mv "$work.bin" "$cached"
say "built $(echo $net_bins $tg_bins $kvm_bins | wc -w) programs in $(( $(date +%s) - t0 )) s (cache $key)"
install_result
