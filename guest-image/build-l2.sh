#!/bin/bash
# The L2 initramfs: busybox and the agent init.
# usage: guest-image/build-l2.sh OUT.cpio STAGING_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

out=${1:?usage: build-l2.sh OUT STAGING}
new_root "${2:?usage: build-l2.sh OUT STAGING}"
# only the applets the agent runs: the kernel unpacks each link of the
# archive at every L2 boot, about 400 of them for every applet
install_busybox sh mount ip sleep ping grep reboot
install -m 0755 "$here/l2/init" "$root/init"
pack_cpio "$out"
