#!/usr/bin/env bash
# Key figures of two builds, alternated in the same minutes, so that the
# host's drift (2x between runs minutes apart on the dev VM) falls on both:
#   scripts/ab-compare.sh OLD_BUILD_DIR NEW_BUILD_DIR [ROUNDS]
# Prints one line per figure and build; the full outputs go to $OUT, with
# each run's record ($OUT/NAME-A-rROUND.json: A is OLD, B is NEW) and, at
# the end, the picture of the last round's A and B side by side
# ($OUT/NAME-A-vs-B.svg, scripts/lca-plot A.json B.json).
set -u
old=$1 new=$2 rounds=${3:-2}
OUT=${OUT:-bench-out/ab-$(date +%Y%m%d-%H%M)}
mkdir -p "$OUT"
eal=(-l 0-1 --no-huge --no-pci --in-memory --log-level 'lib.*:error' --file-prefix lca_ab)
here=$(dirname "$0")

rr() { # build tag placement dispatcher
	"$1/apps/reqresp/lca-reqresp" "${eal[@]}" -- -i 5 -wi 2 -p dispatcher="$4" \
		--placement "$3" --json "$OUT/reqresp-$3-$4-$2-r$r.json" 2>&1 | tee -a "$OUT/reqresp.txt" |
		awk -v p="$3" -v d="$4" '{ s = 0; for (i = 5; i < NF; i++) if ($i == "thrpt") s = $(i + 2) } # Score: after Mode and Cnt (older builds have no placement column)
			$1 ~ /^RequestResponseBenchmark/ && $2 == d && $4 == 1 { printf "reqresp %s %s tp1: %.2f M msg/s\n", p, d, s / 1e6 }
			$1 ~ /^RequestResponseBenchmark/ && $2 == "floor" && $4 == 1 && d == "affinity" { printf "reqresp %s floor tp1: %.2f M msg/s\n", p, s / 1e6 }'
}
circ() { # build tag lcores
	"$1/apps/circular/lca-circular" -l "$3" --no-huge --no-pci --in-memory --log-level 'lib.*:error' \
		--file-prefix lca_ab -- --actors 1,2 --json "$OUT/circular-l$3-$2-r$r.json" 2>&1 |
		tee -a "$OUT/circular.txt" |
		awk -v l="$3" '/^(1|2) +round-robin/ { printf "circular -l %s %s actors: median %s %s\n", l, $1, $7, $8 }
			/floor:  \[/ { printf "circular floor (one line): %s\n", $0 } /slots:  \[/ { printf "circular floor (slots): %s\n", $0 }'
}
ph() { # build tag
	"$1/apps/pinghops/lca-pinghops" "${eal[@]}" -- --json "$OUT/pinghops-$2-r$r.json" 2>&1 |
		tee -a "$OUT/pinghops.txt" |
		awk '/^Run #/ { gsub("ms", "", $6); s += $6; n++ } END { printf "pinghops mean of %d runs: %.1f ms\n", n, s / n }'
}
mb() { # build tag
	"$1/apps/microbench/lca-microbench" "${eal[@]}" -- --scenario same-lcore,cross-lcore --runs 3 \
		--json "$OUT/microbench-$2-r$r.json" 2>&1 | tee -a "$OUT/microbench.txt" | grep -E 'burst 32: mean'
}
for r in $(seq "$rounds"); do
	for tag in A B; do
		b=$old
		[ "$tag" = B ] && b=$new
		echo "== round $r, $tag: $b ($(date +%H:%M:%S))"
		for pl in round-robin pairs-local; do rr "$b" "$tag" "$pl" affinity; done
		rr "$b" "$tag" round-robin shared
		[ "$tag" = B ] && rr "$b" "$tag" auto affinity
		circ "$b" "$tag" 0-1
		circ "$b" "$tag" 0
		ph "$b" "$tag"
		mb "$b" "$tag"
	done
done

# The last round's records of A and B, drawn side by side: a run that wrote
# no record (it failed) is named, not skipped silently.
echo "== pictures (A: $old, B: $new)"
for a in "$OUT"/*-A-r"$rounds".json; do
	[ -e "$a" ] || { echo "no records of round $rounds in $OUT"; break; }
	name=$(basename "$a" -A-r"$rounds".json)
	b=$OUT/$name-B-r$rounds.json
	if [ ! -s "$a" ] || [ ! -s "$b" ]; then
		echo "$name: no picture: $( [ -s "$a" ] || echo "A's"; [ -s "$b" ] || echo "B's") record is missing"
		continue
	fi
	"$here/lca-plot" "$a" "$b" -o "$OUT/$name-A-vs-B.svg" >/dev/null &&
		echo "$name: $OUT/$name-A-vs-B.svg" || echo "$name: lca-plot failed"
done
