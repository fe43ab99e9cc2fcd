#!/usr/bin/env bash
# lca-pinghops end to end: short runs (100, 1 and 0 hops, one worker, more
# initial pings than the master sends in a turn), their seed-shaped lines,
# every message count checked in the JSON; then bad arguments.
set -u
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_pinghops --log-level 'lib.*:error')
fail=0
. "$(dirname "$0")/e2e_lib.sh"

# counts FILE WORKERS PINGS HOPS RUNS: every run's accounting is exact.
counts() {
	python3 - "$@" <<'PY'
import json, sys
path, workers, pings, hops, runs = sys.argv[1], *map(int, sys.argv[2:6])
d = json.load(open(path))
c = d['conf']
assert (c['workers'], c['pings'], c['hops'], c['runs']) == (workers, pings, hops, runs), c
res = d['results'][0]
assert len(res['runs']) == runs and res['time']['n'] == runs
for r in res['runs']:
    assert r['worker_expected'] == pings * (hops + 1) + r['flushes'], r
    assert r['worker_handled'] == r['worker_expected'], r
    assert r['master_expected'] == pings + 1 + r['continues'], r
    assert r['master_handled'] == r['master_expected'], r
    assert r['continues'] >= (pings - 1) // 1024, r
    assert r['ms'] > 0
assert abs(res['average_ms'] - sum(r['ms'] for r in res['runs']) / runs) < 1e-6
assert len(d['placement']) == workers + 1
assert d['placement'][-1]['role'] == 'master'
assert res['frequency']['monitor'] in ('ran', 'did not run') and d['machine']['lcores'] == 2
# A floor round before each run, on the same lcores, its ratio per pair.
fl = res['floor']
assert len(fl['ms']) == runs and all(f > 0 for f in fl['ms']) and fl['time']['n'] == runs, fl
ratios = fl['ratios']
assert len(ratios) == runs, ratios
for r, f, x in zip(res['runs'], fl['ms'], ratios):
    assert abs(x - r['ms'] / f) <= 1e-6 * x, (x, r['ms'], f)
assert fl['ratio_min'] <= fl['ratio_median'] <= fl['ratio_max']
assert (fl['moved_pct'] is None) == (runs == 1)
row, = d['verdict']['rows']
assert row['ratios'] == ratios and row['floor'].startswith('the same pings'), row
# Each run repeats its pings until the passes took the window; its time
# is the mean pass, and the verdict judges the shortest window.
win = float(sys.argv[6]) if len(sys.argv) > 6 else 200.0
assert len(res['window_ms']) == len(res['passes']) == runs
for r, w, p in zip(res['runs'], res['window_ms'], res['passes']):
    assert p >= 1 and (w >= win or win == 0) and (win > 0 or p == 1), (w, p, win)
    assert abs(r['ms'] * p - w) <= 1e-3 * w + 1e-6, (r['ms'], p, w)
assert abs(row['window_s'] - min(res['window_ms']) / 1e3) < 1e-9, row
PY
}

"$exe" "${eal[@]}" -- --pings 2000 --hops 20 --runs 3 --json "$tmp/out.json" >"$tmp/out" 2>&1
rc=$?
out=$(cat "$tmp/out")
check "short run exits 0" "[ $rc -eq 0 ]"
check "parameters as the seed prints them" "grep -q '^Number of actors / workers: 8$' <<<\"\$out\" && grep -q '^Number of initial messages: 2000$' <<<\"\$out\" && grep -q '^Number of hops: 20$' <<<\"\$out\" && grep -q '^Repetitions: 3$' <<<\"\$out\""
check "a start line per run" "[ \$(grep -cE '^Master start run #[1-3]$' <<<\"\$out\") -eq 3 ]"
check "a result line per run, in the seed's shape" "[ \$(grep -cE '^Run #[1-3] ended! Time = [0-9]+\.[0-9]{3}ms$' <<<\"\$out\") -eq 3 ]"
check "the average" "grep -qE '^Average execution time = [0-9]+\.[0-9]{4} ms$' <<<\"\$out\""
check "start, end and shutdown lines" "grep -q '^Start pinging around: ' <<<\"\$out\" && grep -q '^End: ' <<<\"\$out\" && grep -q '^Repetitions reached. Broadcasting shutdown...$' <<<\"\$out\""
check "accounting: 2000 x 21 worker deliveries" "grep -q 'workers = pings x (hops + 1) = 2000 x 21 = 42000' <<<\"\$out\""
check "accounting rows all ok" "[ \$(grep -cE '^ +[1-3] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +ok$' <<<\"\$out\") -eq 3 ]"
check "placement of 8 workers and the master, round-robin" "[ \$(grep -cE '^[0-9]+ +worker [0-7] +[01] +[0-9]+$' <<<\"\$out\") -eq 8 ] && grep -qE '^8 +master +0 +[0-9]+$' <<<\"\$out\""
check "the frequency report" "grep -qE '^lcore +cpu +source +samples' <<<\"\$out\" && grep -q '^Clock verdict: ' <<<\"\$out\""
check "JSON valid, counts exact" "counts '$tmp/out.json' 8 2000 20 3"
check "a window line per run: passes until 200 ms, every pass counted" "[ \$(grep -cE '^  window: [0-9]+ pass(es)? in [0-9.]+ ms, every pass.s counts exact\$' <<<\"\$out\") -eq 3 ]"
record_checks "$tmp/out.json" lca-pinghops
verdict_checks "$tmp/out" "$tmp/out.json" lca-pinghops
check "a floor line per run, and the ratios' median and spread" "[ \$(grep -cE '^  floor round #[1-3]: [0-9.]+ ms a pass over [0-9]+ pass(es)?; runtime / floor = [0-9.]+x\$' <<<\"\$out\") -eq 3 ] && grep -qE '^Runtime / floor \(.*\): median [0-9.]+x, spread [0-9.]+x - [0-9.]+x over 3 pairs; the floor.s rounds moved [0-9.]+%' <<<\"\$out\""

for hops in 1 0; do
	out=$("$exe" "${eal[@]}" -- --pings 500 --hops $hops --runs 2 --json "$tmp/h$hops.json" 2>&1); rc=$?
	check "$hops hop(s): exits 0" "[ $rc -eq 0 ]"
	check "$hops hop(s): counts exact" "counts '$tmp/h$hops.json' 8 500 $hops 2"
done
out=$("$exe" "${eal[@]}" -- --workers 1 --pings 300 --hops 5 --runs 1 --placement pack \
	--seed 7 --throughput 1 --json "$tmp/one.json" 2>&1); rc=$?
check "one worker, pack, throughput 1: exits 0, counts exact" "[ $rc -eq 0 ] && counts '$tmp/one.json' 1 300 5 1"
out=$("$exe" "${eal[@]}" -- --pings 500 --hops 5 --runs 2 --window-ms 0 --json "$tmp/w0.json" 2>&1); rc=$?
check "--window-ms 0: one pass a run, the seed's shape, flagged short" "[ $rc -eq 0 ] && counts '$tmp/w0.json' 8 500 5 2 0 && grep -q '^  short window: ' <<<\"\$out\""
check "pack: every actor on lcore 0" "[ \$(grep -cE '^[0-9]+ +(worker 0|master) +0 +[0-9]+$' <<<\"\$out\") -eq 2 ]"

for bad in "--workers 0" "--workers x" "--pings 0" "--pings 1,2" "--hops -1" "--runs 0" \
	"--seed x" "--throughput 0" "--placement nowhere" "--bogus" "extra" "--json" \
	"--window-ms x" "--window-ms -1"; do
	out=$("$exe" "${eal[@]}" -- $bad 2>&1); rc=$?
	check "bad argument '$bad' exits 2 with a message" "[ $rc -eq 2 ] && [ -n \"\$out\" ]"
done
out=$("$exe" "${eal[@]}" -- --help 2>&1); rc=$?
check "--help exits 0 and lists --hops" "[ $rc -eq 0 ] && grep -q -- '--hops N' <<<\"\$out\""
# Interrupted while workers hold refused pings: every envelope is freed.
"$exe" "${eal[@]}" -- --pings 200000 --runs 50 >"$tmp/int" 2>&1 &
pid=$!
# The master says it started the first run: the workers then hold pings.
wait_for_line "$tmp/int" '^Master start run #1$' 60 $pid
kill -INT $pid
wait $pid
check "SIGINT mid-run frees every envelope" "grep -q 'interrupted' $tmp/int && ! grep -q 'objects out' $tmp/int"
harness_checks "$exe" lca-pinghops
out=$("$exe" "${eal[@]}" -- --topology 2>&1); rc=$?
check "--topology exits 0" "[ $rc -eq 0 ] && [ \$(grep -cE '^[01] ' <<<\"\$out\") -eq 2 ]"
finish
