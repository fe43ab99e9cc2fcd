#!/usr/bin/env bash
# Install lcactor into a scratch root, then build and run an outside app
# with nothing but `pkg-config lcactor`, as another DPDK app would.
set -u
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi; }

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/install.log" 2>&1
check "meson install" "[ $? -eq 0 ]"
pc=$(find "$tmp/root" -name lcactor.pc | head -1)
check "lcactor.pc installed" "[ -n '$pc' ]"
# The scratch root stands for the prefix; libdpdk and hwloc are the system's.
sed -i "s|^prefix=|prefix=$tmp/root|" "$pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
check "pkg-config knows lcactor" "pkg-config --exists lcactor"
cc -o "$tmp/app" "$src/tests/pkgconfig_app.c" $(pkg-config --cflags lcactor) \
	$(pkg-config --libs lcactor) -Wl,-rpath,"$(dirname "$(find "$tmp/root" -name 'liblcactor.so' | head -1)")" \
	>"$tmp/cc.log" 2>&1
check "an outside app compiles and links" "[ $? -eq 0 ] || { cat '$tmp/cc.log'; false; }"
out=$("$tmp/app" -l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_pc \
	--log-level 'lib.*:error' 2>&1)
check "and runs" "grep -q 'pkg-config app: message handled' <<<\"\$out\""
exit $fail
