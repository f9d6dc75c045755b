# Shared by the staging scripts: copy programs with their shared-library
# closure, install busybox, and pack a staged tree into a reproducible cpio.

die() { printf 'image: error: %s\n' "$*" >&2; exit 1; }

need() { [ -e "$1" ] || die "$1 not found (run make deps)"; }

# copy_file SRC DEST_IN_ROOT: content of SRC (symlinks resolved) at DEST
copy_file() {
	need "$1"
	mkdir -p "$root$(dirname "$2")"
	cp -L "$1" "$root$2"
}

# copy_program BIN DEST: the binary and every library ldd names for it,
# each at the path the dynamic loader will look for it
copy_program() {
	local bin=$1 dest=$2 lib
	need "$bin"
	copy_file "$bin" "$dest"
	ldd "$bin" | awk '/=> \// { print $3 } /^\t\// { print $1 }' | while read -r lib; do
		[ -e "$root$lib" ] || copy_file "$lib" "$lib"
	done
}

# install_busybox [APPLET...]: busybox, linked as every applet or as these
install_busybox() {
	local applet
	need /bin/busybox
	copy_file /bin/busybox /bin/busybox
	# busybox's ip has no tuntap: the L1 image ships iproute2's at /sbin/ip
	for applet in ${*:-$(/bin/busybox --list)}; do
		[ "$applet" = busybox ] && continue
		[ "$applet" = ip ] && [ -n "${NO_BUSYBOX_IP:-}" ] && continue
		[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
	done
}

# pack_cpio OUT: sorted newc archive, owner root, mtimes fixed, so the same
# inputs give the same bytes
pack_cpio() {
	local out=$1
	find "$root" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
	(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0 --reproducible) > "$out.tmp"
	mv "$out.tmp" "$out"
}

new_root() {
	root=$1
	rm -rf "$root"
	mkdir -p "$root"/bin "$root"/sbin "$root"/usr/bin "$root"/dev "$root"/proc \
		"$root"/sys "$root"/run "$root"/tmp "$root"/etc
	chmod 1777 "$root/tmp"
}
