#!/usr/bin/env bash
# Packs the built apps with every shared library they load (glibc and its
# loader included) into .device/, so they run on a machine that has no DPDK
# installed: scaling runs on a bigger box (scripts/device-scaling.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .device && mkdir -p .device/bin .device/lib
for app in build/apps/*/lca-*; do
	[ -f "$app" ] && [ -x "$app" ] || continue
	cp "$app" .device/bin/
	ldd "$app" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' |
		while read -r lib; do cp -nL "$lib" .device/lib/; done
done
# EAL loads its mempool handlers as plugins; a machine without DPDK has none,
# and rte_mempool_create() then fails with EINVAL. Bring the ring one.
pmd=$(pkg-config --variable=pmdsdir libdpdk 2>/dev/null || echo /usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0)
cp -L "$pmd"/librte_mempool_ring.so.* .device/lib/ 2>/dev/null ||
	cp -L /usr/lib/x86_64-linux-gnu/librte_mempool_ring.so.23 .device/lib/
du -sh .device
