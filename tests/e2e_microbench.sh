#!/usr/bin/env bash
# lca-microbench end to end: a tiny run of every scenario (with bursts and
# without), the JSON record, and bad arguments.
set -u
exe=$1
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_mb --log-level 'lib.*:error')
tiny=(--messages 20000 --runs 1 --timeout 60)
fail=0
. "$(dirname "$0")/e2e_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json=$tmp/mb.json

run_re='run 1: 20000 msgs in [0-9.]+ ms = [0-9.]+ M msg/s'
for burst in 32 1; do
	out=$("$exe" "${eal[@]}" -- "${tiny[@]}" --burst "$burst" --json "$json" 2>&1); rc=$?
	check "burst $burst: tiny run exits 0" "[ $rc -eq 0 ]"
	for sc in same-lcore cross-lcore many-to-one; do
		check "burst $burst: $sc measured" \
			"grep -qE '^$sc +burst $burst: $run_re, ENOBUFS retries [0-9]+ \\([0-9]+ msgs re-sent\\)' <<<\"\$out\""
		check "burst $burst: $sc summary" \
			"grep -qE '^$sc +burst $burst: mean [0-9.]+ M msg/s, min [0-9.]+, max [0-9.]+ \\(1 runs\\)' <<<\"\$out\""
		check "burst $burst: $sc floor round and its ratio" \
			"grep -qE '^$sc +burst $burst: floor 1: 20000 msgs in [0-9.]+ ms = [0-9.]+ M msg/s; run / floor = [0-9.]+%\$' <<<\"\$out\""
		check "burst $burst: $sc verdict row with its floor ratio" \
			"grep -qE '^$sc burst $burst: [0-9.e+]+ M msg/s  [0-9.]+ % of its floor; floor: ' <<<\"\$out\""
	done
	check "burst $burst: idle alone measured" "grep -qE '^idle +alone: $run_re' <<<\"\$out\""
	check "burst $burst: idle crowd measured" "grep -qE '^idle +\\+10000 idle: $run_re' <<<\"\$out\""
	check "burst $burst: idle ratio printed" \
		"grep -qE '^busy actor keeps [0-9.]+% of its single-actor rate' <<<\"\$out\""
	check "burst $burst: machine header" "grep -q '^# machine: ' <<<\"\$out\""
	check "burst $burst: lcore table" "grep -qE '^lcore +cpu +turns +loops +busy%' <<<\"\$out\""
	check "burst $burst: send errors line" \
		"grep -qE '^send failures: mailbox full [0-9]+, no actor 0, stopped 0, pool empty 0' <<<\"\$out\""
	check "burst $burst: every message counted" "grep -q '^result: ok' <<<\"\$out\""
	check "burst $burst: JSON record written" \
		"python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"ok\"] and d[\"machine\"][\"cpus_online\"] > 0 and len(d[\"results\"]) == 6' \"$json\""
	check "burst $burst: a measure and a frequency record per series" "python3 - '$json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
series = [r for r in d['results'] if r['name'] != 'idle-ratio']
assert len(series) == 5
for r in series:
    assert r['throughput']['n'] == 1 and r['throughput']['unit'] == 'Mmsg/s', r['throughput']
    assert r['time']['values'][0] > 0
    assert r['frequency']['monitor'] in ('ran', 'did not run')
assert d['frequency']['verdict'] in ('stable', 'unstable', 'no_data')
PY"
	check "burst $burst: a floor per stream series and a verdict row per scenario" "python3 - '$json' $burst <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
burst = sys.argv[2]
pos = lambda v: isinstance(v, (int, float)) and math.isfinite(v) and v > 0
streams = {r['scenario']: r for r in d['results'] if r.get('scenario') in ('same-lcore', 'cross-lcore', 'many-to-one')}
assert sorted(streams) == ['cross-lcore', 'many-to-one', 'same-lcore'], streams.keys()
for sc, r in streams.items():
    f = r['floor']
    assert f['what'] and f['throughput']['n'] == 1 and pos(f['throughput']['values'][0]), f
    assert len(f['ratios']) == 1 and pos(f['ratios'][0]) and pos(f['ratio_median']), f
    assert abs(f['ratios'][0] - r['throughput']['values'][0] / f['throughput']['values'][0]) < 1e-6, f
    assert f['moved_pct'] is None, f  # one round: no spread
rows = {row['config']: row for row in d['verdict']['rows']}
want = ['same-lcore burst ' + burst, 'cross-lcore burst ' + burst, 'many-to-one burst ' + burst, 'idle +10000 idle']
assert sorted(rows) == sorted(want), rows.keys()
for name, row in rows.items():
    assert row['floor'] and row['no_floor_why'] is None and row['kind'] == 'rate', row
    assert len(row['ratios']) == 1 and pos(row['ratio_median']) and pos(row['score']), row
    if name in streams:
        assert row['floor'] == streams[name.split()[0]]['floor']['what'], row
PY"
	check "burst $burst: the record's path is the last line" "[ \"\$(tail -1 <<<\"\$out\")\" = 'record: $json' ]"
	record_checks "$json" lca-microbench
done

out=$("$exe" "${eal[@]}" -- "${tiny[@]}" --scenario cross-lcore,idle --burst 8 2>&1); rc=$?
check "--scenario subset exits 0" "[ $rc -eq 0 ]"
check "--scenario subset runs only those" \
	"grep -qE '^cross-lcore +burst 8: run 1' <<<\"\$out\" && ! grep -qE '^(same-lcore|many-to-one) ' <<<\"\$out\""

out=$("$exe" "${eal[@]}" -- --help 2>&1); rc=$?
check "--help exits 0" "[ $rc -eq 0 ] && grep -q -- '--burst N' <<<\"\$out\""
# More idle actors than EAL's memory holds: refused before any run.
out=$("$exe" "${eal[@]}" -- --scenario idle --idle 1000000 2>&1); rc=$?
check "--idle beyond EAL's memory exits 2 before any run" "[ $rc -eq 2 ] && grep -q 'needs about' <<<\"\$out\" && ! grep -q 'run 1:' <<<\"\$out\""
harness_checks "$exe" lca-microbench

bad() { # name, expected message, args...
	local name=$1 msg=$2; shift 2
	out=$("$exe" "${eal[@]}" -- "$@" 2>&1); rc=$?
	check "$name exits 2" "[ $rc -eq 2 ]"
	check "$name is named" "grep -qF -- \"$msg\" <<<\"\$out\""
}
bad "bad number" "bad value 'lots' for --messages" --messages lots
bad "zero burst" "bad value '0' for --burst" --burst 0
bad "unknown scenario" "unknown scenario 'fast'" --scenario same-lcore,fast
bad "empty scenario item" "bad value 'idle,' for --scenario" --scenario idle,
bad "mailbox size not a power of two" "bad value '1000' for --mailbox-size" --mailbox-size 1000
bad "burst above batch" "must not exceed --batch" --burst 64 --batch 32
bad "unknown option" "unknown option '--bogus'" --bogus
bad "missing value" "needs a value" --runs
out=$("$exe" -l 0 --no-huge --no-pci --in-memory --file-prefix lca_test_mb1 -- --scenario cross-lcore 2>&1); rc=$?
check "cross-lcore on one lcore exits 2" "[ $rc -eq 2 ] && grep -q 'need 2 lcores' <<<\"\$out\""
finish
