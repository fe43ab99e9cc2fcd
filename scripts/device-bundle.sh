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
du -sh .device
