#!/bin/bash
# The L1 libvirt layer: a second initramfs the runner appends to L1's only
# for the boots that start guests through libvirt (and for make shell and
# tunlab run). It adds 46 MiB, which would cost every L1 boot over a second
# under TCG; the files the base image already has are left out of it.
#
# L1 runs libvirt as `qemu:///embed?root=DIR`: the launcher process loads
# the very driver module libvirtd would load (libvirt_driver_qemu.so) and
# serves every API call in-process, so no daemon outlives a step and the
# TUNSETIFF libvirt issues for a guest comes from the launcher, where
# tunguard sees it. What that needs, and nothing of libvirt-daemon (whose
# closure adds parted, device-mapper, pcap, ...):
#   - libvirt.so.0 and the QEMU driver module with their library closure
#     (libxml2 brings ICU: most of the size);
#   - the x86 CPU map, read when libvirt probes QEMU's capabilities;
#   - QEMU's TCG accelerator module: the probe starts QEMU with TCG as the
#     fallback accelerator, and Debian builds TCG as a loadable module;
#   - the user the driver is built to run QEMU as (Debian: libvirt-qemu),
#     looked up by name when the driver initialises;
#   - the driver's configuration (l1/libvirt-qemu.conf), which the
#     launcher copies into each embed root;
#   - the launcher itself, when the harness built it.
# usage: guest-image/build-l1-libvirt.sh OUT.cpio STAGING_DIR BASE_STAGING_DIR [LAUNCHER]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

out=${1:?usage: build-l1-libvirt.sh OUT STAGING BASE_STAGING [LAUNCHER]}
staging=${2:?}; base=${3:?}; launcher=${4:-}
LIBVIRT_DRIVER=/usr/lib/x86_64-linux-gnu/libvirt/connection-driver/libvirt_driver_qemu.so
LIBVIRT_CPU_MAP=/usr/share/libvirt/cpu_map
LIBVIRT_QEMU_TCG=/usr/lib/x86_64-linux-gnu/qemu/accel-tcg-x86_64.so

[ -d "$base/usr/bin" ] || die "$base is not the L1 staging tree (build the L1 image first)"

# add_user NAME ID HOME: a passwd line and its group, for lookups by name,
# after the base image's own lines (the layer's files replace the base's)
add_user() {
	local f
	for f in passwd group; do
		[ -e "$root/etc/$f" ] || [ ! -e "$base/etc/$f" ] || cp "$base/etc/$f" "$root/etc/$f"
	done
	printf '%s:x:%s:%s::%s:/bin/sh\n' "$1" "$2" "$2" "$3" >> "$root/etc/passwd"
	printf '%s:x:%s:\n' "$1" "$2" >> "$root/etc/group"
}

# drop_base_files: what the base image holds already, byte for byte
drop_base_files() {
	local f
	(cd "$root" && find . -type f) | while read -r f; do
		if [ -f "$base/$f" ] && cmp -s "$root/$f" "$base/$f"; then
			rm -f "$root/$f"
		fi
	done
	find "$root" -mindepth 1 -depth -type d -empty -delete
}

new_root "$staging"
copy_program "$LIBVIRT_DRIVER" "$LIBVIRT_DRIVER"
copy_program "$LIBVIRT_QEMU_TCG" "$LIBVIRT_QEMU_TCG"
for f in "$LIBVIRT_CPU_MAP"/index.xml "$LIBVIRT_CPU_MAP"/x86_*.xml; do
	copy_file "$f" "$f"
done
install -D -m 0644 "$here/l1/libvirt-qemu.conf" "$root/etc/tunlab/libvirt-qemu.conf"
add_user root 0 /root
add_user libvirt-qemu 64055 /nonexistent
[ -z "$launcher" ] || copy_program "$launcher" /usr/bin/tunlab-virt
drop_base_files
pack_cpio "$out"
