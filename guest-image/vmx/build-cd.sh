#!/bin/bash
# The VMX lane's boot CD, for Bochs (whose BIOS boots CDs but cannot load
# a kernel by itself): isolinux, the lab kernel, and a small initramfs with
# busybox, the executor, kvm-probes and L1's init. Next to it the
# Bochs machine (bochsrc) and the debugger script that starts it running.
# Reproducible: sorted newc initramfs, fixed mtimes, SOURCE_DATE_EPOCH ISO.
# usage: guest-image/vmx/build-cd.sh OUT_DIR STAGING_DIR BZIMAGE HARNESS_BIN_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/lib.sh"

out=${1:?usage: build-cd.sh OUT_DIR STAGING BZIMAGE BINDIR}
staging=${2:?}; bzimage=${3:?}; bindir=${4:?}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0}
ISOLINUX=/usr/lib/ISOLINUX/isolinux.bin
LDLINUX=/usr/lib/syslinux/modules/bios/ldlinux.c32
need /usr/bin/xorriso

new_root "$staging/root"
install_busybox
install -m 0755 "$bindir/l1/tunlab-exec" "$root/usr/bin/tunlab-exec"
mkdir -p "$root/usr/lib/tunlab/ktap" "$root/tunlab"
install -m 0755 "$bindir/l1/ktap/kvm-probes" "$root/usr/lib/tunlab/ktap/kvm-probes"
# this lane runs the KTAP programs only: an empty scenario plan
: > "$root/tunlab/plan"
install -m 0755 "$here/l1/init" "$root/init"
rm -rf "$staging/cd"
mkdir -p "$staging/cd"
pack_cpio "$staging/cd/initrd"

root=$staging/cd
copy_file "$ISOLINUX" /isolinux/isolinux.bin
copy_file "$LDLINUX" /isolinux/ldlinux.c32
copy_file "$here/vmx/isolinux.cfg" /isolinux/isolinux.cfg
copy_file "$bzimage" /bzImage
# a boot of the CD as built runs the probes with kvm_intel's defaults
echo "APPEND console=ttyS0 panic=-1 loglevel=5 tunlab.results=/dev/ttyS1 tunlab.kunit=0" \
	> "$root/cmdline.cfg"
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$out"
xorriso -as mkisofs -quiet -o "$out/boot.iso.tmp" -b isolinux/isolinux.bin \
	-c isolinux/boot.cat -no-emul-boot -boot-load-size 4 -boot-info-table "$root" \
	2> "$staging/xorriso.log" || die "xorriso: $(cat "$staging/xorriso.log")"
mv "$out/boot.iso.tmp" "$out/boot.iso"
install -m 0644 "$here/vmx/bochsrc" "$here/vmx/continue.rc" "$out/"
