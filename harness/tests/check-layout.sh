#!/bin/bash
# Includes go one way: every #include "..." of a C file under ROOT must
# stay in the file's own folder or reach a folder its README allows.
# A folder is the nearest one above the file (below ROOT) that has a
# README.md; its "May include:" line names the other folders in
# backquotes (`*` allows anything). Prints one line per wrong include.
# usage: check-layout.sh [ROOT]   (default: harness)
set -uo pipefail
root=${1:-harness}
root=${root%/}
bad=0

# the folder (relative to ROOT, no trailing slash) a path belongs to
folder_of() {
	local d
	d=$(dirname "$1")
	while [ "$d" != "$root" ] && [ "$d" != . ] && [ "$d" != / ]; do
		[ -f "$d/README.md" ] && { echo "${d#"$root"/}"; return; }
		d=$(dirname "$d")
	done
}

# the folders @1 may include besides itself, one per line
allowed() {
	grep -m1 '^May include:' "$root/$1/README.md" | grep -o '`[^`]*`' | tr -d '`' | sed 's|/$||'
}

while IFS= read -r file; do
	from=$(folder_of "$file")
	if [ -z "$from" ]; then
		echo "$file: in no folder with a README.md saying what it may include"
		bad=1
		continue
	fi
	if ! grep -q '^May include:' "$root/$from/README.md"; then
		echo "$root/$from/README.md: no 'May include:' line"
		bad=1
		continue
	fi
	ok=$(allowed "$from")
	while IFS=: read -r line name; do
		if [ -e "$(dirname "$file")/$name" ]; then
			target=$(dirname "$file")/$name
		elif [ -e "$root/$name" ]; then
			target=$root/$name
		else
			echo "$file:$line: #include \"$name\": no such file beside it or in $root/"
			bad=1
			continue
		fi
		to=$(folder_of "$target")
		[ "$to" = "$from" ] && continue
		grep -qxF -e "$to" -e '*' <<<"$ok" && continue
		echo "$file:$line: #include \"$name\" reaches $to/, but $from/ may include only:" \
			"$(tr '\n' ' ' <<<"${ok:-nothing}")($root/$from/README.md)"
		bad=1
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
		 sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done < <(find "$root" -name '*.[ch]' | sort)
exit $bad
