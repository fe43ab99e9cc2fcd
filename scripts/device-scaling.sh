#!/usr/bin/env bash
# Scaling runs on a machine with more cores, from the bundle that
# scripts/device-bundle.sh made. Writes every output under $OUT.
# Each run is short: the whole script fits in a few minutes.
set -u
OUT=${OUT:-/tmp/lca-device}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
lib=$PWD/.device/lib
run() { timeout 240 "$lib/ld-linux-x86-64.so.2" --library-path "$lib" ".device/bin/$1" "${@:2}"; }
eal=(--no-huge -m 4096 --no-pci --in-memory --log-level 'lib.*:error' -d "$lib/$(cd "$lib" && ls librte_mempool_ring.so.* | head -1)")
ncpu=$(nproc)
last=$((ncpu - 1))
{ nproc; lscpu; cat /proc/meminfo | head -3; uname -a; id; } >"$OUT/machine.txt" 2>&1

# The clock sources this machine offers, under load on every CPU.
run lca-freq -l 0-$last "${eal[@]}" --file-prefix d0 -- --count 3 --interval 0.5 --load \
	--json "$OUT/freq.json" >"$OUT/freq.txt" 2>&1

# The request-response benchmark: 2 lcores as on the dev machine, then more.
for lc in 0-1 0-3 0-7 0-$last; do
	n=$(( ${lc#0-} + 1 ))
	actors=$(( n < 4 ? 8 : 2 * n ))
	for pl in round-robin pairs-local; do
		run lca-reqresp -l "$lc" "${eal[@]}" --file-prefix "d$n$pl" -- -i 3 -wi 2 -r 0.5 -w 0.5 \
			--actors "$actors" --placement "$pl" -p throughput=1,50 --quiet \
			--json "$OUT/reqresp_l${n}_${pl}.json" >"$OUT/reqresp_l${n}_${pl}.txt" 2>&1
	done
done

# Hop latency over every lcore, and random ping with hops.
run lca-circular -l 0-$last "${eal[@]}" --file-prefix dc -- --json "$OUT/circular.json" \
	>"$OUT/circular.txt" 2>&1
run lca-pinghops -l 0-7 "${eal[@]}" --file-prefix dp -- --json "$OUT/pinghops.json" \
	>"$OUT/pinghops.txt" 2>&1

# Messages per second between two lcores on this machine.
run lca-microbench -l 0-1 "${eal[@]}" --file-prefix dm -- --runs 3 \
	>"$OUT/microbench.txt" 2>&1
ls -l "$OUT"
