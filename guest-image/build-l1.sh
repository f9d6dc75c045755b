#!/bin/bash
# The L1 initramfs: busybox, iproute2's ip, qemu-system-x86_64 with its
# library closure and the firmware it loads, the kernel and initramfs the
# nested guests boot (L1's own kernel is QEMU's -kernel, not in here), the
# harness's L1 programs, the SELinux policy, and the init.
# usage: guest-image/build-l1.sh OUT.cpio STAGING_DIR L2_BZIMAGE L2_CPIO HARNESS_BIN_DIR
# env:   TUNLAB_SELINUX_POLICY (default build/selinux/policy.33),
#        TUNLAB_KSELFTEST (default build/kselftest)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/l1-shell.sh"
. "$here/l1-kselftest.sh"

out=${1:?usage: build-l1.sh OUT STAGING L2_BZIMAGE L2_CPIO BINDIR}
staging=${2:?}; bzimage=${3:?}; l2=${4:?}; bindir=${5:?}
QEMU_BIN=${QEMU_BIN:-/usr/bin/qemu-system-x86_64}
QEMU_FIRMWARE="qboot.rom linuxboot_dma.bin kvmvapic.bin"

new_root "$staging"
NO_BUSYBOX_IP=1 install_busybox
copy_program /usr/sbin/ip /sbin/ip
copy_program "$QEMU_BIN" /usr/bin/qemu-system-x86_64
for fw in $QEMU_FIRMWARE; do
	copy_file "/usr/share/qemu/$fw" "/usr/share/qemu/$fw"
done
copy_file "$bzimage" /lab/bzImage
copy_file "$l2" /lab/l2.cpio
install -m 0755 "$bindir/l1/tunlab-exec" "$root/usr/bin/tunlab-exec"
# KTAP programs the executor runs before the scenarios
mkdir -p "$root/usr/lib/tunlab/ktap"
for prog in "$bindir"/l1/ktap/*; do
	[ -e "$prog" ] && install -m 0755 "$prog" "$root/usr/lib/tunlab/ktap/"
done
# the SELinux policy init loads when the lane's lsm= starts SELinux
copy_file "${TUNLAB_SELINUX_POLICY:-$here/../build/selinux/policy.33}" /etc/selinux/tunlab/policy.33
# the kernel's own selftests, run by the scenarios in host-scenarios/kselftest
install_kselftests "${TUNLAB_KSELFTEST:-$here/../build/kselftest}"
# the check that cutting them short leaves nothing behind
# (host-scenarios/kselftest/tunguard-cut-short.scn)
install -D -m 0755 "$here/l1/kselftest-cut-short" "$root/usr/lib/tunlab/checks/kselftest-cut-short"
# xen_shinfo_test with its runstate race retried (host-scenarios/kselftest/kvm.scn)
install -D -m 0755 "$here/l1/kselftest-xen-shinfo" "$root/usr/lib/tunlab/checks/kselftest-xen-shinfo"
# the profile and policies of the interactive shell (make shell)
install_shell_tools
install -m 0755 "$here/l1/init" "$root/init"
pack_cpio "$out"
