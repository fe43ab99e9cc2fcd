#!/usr/bin/env bash
# Runs a broad set of the apps' benchmarks on lcores 0-1 (every reqresp
# placement, both microbench bursts, ...), and keeps each app's full output
# and JSON in $OUT. Run it on a quiet machine: anything else running shows
# up as steal and noise. The tables of docs/benchmarks.md come from
# scripts/bench-results.sh, which also takes the timing lock.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-bench-out/$(date +%Y%m%d-%H%M)}
mkdir -p "$OUT"
eal=(-l 0-1 --no-huge --no-pci --in-memory --log-level 'lib.*:error')
b=build/apps

for pl in round-robin pairs-local auto pack; do
	"$b/reqresp/lca-reqresp" "${eal[@]}" --file-prefix bench_rr -- -p throughput=1,5,50 \
		-p dispatcher=affinity,shared --placement "$pl" --json "$OUT/reqresp-$pl.json" \
		>"$OUT/reqresp-$pl.txt" 2>&1
done
"$b/microbench/lca-microbench" "${eal[@]}" --file-prefix bench_mb -- \
	--json "$OUT/microbench.json" >"$OUT/microbench.txt" 2>&1
"$b/microbench/lca-microbench" "${eal[@]}" --file-prefix bench_mb -- --burst 1 \
	--json "$OUT/microbench-burst1.json" >"$OUT/microbench-burst1.txt" 2>&1
[ -x "$b/circular/lca-circular" ] && "$b/circular/lca-circular" "${eal[@]}" --file-prefix bench_c -- \
	--json "$OUT/circular.json" >"$OUT/circular.txt" 2>&1
[ -x "$b/circular/lca-circular" ] && "$b/circular/lca-circular" "${eal[@]}" --file-prefix bench_c -- \
	--placement pack --json "$OUT/circular-pack.json" >"$OUT/circular-pack.txt" 2>&1
[ -x "$b/pinghops/lca-pinghops" ] && "$b/pinghops/lca-pinghops" "${eal[@]}" --file-prefix bench_p -- \
	--json "$OUT/pinghops.json" >"$OUT/pinghops.txt" 2>&1
"$b/freqstat/lca-freq" "${eal[@]}" --file-prefix bench_f -- --count 5 --interval 1 --load \
	--json "$OUT/freq.json" >"$OUT/freq.txt" 2>&1
# The Go versions of the published benchmarks, in the same minutes.
if [ -d ../shared/peers/go ] && command -v go >/dev/null; then
	rm -rf "$OUT/peer-go" && cp -r ../shared/peers/go "$OUT/peer-go" &&
		"$OUT/peer-go/run.sh" 1 >"$OUT/peer-go.txt" 2>&1
fi
echo "results in $OUT"
