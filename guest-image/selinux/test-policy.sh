#!/bin/bash
# The policy build's own test: the sources compile, and a source broken in
# each of the ways people break CIL stops the build with the file and line
# of the break. Runs on copies in a temporary folder.
# usage: guest-image/selinux/test-policy.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n $1"; printf '# %s\n' "$2"; }

# build the copies; $1 names the case, $2 the place the error must name
expect_error() {
	local name=$1 want=$2 out
	if out=$(cd "$tmp" && "$here/build-policy.sh" policy.33 base.cil domains.cil 2>&1); then
		not_ok "$name" "the broken policy compiled"
	elif [ -e "$tmp/policy.33" ]; then
		not_ok "$name" "a policy file was left behind: $out"
	elif [[ "$out" != "$want: error: "* ]]; then
		not_ok "$name" "expected '$want: error: ...', got: $out"
	else
		ok "$name: $out"
	fi
}

fresh() { rm -f "$tmp"/*; cp "$here"/*.cil "$tmp/"; }

# break FILE: a line made by sed expression EXPR, whose number is found
# by the marker text the expression leaves in it
line_of() { grep -n -F -e "$2" "$tmp/$1" | head -n 1 | cut -d: -f1; }

echo "TAP version 13"
fresh
if out=$(cd "$tmp" && "$here/build-policy.sh" policy.33 base.cil domains.cil 2>&1) &&
   [ -s "$tmp/policy.33" ]; then
	ok "the policy compiles ($(stat -c %s "$tmp/policy.33") bytes)"
else
	not_ok "the policy compiles" "$out"
fi

fresh
sed -i 's/(capability (net_admin)))$/(capability (net_admni)))/' "$tmp/domains.cil"
expect_error "a misspelt permission" "domains.cil:$(line_of domains.cil net_admni)"

fresh
sed -i 's/^(type tunlab_user_t)/(typo tunlab_user_t)/' "$tmp/domains.cil"
expect_error "an unknown keyword" "domains.cil:$(line_of domains.cil '(typo ')"

fresh
sed -i 's/^(type tunlab_vmm_t)/(type tunlab_vmm_t extra)/' "$tmp/domains.cil"
expect_error "a malformed declaration" "domains.cil:$(line_of domains.cil 'vmm_t extra')"

fresh
echo '(allow kernel_t self (process (fork))' >> "$tmp/domains.cil"
expect_error "an unclosed parenthesis" "domains.cil:$(wc -l < "$tmp/domains.cil")"

fresh
sed -i 's/^(genfscon proc \/ (system_u object_r proc_t low_low))/(genfscon proc \/ (system_u object_r proc_typo_t low_low))/' \
	"$tmp/base.cil"
expect_error "an undeclared type in a label" "base.cil:$(line_of base.cil proc_typo_t)"

echo "1..$n"
[ "$fails" -eq 0 ]
