#!/bin/bash
# make bench's naive stack: the lab's own L1 and L2 trees booted the way a
# user who takes Debian's defaults would boot them. Debian's stock kernel
# (kernel/stock.sh) for L1 and L2, initramfs images made by initramfs-tools'
# mkinitramfs with its defaults (udev, busybox; MODULES=most for L1, the
# listed modules for L2) and gzip, and SeaBIOS instead of qboot (the
# runner and L1's QEMU pick it). The tree each
# image mounts as root (guest-image/naive/scripts/tunlab) is the same one
# the lean image carries, so both stacks run the same scenarios.
#
# usage: guest-image/build-naive.sh OUT_DIR STOCK_DIR HARNESS_BIN_DIR
#   OUT_DIR/l1.img, OUT_DIR/l2.img (gzip initramfs), OUT_DIR/vmlinuz
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

out=$(realpath -m "${1:?usage: build-naive.sh OUT_DIR STOCK_DIR BINDIR}")
stock=$(realpath "${2:?}")
bindir=${3:?}
release=$(cat "$stock/version")
say() { printf 'naive: %s\n' "$*"; }
die() { printf 'naive: error: %s\n' "$*" >&2; exit 1; }
command -v mkinitramfs >/dev/null || die "mkinitramfs not found (make deps installs initramfs-tools)"
[ "$(id -u)" = 0 ] || die "mkinitramfs runs in a private mount namespace: run as root"

# mkinitramfs reads modules only from /lib/modules/RELEASE and the kernel's
# configuration from /boot. The stock kernel is unpacked under build/, not
# installed, so mkinitramfs runs in a private mount namespace where an
# overlay over /usr/lib (what /lib points to) shows its modules at that path
# and /boot is the package's; nothing outside the namespace changes.
# usage: mkinitramfs_with_payload OUT PAYLOAD_DIR CONFDIR
mkinitramfs_with_payload() {
	local img=$1 ovl=$out/overlay
	rm -rf "$ovl"
	mkdir -p "$ovl/upper" "$ovl/work"
	TUNLAB_PAYLOAD=$2 unshare -m sh -ec '
		mount --make-rprivate /
		mount -t overlay overlay -o "lowerdir=/usr/lib,upperdir=$1/upper,workdir=$1/work" /usr/lib
		mkdir -p "/usr/lib/modules/$2"
		mount --bind "$3/root/lib/modules/$2" "/usr/lib/modules/$2"
		mount --bind "$3/root/boot" /boot
		mkinitramfs -d "$4" -o "$5" "$2"' sh "$ovl" "$release" "$stock" "$3" "$img" \
		> "$img.log" 2>&1 || { tail -20 "$img.log" >&2; die "mkinitramfs $img failed (log: $img.log)"; }
	rm -rf "$ovl"
}

mkdir -p "$out"
ln -sfn "$stock/vmlinuz" "$out/vmlinuz"

# L2 takes only the listed modules (MODULES=list): Debian's default image
# (MODULES=most) unpacks to more than the 192 MiB the lab gives an L2
say "L2 initramfs (mkinitramfs, gzip)"
"$here/build-l2.sh" "$out/l2.cpio" "$out/l2.root"
rm -rf "$out/conf-l2"
cp -r "$here/naive" "$out/conf-l2"
sed -i 's/^MODULES=most$/MODULES=list/' "$out/conf-l2/initramfs.conf"
mkinitramfs_with_payload "$out/l2.img" "$out/l2.root" "$out/conf-l2"

say "L1 initramfs (mkinitramfs, gzip)"
"$here/build-l1.sh" "$out/l1.cpio" "$out/l1.root" "$stock/vmlinuz" "$out/l2.img" "$bindir"
# L1's QEMU boots L2 with SeaBIOS, QEMU's default firmware
. "$here/lib.sh"
root=$out/l1.root
copy_file /usr/share/seabios/bios-256k.bin /usr/share/seabios/bios-256k.bin
mkinitramfs_with_payload "$out/l1.img" "$out/l1.root" "$here/naive"
rm -rf "$out/l1.cpio" "$out/l2.cpio" "$out/conf-l2"
say "L1 $(( $(stat -c %s "$out/l1.img") / 1048576 )) MiB, L2 $(( $(stat -c %s "$out/l2.img") / 1048576 )) MiB"
