#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# liblcactor's ABI against the released one (abi/liblcactor.abi), with
# abigail-tools, as DPDK's devtools/check-abi.sh does.
#   lca-abi.sh dump LIB OUT HEADER...
#       write LIB's ABI to OUT (a release step: `ninja -C build abi-dump`)
#   lca-abi.sh check LIB BASELINE SUPPRESSIONS HEADER...
#       exit 1 when an LCA_0.1 symbol is gone or its types changed, 77 when
#       abigail-tools is not installed
# The public headers are named, and no path of this checkout is kept, so the
# dump is the same from any clone. Not --drop-private-types: with it,
# libabigail 2.2 kept struct lca_runtime_conf as declaration-only once its
# users moved to another file (lca_runtime.c), and a member inserted into it
# passed the check (tried by hand, not committed); without it the same break
# fails with abidiff status 4.
set -u
usage() { echo "usage: $0 dump LIB OUT HEADER... | check LIB BASELINE SUPPRESSIONS HEADER..." >&2; exit 2; }
[ $# -ge 3 ] || usage
cmd=$1 lib=$2
shift 2

# dump LIB OUT HEADER...
dump() {
	local lib=$1 out=$2 hf=() h
	shift 2
	for h in "$@"; do hf+=(--header-file "$h"); done
	abidw --no-corpus-path --no-comp-dir-path --short-locs \
		"${hf[@]}" --out-file "$out" "$lib"
}

for tool in abidw abidiff; do
	if ! command -v "$tool" >/dev/null; then
		echo "$tool not found: install abigail-tools (scripts/install-deps.sh)"
		exit 77
	fi
done
case $cmd in
dump)
	out=$1
	shift
	dump "$lib" "$out" "$@" || exit 1
	echo "wrote $out"
	;;
check)
	[ $# -ge 2 ] || usage
	baseline=$1 suppr=$2
	shift 2
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	dump "$lib" "$tmp/now.abi" "$@" || { echo "not ok - abidw could not read $lib"; exit 1; }
	# Added symbols are allowed (new ones come in EXPERIMENTAL); any other
	# bit of abidiff's status is an error or an ABI change.
	abidiff --suppressions "$suppr" --no-added-syms "$baseline" "$tmp/now.abi" >"$tmp/diff" 2>&1
	rc=$?
	cat "$tmp/diff"
	if [ $rc -ne 0 ]; then
		echo "not ok - liblcactor's LCA_0.1 ABI differs from $baseline (abidiff status $rc)"
		echo "# a break belongs in a new 0.x minor with a new SONAME: docs/api.md, \"ABI\""
		exit 1
	fi
	echo "ok - liblcactor's LCA_0.1 ABI matches $baseline"
	;;
*)
	usage
	;;
esac
