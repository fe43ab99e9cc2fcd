#!/usr/bin/env bash
# lcactor as another DPDK project meets it, with the outside app
# tests/pkgconfig_app.c built twice:
#  1. against the installed lcactor.pc: installed into a scratch root, linked
#     with `pkg-config --libs lcactor` alone (no hwloc, UCX or numa on the
#     line), run without LD_LIBRARY_PATH through the rpath docs/api.md gives;
#  2. as a meson subproject (subprojects/lcactor, a link to this tree) of a
#     scratch project, through dependency('lcactor'), configured where
#     pkg-config finds no jansson and no cmocka: the apps and tests are off.
# e2e_pkgconfig.sh BUILD_DIR SOURCE_DIR
set -u
build=$1 src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi; }
eal=(-l 0-1 --no-huge --no-pci --in-memory --log-level 'lib.*:error')

# --- 1. the installed .pc ---------------------------------------------------
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/install.log" 2>&1
check "meson install" "[ $? -eq 0 ] || { cat '$tmp/install.log'; false; }"
pc=$(find "$tmp/root" -name lcactor.pc | head -1)
check "lcactor.pc installed" "[ -n '$pc' ]"
inc=$(find "$tmp/root" -type d -path '*/include/lcactor' | head -1)
check "the public headers installed, no private one" \
	"[ -f '$inc/lca_actor.h' ] && [ -z \"\$(find '$tmp/root' -name '*_priv.h' -o -name lca_envelope_priv.h)\" ]"
check "lca-plot installed beside the apps" "[ -x \"\$(find '$tmp/root' -path '*/bin/lca-plot' | head -1)\" ]"
# The scratch root stands for the prefix; libdpdk and hwloc are the system's.
sed -i "s|^prefix=|prefix=$tmp/root|" "$pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
check "pkg-config knows lcactor" "pkg-config --exists lcactor"
libs=$(pkg-config --libs lcactor)
check "pkg-config --libs names no hwloc, UCX or numa" \
	"! grep -qE -- '-l(hwloc|ucp|uct|ucs|ucm|numa)\\b' <<<\"\$libs\" || { echo \"# \$libs\"; false; }"
check "Requires is libdpdk alone" "[ \"\$(pkg-config --print-requires lcactor)\" = libdpdk ]"
reqp=$(pkg-config --print-requires-private lcactor)
check "Requires.private has hwloc and numa, each once" \
	"grep -qx hwloc <<<\"\$reqp\" && grep -qx numa <<<\"\$reqp\" && [ -z \"\$(sort <<<\"\$reqp\" | uniq -d)\" ]"
static=$(pkg-config --static --libs lcactor 2>&1)
check "pkg-config --static --libs gives the private libraries" \
	"[ $? -eq 0 ] && grep -q -- '-lhwloc' <<<\"\$static\" && grep -q -- '-lnuma' <<<\"\$static\""
libdir=$(pkg-config --variable=libdir lcactor)
# docs/api.md: a prefix the loader does not search goes in as an rpath.
cc -o "$tmp/app" "$src/tests/pkgconfig_app.c" $(pkg-config --cflags lcactor) \
	$libs -Wl,-rpath,"$libdir" >"$tmp/cc.log" 2>&1
check "an outside app compiles and links with pkg-config alone" "[ $? -eq 0 ] || { cat '$tmp/cc.log'; false; }"
needed=$(readelf -d "$tmp/app" 2>/dev/null | awk '/NEEDED/ { print $NF }')
check "it needs liblcactor.so.0.1, and no hwloc or UCX library" \
	"grep -q 'liblcactor.so.0.1]' <<<\"\$needed\" && ! grep -qE 'lib(hwloc|ucp|uct|ucs|ucm)' <<<\"\$needed\""
out=$(env -u LD_LIBRARY_PATH "$tmp/app" "${eal[@]}" --file-prefix lca_test_pc 2>&1)
check "and runs without LD_LIBRARY_PATH" "grep -q 'pkg-config app: message handled' <<<\"\$out\" || { echo \"\$out\" | tail -5; false; }"

# --- 2. a meson subproject --------------------------------------------------
unset PKG_CONFIG_PATH
proj=$tmp/outside
mkdir -p "$proj/subprojects"
ln -s "$src" "$proj/subprojects/lcactor"
cp "$src/tests/pkgconfig_app.c" "$proj/app.c"
cat >"$proj/meson.build" <<'EOF'
project('outside', 'c')
lcactor_dep = dependency('lcactor', fallback: ['lcactor'])
executable('app', 'app.c', dependencies: lcactor_dep)
EOF
# A pkg-config that knows no jansson and no cmocka, as where neither is
# installed: the subproject must not ask for them.
real_pc=$(command -v pkg-config)
cat >"$tmp/pkg-config" <<EOF
#!/bin/sh
for a; do case \$a in jansson*|cmocka*) exit 1 ;; esac; done
exec $real_pc "\$@"
EOF
chmod +x "$tmp/pkg-config"
PKG_CONFIG=$tmp/pkg-config meson setup "$proj/build" "$proj" --wrap-mode=forcefallback \
	>"$tmp/sub-setup.log" 2>&1
check "a project with lcactor as subproject configures without jansson or cmocka" \
	"[ $? -eq 0 ] || { tail -20 '$tmp/sub-setup.log'; false; }"
log=$proj/build/meson-logs/meson-log.txt
check "and the subproject leaves its apps and tests out (no http-parser looked up)" \
	"! grep -q http_parser '$log' && ! grep -q 'lca-hello' '$proj/build/build.ninja'"
ninja -C "$proj/build" app >"$tmp/sub-ninja.log" 2>&1
check "the outside app builds against the subproject" "[ $? -eq 0 ] || { tail -20 '$tmp/sub-ninja.log'; false; }"
appcc=$(ninja -C "$proj/build" -t commands app | grep -- '-c [^ ]*app\.c')
check "with the public headers only" \
	"[ -n \"\$appcc\" ] && ! grep -qE -- '-I[^ ]*subprojects/lcactor/(actors|eal|lcore|mempool)' <<<\"\$appcc\""
out=$(env -u LD_LIBRARY_PATH "$proj/build/app" "${eal[@]}" --file-prefix lca_test_sub 2>&1)
check "and runs" "grep -q 'pkg-config app: message handled' <<<\"\$out\" || { echo \"\$out\" | tail -5; false; }"
exit $fail
