#!/usr/bin/env bash
# Key figures of two builds, alternated in the same minutes, so that the
# host's drift (2x between runs minutes apart on the dev VM) falls on both:
#   scripts/ab-compare.sh OLD_BUILD_DIR NEW_BUILD_DIR [ROUNDS]
# Prints one line per figure and build; the full outputs go to $OUT.
set -u
old=$1 new=$2 rounds=${3:-2}
OUT=${OUT:-bench-out/ab-$(date +%Y%m%d-%H%M)}
mkdir -p "$OUT"
eal=(-l 0-1 --no-huge --no-pci --in-memory --log-level 'lib.*:error' --file-prefix lca_ab)

rr() { # build placement dispatcher
	"$1/apps/reqresp/lca-reqresp" "${eal[@]}" -- -i 5 -wi 2 -p dispatcher="$3" \
		--placement "$2" 2>&1 | tee -a "$OUT/reqresp.txt" |
		awk -v p="$2" -v d="$3" '$2 == d && $4 == 1 { printf "reqresp %s %s tp1: %.2f M msg/s\n", p, d, $7 / 1e6 }
			$2 == "floor" && $4 == 1 && d == "affinity" { printf "reqresp %s floor tp1: %.2f M msg/s\n", p, $7 / 1e6 }'
}
circ() { # build lcores
	"$1/apps/circular/lca-circular" -l "$2" --no-huge --no-pci --in-memory --log-level 'lib.*:error' \
		--file-prefix lca_ab -- --actors 1,2 2>&1 | tee -a "$OUT/circular.txt" |
		awk -v l="$2" '/^(1|2) +round-robin/ { printf "circular -l %s %s actors: median %s %s\n", l, $1, $7, $8 }
			/floor:  \[/ { printf "circular floor (one line): %s\n", $0 } /slots:  \[/ { printf "circular floor (slots): %s\n", $0 }'
}
ph() {
	"$1/apps/pinghops/lca-pinghops" "${eal[@]}" -- 2>&1 | tee -a "$OUT/pinghops.txt" |
		awk '/^Run #/ { gsub("ms", "", $6); s += $6; n++ } END { printf "pinghops mean of %d runs: %.1f ms\n", n, s / n }'
}
mb() {
	"$1/apps/microbench/lca-microbench" "${eal[@]}" -- --scenario same-lcore,cross-lcore --runs 3 \
		2>&1 | tee -a "$OUT/microbench.txt" | grep -E 'burst 32: mean'
}
for r in $(seq "$rounds"); do
	for b in "$old" "$new"; do
		echo "== round $r, $b ($(date +%H:%M:%S))"
		for pl in round-robin pairs-local; do rr "$b" "$pl" affinity; done
		rr "$b" round-robin shared
		[ "$b" = "$new" ] && rr "$b" auto affinity
		circ "$b" 0-1
		circ "$b" 0
		ph "$b"
		mb "$b"
	done
done
