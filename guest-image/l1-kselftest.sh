# Sourced by build-l1.sh: the kernel's own selftests (kernel/selftests.sh
# builds them from the lab kernel's tree), at /usr/lib/tunlab/kselftest
# under the names the tree gives them (net/tun, kvm/x86_64/smm_test, ...).

install_kselftests() {
	local dir=$1 f
	[ -d "$dir/net" ] || die "$dir has no selftests (make kselftest builds them)"
	(cd "$dir" && find . -type f) | while read -r f; do
		install -D -m 0755 "$dir/$f" "$root/usr/lib/tunlab/kselftest/${f#./}"
	done
}
