#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lca-pipeline between two processes over net_memif (issue 20's memif target):
# a sender forwards net_null's UDP frames into a memif (io engine, one
# lcore on --sender-cpu); a receiver on --receiver-cpu counts --messages of
# them with one engine a process, and frees them (--sink drop).
#
# The engines take turns in ABBA order (A B C, C B A, ...), each --reps times
# (at least 3), a fresh pair of processes a run, so a drift of the machine
# falls on all alike. Each run must be exact (the receiver's accounting and
# pool) or the script stops. It prints every sample, the median and the
# spread ((max - min) / median) of each engine, and each engine's median as
# a ratio to plain's and as a share of io's (the receiver's ceiling: memif
# RX straight to the sink). A ratio is printed only where the gap between
# the medians is larger than the larger spread.
#
# Two busy-polling lcores, one on each CPU of a 2-CPU machine: the kernel and
# anything else share them (the script says so).
# Usage: scripts/pipeline-memif.sh [--build DIR] [--messages N] [--reps N]
#          [--engines LIST] [--sender-cpu C] [--receiver-cpu C] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
messages=5000000
reps=3
engines=lcactor,plain,io
scpu=0
rcpu=1
out=""
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=$2; shift 2 ;;
	--messages) messages=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--engines) engines=$2; shift 2 ;;
	--sender-cpu) scpu=$2; shift 2 ;;
	--receiver-cpu) rcpu=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--help) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "pipeline-memif: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
[[ "$messages" =~ ^[0-9]+$ && "$messages" -ge 1000 ]] || { echo "pipeline-memif: --messages must be a number, at least 1000" >&2; exit 2; }
[[ "$reps" =~ ^[0-9]+$ && "$reps" -ge 3 ]] || { echo "pipeline-memif: --reps must be at least 3 (a median and a spread need them)" >&2; exit 2; }
[[ "$scpu" =~ ^[0-9]+$ && "$rcpu" =~ ^[0-9]+$ && "$scpu" != "$rcpu" ]] || { echo "pipeline-memif: --sender-cpu and --receiver-cpu must be two CPU numbers" >&2; exit 2; }
[[ "$engines" =~ ^(lcactor|plain|io)(,(lcactor|plain|io))*$ ]] || { echo "pipeline-memif: --engines takes lcactor, plain and io" >&2; exit 2; }
exe=$build/apps/pipeline/lca-pipeline
[ -x "$exe" ] || { echo "pipeline-memif: $exe is not built (meson compile -C $build)" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/pipeline-memif.XXXXXX)
mkdir -p "$out"
echo "# pipeline-memif: $(date -u '+%F %T UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
	"commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); files in $out"
echo "# two busy-polling lcores: the sender on CPU $scpu, the receiver on CPU $rcpu (on $(nproc) CPUs)"

common=(--no-huge --no-pci --in-memory --log-level 'lib.*:error')
IFS=, read -r -a list <<<"$engines"
order=()
for ((r = 0; r < reps; r++)); do
	if ((r % 2 == 0)); then order+=("${list[@]}"); else
		for ((k = ${#list[@]} - 1; k >= 0; k--)); do order+=("${list[k]}"); done
	fi
done
n=0
for e in "${order[@]}"; do
	n=$((n + 1))
	sock=$out/run$n.sock
	"$exe" -l "$scpu" "${common[@]}" --file-prefix "plm_s$n" --vdev net_null0 \
		--vdev "net_memif0,role=server,socket=$sock" -- --source port --port 0 --tx-port 1 \
		--engine io --duration-ms 600000 --timeout 700 >"$out/sender$n.log" 2>&1 &
	spid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
	rc=0
	"$exe" -l "$rcpu" "${common[@]}" --file-prefix "plm_r$n" \
		--vdev "net_memif0,role=client,socket=$sock" -- --source port --engine "$e" \
		--messages "$messages" --sink drop --timeout 120 --json "$out/run$n.json" \
		>"$out/receiver$n.log" 2>&1 || rc=$?
	kill -INT "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true # DPDK 22.11's memif may crash once its peer is gone
	python3 - "$out/run$n.json" "$e" "$rc" "$n" <<'PY' || { echo "pipeline-memif: run $n ($e) failed: $out/receiver$n.log" >&2; exit 1; }
import json, sys
path, e, rc, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
assert rc == 0, "exit %d" % rc
d = json.load(open(path))
r = d["results"][0]["runs"][0]
assert d["results"][0]["engine"] == e and r["exact"] and r["pools_full"], r
print("run %-3s %-8s %12.0f pkt/s  clock %s %s" % (n, e, r["msg_per_s"], r["frequency"]["verdict"],
                                                  r["frequency"]["reason"] or ""))
PY
done
python3 - "$out" "$n" <<'PY'
import json, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
by = {}
for k in range(1, n + 1):
    d = json.load(open("%s/run%d.json" % (out, k)))
    by.setdefault(d["results"][0]["engine"], []).append(d["results"][0]["runs"][0]["msg_per_s"])
med = {e: statistics.median(v) for e, v in by.items()}
spread = {e: (max(v) - min(v)) / med[e] for e, v in by.items()}
print("\nengine        median pkt/s   spread  samples")
for e, v in by.items():
    print("%-10s %15.0f %7.1f%%  %s" % (e, med[e], 100 * spread[e], ", ".join("%.2f M" % (x / 1e6) for x in v)))
for e in by:
    for f in ("plain", "io"):
        if f == e or f not in by or (e == "io" and f == "plain"):
            continue
        gap = abs(med[e] - med[f]) / max(med[e], med[f])
        if gap > max(spread[e], spread[f]):
            print("%s / %s: %.2fx" % (e, f, med[e] / med[f]))
        else:
            print("%s / %s: no ratio: the gap %.1f%% is within the spread %.1f%% (median %.2fx)"
                  % (e, f, 100 * gap, 100 * max(spread[e], spread[f]), med[e] / med[f]))
PY
