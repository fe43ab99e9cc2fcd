#!/usr/bin/env bash
# Every example as a user builds a copy of it: from the sources that
# `meson install` puts under share/doc/lcactor/examples (in a scratch root),
# with `cc -Wall -Wextra -Werror` and the installed lcactor.pc alone (no
# -D of the project's, no include folder of the tree), then run once
# through e2e_examples.sh, its output checked as for the in-tree build.
# e2e_examples_installed.sh BUILD_DIR SOURCE_DIR NAME...
set -u
build=$1 src=$(cd "$2" && pwd)
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi; }

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/install.log" 2>&1
check "meson install into a scratch root" "[ $? -eq 0 ] || { tail -20 '$tmp/install.log'; false; }"
pc=$(find "$tmp/root" -name lcactor.pc | head -1)
exdir=$(find "$tmp/root" -type d -path '*/doc/lcactor/examples' | head -1)
check "lcactor.pc and the examples' sources installed" "[ -n '$pc' ] && [ -n '$exdir' ]"
[ $fail = 0 ] || exit 1
# The scratch root stands for the prefix; libdpdk is the system's.
sed -i "s|^prefix=|prefix=$tmp/root|" "$pc"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
libdir=$(pkg-config --variable=libdir lcactor)
for name in "$@"; do
	main=$exdir/$name/main.c
	# shellcheck disable=SC2046 # pkg-config's words are meant to split
	cc -Wall -Wextra -Werror -o "$tmp/$name" "$main" $(pkg-config --cflags --libs lcactor) \
		-Wl,-rpath,"$libdir" >"$tmp/cc.log" 2>&1
	check "$name: its installed main.c builds with -Wall -Wextra -Werror and pkg-config's lcactor" \
		"[ $? -eq 0 ] || { cat '$tmp/cc.log'; false; }"
	[ -x "$tmp/$name" ] || continue
	env -u LD_LIBRARY_PATH "$src/tests/e2e_examples.sh" "$name" "$tmp/$name" >"$tmp/run.log" 2>&1
	rc=$?
	grep -E '^(ok|not ok) ' "$tmp/run.log"
	check "$name: the copy runs as the in-tree build does, every check ok" \
		"[ $rc -eq 0 ] || { grep -v '^ok ' '$tmp/run.log' | tail -30; false; }"
done
exit $fail
