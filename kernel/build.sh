#!/bin/bash
# Build the lab kernel: unpack Debian's linux-source-VERSION outside git,
# apply kernel/patches/VERSION/*.patch in order with `git am`, configure
# allnoconfig plus kernel/config/*.config, verify that no requested option
# was dropped, and build bzImage. The result is cached under a key made of
# every input, so an unchanged input set is never rebuilt (and a CI clone on
# the same machine reuses it).
#
# usage: kernel/build.sh OUT_BZIMAGE
#        kernel/build.sh --tree   only unpack and apply the series, leaving
#                                 the patched tree in $KERNEL_BUILD_DIR/linux
#                                 (kernel/kunit.sh builds UML from it)
# env:   KERNEL_VERSION (Debian's source package: 6.1, the default, or 6.12),
#        KERNEL_SRC_TAR, KERNEL_BUILD_DIR, TUNLAB_CACHE, KERNEL_JOBS,
#        KERNEL_CCACHE (default $TUNLAB_CACHE/ccache; "off" compiles without),
#        KERNEL_CONFIGS (fragments; default kernel/config/*.config, then
#        kernel/config/VERSION/*.config),
#        KERNEL_PATCH_DIR (default kernel/patches/VERSION; "none" builds
#        Debian's tree as it is), KERNEL_OBJ_DIR (default
#        $KERNEL_BUILD_DIR/obj: a second configuration shares the tree but
#        not the objects), KERNEL_GCOV_PROFILE (folders and objects of the
#        tree to build with gcov profiling, e.g. "security/tunguard
#        drivers/net/tun.o"; needs CONFIG_GCOV_KERNEL=y in the fragments;
#        their .gcno files and sources are kept in gcov/ beside OUT_BZIMAGE),
#        KERNEL_TREE_LOCKED=1 (the caller holds the tree's lock,
#        $KERNEL_BUILD_DIR/.lock, already)
set -euo pipefail

out=${1:?usage: kernel/build.sh OUT_BZIMAGE | --tree}
tree_only=0
[ "$out" != --tree ] || tree_only=1
here=$(cd "$(dirname "$0")" && pwd)
kver=${KERNEL_VERSION:-6.1}
tar_path=${KERNEL_SRC_TAR:-/usr/src/linux-source-$kver.tar.xz}
# absolute: make -C changes directory
build_dir=$(realpath -m "${KERNEL_BUILD_DIR:-$here/../build/kernel}")
cache=${TUNLAB_CACHE:-/var/cache/tunlab}
jobs=${KERNEL_JOBS:-$(nproc)}
# default: the shared fragments, then the version's own (kernel/config/VERSION/)
read -r -a fragments <<< "${KERNEL_CONFIGS:-$( { ls "$here"/config/*.config | LC_ALL=C sort
	ls "$here/config/$kver"/*.config 2>/dev/null | LC_ALL=C sort; } | tr '\n' ' ')}"
patch_dir=${KERNEL_PATCH_DIR:-$here/patches/$kver}
patches=()
if [ "$patch_dir" != none ]; then
	# git am runs in the tree: a folder given relative to the caller's
	# directory must not be looked up from there
	patch_dir=$(realpath -m "$patch_dir")
	shopt -s nullglob
	patches=("$patch_dir"/*.patch)
	shopt -u nullglob
fi

# Every compile goes through ccache: a fresh tree (a new machine, a new
# source package, a series moved back and forth between versions) makes
# make recompile whatever it finds newer, and ccache answers every file
# whose preprocessed text it has seen, so only real changes cost a compile.
# The store lives beside the bzImage cache so a CI clone elsewhere reuses it
# (CCACHE_BASEDIR makes its paths relative to the tree).
ccache_dir=${KERNEL_CCACHE:-$cache/ccache}
make_cc=()
if [ "$ccache_dir" != off ]; then
	command -v ccache >/dev/null || { printf 'kernel: error: ccache not found (make deps installs it; KERNEL_CCACHE=off builds without)\n' >&2; exit 1; }
	export CCACHE_DIR=$ccache_dir CCACHE_BASEDIR=$build_dir CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	mkdir -p "$CCACHE_DIR"
	make_cc=(CC="ccache gcc")
fi

say() { printf 'kernel: %s\n' "$*"; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

# Coverage: gcov profiling for the parts of the tree a report reads only
# (every profiled line costs a counter update each time it runs, under
# TCG in a kernel already slowed by KASAN and lockdep). Each word
# is a folder ("security/tunguard": GCOV_PROFILE in its Makefile) or an
# object ("drivers/net/tun.o": GCOV_PROFILE_tun.o in its folder's), added
# to the tree after the series, not a patch of it: the series stays what
# it is upstream. Part of the key only when asked, so the lab kernel's
# key is what it always was.
read -r -a gcov_profile <<< "${KERNEL_GCOV_PROFILE:-}"
for p in "${gcov_profile[@]}"; do
	[[ $p =~ ^[A-Za-z0-9_][A-Za-z0-9_.+/-]*$ && ! $p =~ (^|/)\.\.?(/|$) && $p != */ ]] ||
		die "KERNEL_GCOV_PROFILE: '$p' is not a folder or object of the tree (a relative path such as security/tunguard or drivers/net/tun.o)"
done

[ -r "$tar_path" ] || die "$tar_path not found (install linux-source-$kver: make deps)"
[ ${#patches[@]} -gt 0 ] || [ "$patch_dir" = none ] || die "no patches in $patch_dir"

# How a bzImage is made from its inputs. Bump it when a change to this
# script changes what it builds (not for messages or paths), so the cache
# does not hand out a kernel built the old way.
KERNEL_RECIPE=1

# The cache key: the source package, every patch and fragment, the recipe
# and the compiler.
src_version=$(dpkg-query -W -f='${Version}' "linux-source-$kver" 2>/dev/null || stat -c %s-%Y "$tar_path")
key=$( {
	echo "source $src_version $(stat -c %s "$tar_path")"
	echo "recipe $KERNEL_RECIPE"
	[ ${#gcov_profile[@]} -eq 0 ] || echo "gcov-profile ${gcov_profile[*]}"
	for f in "${patches[@]}" "${fragments[@]}"; do
		echo "== $(basename "$f")"; cat "$f"
	done
	gcc --version | head -1
} | sha256sum | cut -c1-16)
cached=$cache/kernel/$key

install_result() {
	mkdir -p "$(dirname "$out")"
	# keep the old mtime when nothing changed, so images are not rebuilt
	if ! cmp -s "$cached/bzImage" "$out"; then
		cp "$cached/bzImage" "$out.tmp" && mv "$out.tmp" "$out"
	fi
	cp "$cached/config" "$(dirname "$out")/config"
	echo "$key" > "$(dirname "$out")/key"
	# what lcov needs beside the kernel it reads counters of, never another's
	rm -rf "$(dirname "$out")/gcov"
	[ ! -d "$cached/gcov" ] || cp -r "$cached/gcov" "$(dirname "$out")/gcov"
}

if [ $tree_only = 0 ] && [ -f "$cached/bzImage" ]; then
	say "up to date (cache $key, $(stat -c %s "$cached/bzImage") bytes)"
	install_result
	exit 0
fi

t0=$(date +%s)
src=$build_dir/linux
obj=$(realpath -m "${KERNEL_OBJ_DIR:-$build_dir/obj}")
mkdir -p "$build_dir"
# One build at a time per tree: make -j runs the rules of the lab, L2 and
# debug kernels side by side, and each re-applies the series to this tree.
if [ "${KERNEL_TREE_LOCKED:-}" != 1 ]; then
	exec 9> "$build_dir/.lock"
	if ! flock -n 9; then
		say "waiting for another build in $build_dir"
		flock 9
	fi
fi

# A pristine tree, kept between builds in a git repository of its own so a
# changed series touches only the files it changes (and make rebuilds only
# what depends on them).
if [ ! -d "$src/.git" ] || [ "$(cat "$src/.tunlab-source" 2>/dev/null)" != "$src_version" ]; then
	say "unpacking $tar_path ($src_version)"
	rm -rf "$src" "$obj"
	mkdir -p "$src"
	tar -xJf "$tar_path" -C "$src" --strip-components=1
	echo "$src_version" > "$src/.tunlab-source"
	git -C "$src" init -q
	git -C "$src" config user.name "tunlab"
	git -C "$src" config user.email "tunlab@invalid"
	# no background repack: an automatic `git gc` after a commit held
	# the tree (and the build lock) for minutes on a cold machine
	git -C "$src" config gc.auto 0
	git -C "$src" add -A -f
	git -C "$src" commit -q -m "Debian linux-source-$kver $src_version"
	git -C "$src" tag -f pristine >/dev/null
fi

# Bring the tree to pristine + the series while rewriting only the files
# whose content changes. Resetting to pristine and re-applying with `git am`
# gave every file the series touches (include/linux/security.h among them)
# a new mtime, so make recompiled most of the kernel after a one-line edit.
# Instead each patch is applied, as `git am` would, to a scratch index and
# committed from its mail; one checkout then moves the tree to the result,
# and git leaves every file that is already right alone, mtime and all.
apply_series() {
	local index=$src/.git/tunlab-series.index mail head=pristine p out_apply
	mail=$(mktemp -d)
	rm -f "$index"
	GIT_INDEX_FILE=$index git -C "$src" read-tree pristine
	for p in "${patches[@]}"; do
		if ! out_apply=$(GIT_INDEX_FILE=$index git -C "$src" apply --cached --whitespace=nowarn "$p" 2>&1); then
			rm -rf "$mail" "$index"
			echo "$out_apply" | sed 's/^/    /' >&2
			die "patch $(basename "$p") does not apply (the failing hunk is shown above)"
		fi
		git -C "$src" mailinfo "$mail/msg" "$mail/diff" < "$p" > "$mail/info"
		{ sed -n 's/^Subject: //p' "$mail/info"; echo; cat "$mail/msg"; } > "$mail/message"
		head=$(GIT_INDEX_FILE=$index \
			GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' "$mail/info") \
			GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' "$mail/info") \
			GIT_AUTHOR_DATE=$(sed -n 's/^Date: //p' "$mail/info") \
			git -C "$src" commit-tree "$(GIT_INDEX_FILE=$index git -C "$src" write-tree)" \
			-p "$head" -F "$mail/message")
		say "applied $(basename "$p")"
	done
	rm -rf "$mail" "$index"
	git -C "$src" am --abort >/dev/null 2>&1 || true
	# a file whose stat changed but whose content did not must count as
	# up to date, or the reset below would rewrite it
	git -C "$src" update-index -q --refresh >/dev/null || true
	git -C "$src" reset -q --hard "$head"
	git -C "$src" clean -qfdx -e .tunlab-source
}
apply_series
if [ $tree_only = 1 ]; then
	say "tree ready: $src ($(git -C "$src" log --oneline pristine.. | wc -l) patches)"
	exit 0
fi

# GCOV_PROFILE for what KERNEL_GCOV_PROFILE names (see above), on the
# tree the series made; the next apply_series puts the Makefiles back.
for p in "${gcov_profile[@]}"; do
	case $p in
	*.o)	[ -f "$src/${p%.o}.c" ] && [ -f "$src/$(dirname "$p")/Makefile" ] ||
			die "KERNEL_GCOV_PROFILE: $p: no ${p%.o}.c with a Makefile beside it in the linux-source-$kver tree" ;;
	*)	[ -f "$src/$p/Makefile" ] ||
			die "KERNEL_GCOV_PROFILE: $p: no such folder with a Makefile in the linux-source-$kver tree" ;;
	esac
done
for p in "${gcov_profile[@]}"; do
	case $p in
	*.o)	printf '\n# tunlab: coverage (kernel/build.sh, KERNEL_GCOV_PROFILE)\nGCOV_PROFILE_%s := y\n' \
			"$(basename "$p")" >> "$src/$(dirname "$p")/Makefile" ;;
	*)	printf '\n# tunlab: coverage (kernel/build.sh, KERNEL_GCOV_PROFILE)\nGCOV_PROFILE := y\n' \
			>> "$src/$p/Makefile" ;;
	esac
	say "gcov profiling: $p"
done

# Configure: allnoconfig with the fragments forced, then check each request.
mkdir -p "$obj"
cat "${fragments[@]}" > "$obj.requested"
make -s -C "$src" O="$obj" "${make_cc[@]}" KCONFIG_ALLCONFIG="$obj.requested" allnoconfig >/dev/null
dropped=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		opt=${line%%=*}
		if ! grep -qxF "$line" "$obj/.config"; then
			have=$(grep -E "^$opt=|^# $opt is not set" "$obj/.config" || echo "absent (dependencies not met)")
			echo "kernel: dropped: $line -> $have" >&2
			dropped=$((dropped + 1))
		fi ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		if grep -q "^$opt=" "$obj/.config"; then
			echo "kernel: dropped: $line -> $(grep "^$opt=" "$obj/.config")" >&2
			dropped=$((dropped + 1))
		fi ;;
	esac
done < "$obj.requested"
[ "$dropped" -eq 0 ] || die "$dropped requested option(s) missing from the final .config (Kconfig dropped them: fix their dependencies in kernel/config/)"
[ ${#gcov_profile[@]} -eq 0 ] || grep -qx CONFIG_GCOV_KERNEL=y "$obj/.config" ||
	die "KERNEL_GCOV_PROFILE needs CONFIG_GCOV_KERNEL=y in the fragments (kernel/config/coverage.config)"

say "building bzImage with $jobs jobs (log: $obj.log)"
[ ${#make_cc[@]} -eq 0 ] || ccache -z >/dev/null
if ! make -C "$src" O="$obj" "${make_cc[@]}" -j"$jobs" bzImage > "$obj.log" 2>&1; then
	tail -30 "$obj.log" >&2
	die "build failed; full log in $obj.log"
fi
rm -rf "$cached.tmp"
mkdir -p "$cached.tmp"
cp "$obj/arch/x86/boot/bzImage" "$cached.tmp/bzImage"
cp "$obj/.config" "$cached.tmp/config"

# What lcov needs to read the counters of this kernel, kept with it since
# the tree and objects may be gone or rebuilt by then: each profiled
# object's .gcno (gcov/obj/), the sources it was compiled from
# (gcov/src/), and where the objects were (L1 names each counter file by
# its object's path in this build: gcov/objtree).
save_gcov() {
	local p dir n=0 f
	dir=$cached.tmp/gcov
	mkdir -p "$dir/obj" "$dir/src"
	for p in "${gcov_profile[@]}"; do
		case $p in
		*.o) f=${p%.o}
			[ -f "$obj/$f.gcno" ] || die "KERNEL_GCOV_PROFILE: $p was not built with gcov (no $obj/$f.gcno: does the configuration build it?)"
			mkdir -p "$dir/obj/$(dirname "$p")" "$dir/src/$(dirname "$p")"
			cp "$obj/$f.gcno" "$dir/obj/$f.gcno"
			cp "$src/$f.c" "$dir/src/$f.c"
			n=$((n + 1)) ;;
		*)	(cd "$obj" && find "$p" -name '*.gcno') > "$dir/list"
			[ -s "$dir/list" ] || die "KERNEL_GCOV_PROFILE: nothing in $p was built with gcov (does the configuration build it?)"
			(cd "$obj" && cpio -pdm --quiet "$dir/obj") < "$dir/list"
			n=$((n + $(wc -l < "$dir/list")))
			(cd "$src" && find "$p" -name '*.[ch]' | cpio -pdm --quiet "$dir/src")
			rm "$dir/list" ;;
		esac
	done
	echo "$obj" > "$dir/objtree"
	echo "$src" > "$dir/srctree"
	printf '%s\n' "${gcov_profile[@]}" > "$dir/profile"
	say "gcov: kept $n .gcno files and their sources"
}
[ ${#gcov_profile[@]} -eq 0 ] || save_gcov
rm -rf "$cached" && mv "$cached.tmp" "$cached"
install_result
say "built in $(( $(date +%s) - t0 )) s (cache $key)"
[ ${#make_cc[@]} -eq 0 ] || say "ccache: $(ccache -s | grep -E "^ *(Hits|Misses):" | tr -s ' ' | paste -sd ' ')"
