#!/usr/bin/env bash
# Two builds' verdicts, alternated A B B A in the same minutes, each app's
# own ratio to its floor (measured in the same run), so that a before/after
# reads as ratios that the host's drift falls on equally:
#   scripts/ab-verdicts.sh OLD_BUILD_DIR NEW_BUILD_DIR [CYCLES]
# A cycle is A B B A. Each run holds the timing lock (LOCK, default
# /tmp/lca-timing.lock) for itself only. Prints every run's ratio lines and
# clock verdict, then per figure and build the median over the runs whose
# clock was not PREEMPTED (and how many were), with the full outputs in $OUT.
# APPS picks the commands (default: all of those below). PRIORITY (default
# -20, root only) is the runs' nice value: on a host where builds run at
# nice 19 beside them, -20 kept the lcores' run-queue wait under the
# verdict's 2 %.
set -u
old=$1 new=$2 cycles=${3:-1}
OUT=${OUT:-bench-out/abba-$(date -u +%Y%m%dT%H%M%SZ)}
LOCK=${LOCK:-/tmp/lca-timing.lock}
PRIORITY=${PRIORITY:--20}
APPS=${APPS:-"pinghops2 pinghops1 reqresp microbench circular"}
mkdir -p "$OUT"
eal=(--no-huge --no-pci --in-memory --log-level 'lib.*:error' --file-prefix lca_abba$$)

run_app() { # build app
	case $2 in
	pinghops2) "$1/apps/pinghops/lca-pinghops" -l 0-1 "${eal[@]}" -- ;;
	pinghops1) "$1/apps/pinghops/lca-pinghops" -l 0 "${eal[@]}" -- ;;
	reqresp) "$1/apps/reqresp/lca-reqresp" -l 0-1 "${eal[@]}" -- -i 4 -wi 2 -p throughput=1 \
		-p dispatcher=affinity,shared --placement round-robin,pairs-local,auto --quiet ;;
	microbench) "$1/apps/microbench/lca-microbench" -l 0-1 "${eal[@]}" -- \
		--scenario same-lcore,cross-lcore --runs 5 ;;
	circular) "$1/apps/circular/lca-circular" -l 0-1 "${eal[@]}" -- --actors 2 ;;
	*) echo "unknown app $2" >&2; return 2 ;;
	esac
}

for c in $(seq "$cycles"); do
	for tag in A B B A; do
		b=$old; [ "$tag" = B ] && b=$new
		for app in $APPS; do
			f=$OUT/$app-$tag-c$c-$(date +%H%M%S%N).txt
			flock "$LOCK" nice -n "$PRIORITY" bash -c "$(declare -f run_app); $(declare -p eal); run_app '$b' $app" \
				>"$f" 2>&1
			pre=$(grep -q '^clock: .*PREEMPTED' "$f" && echo PREEMPTED || echo ok)
			sed -n '/== verdict/,$p' "$f" | grep -E 'of its floor|× its floor' |
				sed -E "s/^/$tag $app [$pre] /"
		done
	done
done | tee "$OUT/lines.txt"

echo "== medians over runs not PREEMPTED (runs kept / all), A: $old, B: $new"
python3 - "$OUT/lines.txt" <<'EOF'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(A|B) (\S+) \[(\w+)\] (.+?): .*?([\d.]+) ?(%|×) (of )?its floor", line)
    if not m:
        continue
    tag, app, pre, fig, val = m.group(1), m.group(2), m.group(3), m.group(4), float(m.group(5))
    key = (app, fig.strip(), m.group(6))
    rows.setdefault(key, {"A": [], "B": []})
    rows[key][tag].append((val, pre == "ok"))
for (app, fig, unit), d in rows.items():
    cells = []
    for tag in "AB":
        kept = [v for v, ok in d[tag] if ok]
        med = f"{statistics.median(kept):.2f}" if kept else "—"
        cells.append(f"{tag} {med}{unit} ({len(kept)}/{len(d[tag])})")
    print(f"{app:10} {fig:40} " + "   ".join(cells))
EOF
