#!/bin/bash
# Compile the lab's SELinux policy (CIL) into the binary policy L1 loads.
# A source that does not compile stops the build with `file:line: error:`
# and secilc's own words; secilc names the place for most errors, and for
# the few it does not (an unknown keyword) the place is looked up here.
# usage: guest-image/selinux/build-policy.sh OUT SOURCE.cil...
set -euo pipefail

out=${1:?usage: build-policy.sh OUT SOURCE.cil...}
shift
[ $# -gt 0 ] || { echo "selinux: no policy sources" >&2; exit 2; }
command -v secilc >/dev/null || { echo "selinux: secilc not found (run make deps)" >&2; exit 1; }

# the kernel (6.1) reads policy versions up to 33
if log=$(secilc --policyvers=33 --output="$out.tmp" --filecontext=/dev/null "$@" 2>&1); then
	mv "$out.tmp" "$out"
	exit 0
fi
rm -f "$out.tmp"

# "... at FILE:LINE" or "... at line LINE of FILE"
place=$(printf '%s\n' "$log" | sed -n \
	-e 's/.* at \([^ :]*\.cil\):\([0-9][0-9]*\)$/\1:\2/p' \
	-e 's/.* at line \([0-9][0-9]*\) of \([^ ]*\)$/\2:\1/p' | head -n 1)
# secilc puts an unclosed parenthesis at the end of the file: name the
# line of the statement that never closes
unclosed=$(printf '%s\n' "$log" | sed -n 's/^Open parenthesis without matching close at line [0-9]* of \(.*\)$/\1/p' | head -n 1)
if [ -n "$unclosed" ]; then
	place=$(awk -v f="$unclosed" '
		{ sub(/;.*/, "") }
		{ for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (c == "(" && depth++ == 0) open = NR
			if (c == ")") depth--
		} }
		END { if (open) print f ":" open }' "$unclosed")
fi
if [ -z "$place" ]; then
	keyword=$(printf '%s\n' "$log" | sed -n 's/^Error: Unknown keyword \(.*\)$/\1/p' | head -n 1)
	if [ -n "$keyword" ]; then
		place=$(grep -n -F -e "($keyword " -e "($keyword)" "$@" /dev/null | head -n 1 |
			cut -d: -f1,2)
	fi
fi
# secilc names files as it was given them; keep the first and the last of
# its lines, which say what and where
summary=$(printf '%s\n' "$log" | grep -v '^Failed to \(build AST\|resolve AST\|compile cildb\|verify cil database\)' |
	grep -v '^Post process failed' | paste -sd ';' | sed 's/;/; /g')
echo "${place:-${1}}: error: ${summary:-secilc failed}" >&2
exit 1
