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
	windows=$(grep -E '^[a-z-]+ +[^:]+: window: the shortest run took [0-9.]+ ms' <<<"$out" |
		awk -v t="$tick50_ms" '{ w = $0; sub(/.*shortest run took /, "", w); w += 0
			if (/floor.s shortest round/) { f = $0; sub(/.*shortest round /, "", f); if (f + 0 < w) w = f + 0 }
			if ((w < t) == /: shorter than 50 scheduler ticks/) n++ } END { print n + 0 }')
	check "burst $burst: a window per series (5), flagged when under 50 ticks" "[ $windows -eq 5 ]"
	check "burst $burst: --messages given: every run and floor round exactly 20000, none calibrated" "python3 - '$json' '${kernel_hz:-250}' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tick = 1 / int(sys.argv[2])
assert d['conf']['messages'] == 20000 and d['conf']['messages_calibrated'] is False, d['conf']
series = {r['name']: r for r in d['results'] if r['name'] != 'idle-ratio'}
for r in series.values():
    assert r['messages_per_run'] == 20000 and r['calibration'] is None, r
    if 'floor' in r:
        assert r['floor']['messages_per_round'] == 20000, r['floor']
for v in d['verdict']['rows']:
    r = series[v['config']]
    ws = r['time']['values'] + (r['floor']['time']['values'] if 'floor' in r else series['idle alone']['time']['values'])
    assert abs(v['window_s'] - min(ws) / 1e3) < 1e-9, (v, ws)
    assert ('short-window' in v['flags']) == (v['window_s'] < 50 * tick), v
PY"
	check "burst $burst: the record's path is the last line" "[ \"\$(tail -1 <<<\"\$out\")\" = 'record: $json' ]"
	record_checks "$json" lca-microbench
	printf '%s\n' "$out" >"$json.out"
	verdict_checks "$json.out" "$json" lca-microbench
done

# Without --messages: a pilot of at least 50 ms sets each count, its floor's apart.
out=$("$exe" "${eal[@]}" -- --runs 1 --timeout 60 --scenario same-lcore,idle --idle 100 \
	--json "$tmp/cal.json" 2>&1); rc=$?
check "calibrated: exits 0, says so in its header" "[ $rc -eq 0 ] && grep -q '^# microbench: messages per run calibrated: ' <<<\"\$out\""
check "calibrated: each count from its pilot, the crowd's the lone actor's" "python3 - '$tmp/cal.json' <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d['conf']['messages_calibrated'] is True, d['conf']
s = {r['name']: r for r in d['results'] if r['name'] != 'idle-ratio'}
want = lambda n, ms, target: max(n, math.ceil(n * target / ms))
for name in ('same-lcore burst 32', 'idle alone'):
    c = s[name]['calibration']
    assert c['warmup_ms'] >= 50 and c['target_ms'] >= 250, c
    assert abs(s[name]['messages_per_run'] - want(c['warmup_messages'], c['warmup_ms'], c['target_ms'])) <= 1, (name, c, s[name]['messages_per_run'])
c = s['same-lcore burst 32']['calibration']
assert c['floor_warmup_ms'] >= 50, c
assert abs(s['same-lcore burst 32']['floor']['messages_per_round'] - want(c['floor_warmup_messages'], c['floor_warmup_ms'], c['target_ms'])) <= 1, c
assert s['idle +100 idle']['messages_per_run'] == s['idle alone']['messages_per_run'], s
PY"

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
