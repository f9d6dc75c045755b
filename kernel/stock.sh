#!/bin/bash
# Debian's stock kernel for make bench's naive stack: the image and modules
# of the package linux-image-amd64 depends on, fetched with apt-get download
# and unpacked under build/ with dpkg-deb -x. Nothing is installed on this
# machine: the stock kernel only ever boots under QEMU.
#
# usage: kernel/stock.sh OUT_DIR
#   OUT_DIR/vmlinuz, OUT_DIR/version, OUT_DIR/root/lib/modules/VERSION
#   (with modules.dep, which the package's postinst would have made)
set -euo pipefail

out=$(realpath -m "${1:?usage: kernel/stock.sh OUT_DIR}")
say() { printf 'stock kernel: %s\n' "$*"; }
die() { printf 'stock kernel: error: %s\n' "$*" >&2; exit 1; }

# the ABI package the metapackage points at, and its candidate version
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1)
[ -n "$pkg" ] || die "apt-cache knows no linux-image-amd64 (run apt-get update)"
version=$(apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p')
want="$pkg=$version"
if [ "$(cat "$out/package" 2>/dev/null)" = "$want" ] && [ -f "$out/vmlinuz" ]; then
	say "up to date ($want)"
	exit 0
fi

say "fetching $want"
rm -rf "$out.tmp"
mkdir -p "$out.tmp/deb"
# root downloads without apt's _apt sandbox user, which cannot write here
(cd "$out.tmp/deb" && apt-get download -q -o APT::Sandbox::User=root "$want" >/dev/null) ||
	die "apt-get download $want failed"
dpkg-deb -x "$out.tmp"/deb/*.deb "$out.tmp/root"
release=${pkg#linux-image-}
[ -f "$out.tmp/root/boot/vmlinuz-$release" ] || die "$pkg has no boot/vmlinuz-$release"
depmod -b "$out.tmp/root" "$release"
ln -s "root/boot/vmlinuz-$release" "$out.tmp/vmlinuz"
echo "$release" > "$out.tmp/version"
echo "$want" > "$out.tmp/package"
rm -rf "$out.tmp/deb" "$out"
mv "$out.tmp" "$out"
say "unpacked $want in $out"
