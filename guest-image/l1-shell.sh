# Sourced by build-l1.sh: what L1's interactive shell offers (make shell):
# a profile that names the lab's tools, and tunguard policies to load.

install_shell_tools() {
	local p
	install -D -m 0644 "$here/l1/shell/profile" "$root/etc/profile"
	for p in "$here"/l1/shell/policies/*.policy; do
		install -D -m 0644 "$p" "$root/etc/tunguard/$(basename "$p")"
	done
}
