#!/usr/bin/env bash
# lca-lifecycle end to end, with small counts: the three benches' lines and
# exact accounting (timer counters, failures = restarts = notices, every
# other message once in order, every feeder's messages once), the JSON
# record, --idle sleep, bad arguments, SIGINT. No figure is checked: the
# machine may be shared.
set -u
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_lifecycle --log-level 'lib.*:error')
fail=0
. "$(dirname "$0")/e2e_lib.sh"
small=(--timers 200 --inflight 8 --min-delay-us 100 --max-delay-us 2000 --ticks 50
	--messages 3000 --fail-every 50 --backoff-failures 6 --feeders 1,2,4,8 --per-feeder 2000)

"$exe" "${eal[@]}" -- "${small[@]}" --json "$tmp/out.json" --hgrm "$tmp/lc.hgrm" >"$tmp/out" 2>"$tmp/err"
rc=$?
out=$(cat "$tmp/out")
check "default benches exit 0" "[ $rc -eq 0 ]"
# --hgrm: each histogram as HdrHistogram's .hgrm, read as the format
# defines it (5 ticks a half distance), with the record's count.
for h in timers-loaded-one-shot:0:one_shot_lateness timers-loaded-periodic:0:periodic_lateness \
	timers-idle-one-shot:1:one_shot_lateness timers-idle-periodic:1:periodic_lateness \
	restart:2:restart_latency restart-backoff:3:restart_latency; do
	IFS=: read -r name k field <<<"$h"
	n=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][$k]['$field']['n'])" "$tmp/out.json" 2>/dev/null)
	check "--hgrm: $name.hgrm is HdrHistogram's percentile distribution of the record's $n values" \
		"grep -qF '  hgrm: $tmp/lc.$name.hgrm (values in us)' <<<\"\$out\" && /usr/bin/python3 '$here/check_hgrm.py' '$tmp/lc.$name.hgrm' --ticks 5 --count '$n'"
done
check "machine printed" "grep -q '^# machine: ' <<<\"\$out\""
check "the three benches ran, in order" "[ \"\$(grep -oE '^== (timers|restart|feeders)' <<<\"\$out\" | tr '\n' ' ')\" = '== timers == restart == feeders ' ]"
check "a clock verdict per scenario (2 timers, 2 restart, 4 feeders)" "[ \$(grep -cE '^  clock: ' <<<\"\$out\") -eq 8 ]"
check "one-shot and periodic lateness, under load and idle" "[ \$(grep -cE '^  one-shot lateness: +p50 +[0-9.]+  p99 +[0-9.]+  p99\.9 +[0-9.]+  max +[0-9.]+' <<<\"\$out\") -eq 2 ] && [ \$(grep -cE '^  periodic lateness: +p50 ' <<<\"\$out\") -eq 2 ]"
check "the idle policy is said" "[ \$(grep -cE '^  idle policy spin; ' <<<\"\$out\") -eq 2 ]"
check "one-shots: armed = fired + dropped, each once, both scenarios" "[ \$(grep -cE '^  one-shot: armed 400 = fired 400 \+ dropped 0 .*: 0 twice$' <<<\"\$out\") -eq 2 ]"
check "timer counters exact, both scenarios" "[ \$(grep -cE '^  runtime timer counters: .*: exact$' <<<\"\$out\") -eq 2 ]"
check "restart latency printed twice" "[ \$(grep -cE '^  restart latency: +p50 +[0-9.]+  p99 ' <<<\"\$out\") -eq 2 ]"
check "failures = failed_msgs = restarts = notices: exact" "grep -qE '^  injected failures 60: failed_msgs 60, failures 60, restarts 60, state_init runs 61 \(1 \+ restarts\), LCA_TYPE_FAILED notices 60 \(0 wrong\): exact$' <<<\"\$out\""
check "nothing else lost" "grep -qE '^  other messages: 2940 of 2940 handled once, in order \(0 out of order\); handled 3001 = sent 3000 \+ 1 closing; .*: nothing lost$' <<<\"\$out\""
check "backoff: 6 failures exact" "grep -qE '^  injected failures 6: .*notices 6 \(0 wrong\): exact$' <<<\"\$out\""
check "backoff: the pauses double" "grep -qx '  pauses in the notices (us): 100 200 400 800 1000 1000' <<<\"\$out\" && grep -qx '  the pause doubles from 100 us up to 1000 us: yes' <<<\"\$out\""
check "four feeder counts, each exact" "[ \$(grep -cE '^  received [0-9]+ = [1248] x 2000, each feeder.s in order, none twice \(0 out of order\).*: exact$' <<<\"\$out\") -eq 4 ]"
check "feeders: no stall" "[ \$(grep -cE ' msg/s \(.*: no stall$' <<<\"\$out\") -eq 4 ] && ! grep -q STALLED <<<\"\$out\""
check "feeders: threads against CPUs said" "[ \$(grep -cE '^  [0-9]+ feeder threads? \+ 2 lcore threads \(busy-polling\) on [0-9]+ CPUs?: (threads exceed CPUs|no more threads than CPUs)' <<<\"\$out\") -eq 4 ]"
check "accounting line" "grep -qx 'Accounting: every count exact' <<<\"\$out\""
check "timers: three floor rounds around the two scenarios" "[ \$(grep -cE '^  floor lateness: +p50 +[0-9.]+  p99 ' <<<\"\$out\") -eq 3 ]"
check "timers: each scenario's ratio to its floor, before and after" "[ \$(grep -cE '^  against its floor \(rte_timer in a plain loop.*\): one-shot lateness p50 [0-9.]+ us = [0-9.]+x the floor.s before it \([0-9.]+ us\), [0-9.]+x after' <<<\"\$out\") -eq 2 ]"
check "verdict: the timers against their floor, the others say why none" "grep -qE '^timers, lcores idle: [0-9.e+-]+ us one-shot lateness p50  [0-9.]+× its floor' <<<\"\$out\" && [ \$(grep -cE '^(restart,|feeders) .*  no floor: ' <<<\"\$out\") -eq 6 ]"
check "the record's path is the last line" "[ \"\$(tail -1 <<<\"\$out\")\" = 'record: $tmp/out.json' ]"
# Every scenario's window printed; "shorter than" exactly when under 50 ticks.
windows=$(grep -E '^  window: .* took [0-9.]+ ms' <<<"$out" |
	awk -v t="$tick50_ms" '{ w = $0; sub(/.* took /, "", w); sub(/ ms.*/, "", w)
		if ((w + 0 < t) == /: shorter than 50 scheduler ticks/) n++ } END { print n + 0 }')
check "a window per scenario (8), flagged when under 50 ticks" "[ $windows -eq 8 ]"
check "every count given: none calibrated" "! grep -q 'calibrating' <<<\"\$out\""
check "JSON: each verdict row's window is its scenario's, flagged against the tick" "python3 - '$tmp/out.json' '${kernel_hz:-250}' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tick = 1 / int(sys.argv[2])
for r, v in zip(d['results'], d['verdict']['rows']):
    assert r['window_s'] > 0 and v['window_s'] == r['window_s'], (r['name'], v)
    assert ('short-window' in v['flags']) == (v['window_s'] < 50 * tick), v
assert [r['messages'] for r in d['results'][2:4]] == [3000, 301], d['results'][2:4]
assert all(r['per_feeder'] == 2000 for r in d['results'][4:]), d['results'][4:]
PY"
check "JSON: counts exact, the timers' floor, a verdict row per scenario" "python3 - '$tmp/out.json' <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d['app'] == 'lca-lifecycle' and d['ok'] is True
c = d['conf']
assert c['benchmark'] == 'lifecycle' and c['bench'] == ['timers', 'restart', 'feeders'], c
assert c['feeders'] == [1, 2, 4, 8] and c['idle'] == 'spin', c
names = [r['name'] for r in d['results']]
assert names == ['timers, lcores under load', 'timers, lcores idle', 'restart, no backoff',
                 'restart, backoff 100..1000 us', 'feeders 1', 'feeders 2', 'feeders 4', 'feeders 8'], names
for r in d['results']:
    assert r['exact'] is True, r['name']
    assert r['frequency']['monitor'] in ('ran', 'did not run')
for r in d['results'][:2]:
    t, n = r['timer_stats'], r['counts']
    assert n['one_shot_armed'] == n['one_shot_received'] == 400, n
    assert n['one_shot_twice'] == 0, n
    assert t['armed'] == 401 and t['fired'] == 400 and t['ticks'] == n['ticks_received'], t
    assert t['dropped'] == 0, t
    assert t['active'] == 0 and t['cancelled'] == 1 and n['ticks_received'] >= 50, t
    assert r['one_shot_lateness']['n'] == 400 and r['periodic_lateness']['n'] == n['ticks_received']
    o = r['one_shot_lateness']
    assert o['p50'] <= o['p99'] <= o['p99_9'] <= o['max'] * 1.001, o
for r, k in zip(d['results'][2:4], (60, 6)):
    n = r['counts']
    assert n['injected'] == n['failed_msgs'] == n['failures'] == n['restarts'] == n['notices'] == k, n
    assert n['state_inits'] == k + 1 and n['bad_notices'] == 0 and n['out_of_order'] == 0, n
    assert n['handled_ok'] == n['expected_ok'], n
    # every restart measured, the last failure's too
    assert r['restart_latency']['n'] == k, (r['name'], r['restart_latency']['n'], k)
assert d['results'][3]['pauses_us'] == [100, 200, 400, 800, 1000, 1000]
assert None not in d['results'][3]['latency_us_each']
pos = lambda v: isinstance(v, (int, float)) and math.isfinite(v) and v > 0
for r in d['results'][:2]:
    f = r['floor']
    assert f['what'].startswith('rte_timer in a plain loop') and len(f['one_shot_lateness']) == 2, f
    assert all(x['n'] == 400 for x in f['one_shot_lateness']), f
    assert len(f['ratios']) == 2 and all(pos(x) for x in f['ratios']) and pos(f['ratio_median']), f
    assert abs(f['ratios'][0] - r['one_shot_lateness']['p50'] / f['one_shot_lateness'][0]['p50']) < 1e-6 * f['ratios'][0], f
    assert pos(r['window_s']), r
rows = d['verdict']['rows']
assert [row['config'] for row in rows] == names, rows
for row in rows[:2]:
    assert row['floor'] and row['kind'] == 'time' and len(row['ratios']) == 2 and pos(row['ratio_median']), row
for row in rows[2:]:
    assert row['floor'] is None and row['no_floor_why'] and row['ratio_median'] is None and pos(row['score']), row
for r, f in zip(d['results'][4:], (1, 2, 4, 8)):
    assert r['feeders'] == f and r['received'] == r['expected'] == f * 2000, r
    assert r['stalled'] is False and r['out_of_order'] == 0 and r['throughput']['n'] == 1, r
PY"
record_checks "$tmp/out.json" lca-lifecycle
verdict_checks "$tmp/out" "$tmp/out.json" lca-lifecycle

# Counts under --window-ms: a run that measured less is not kept, and runs
# again with more, a few times at most; the record holds the kept one.
"$exe" "${eal[@]}" -- --bench restart,feeders --feeders 1 --messages 1000 --fail-every 500 \
	--backoff-failures 2 --per-feeder 1000 --window-ms 30 --json "$tmp/win.json" >"$tmp/win" 2>&1
rc=$?
check "--window-ms: exits 0, exact" "[ $rc -eq 0 ] && grep -qx 'Accounting: every count exact' '$tmp/win'"
check "--window-ms: each short run rerun with more, the long enough kept" "python3 - '$tmp/win' '$tmp/win.json' <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().split('\n')
lines = lines[:lines.index('== verdict ==')]
d = json.load(open(sys.argv[2]))
kept = {r['name']: r for r in d['results']}
assert len(kept) == len(d['results']), [r['name'] for r in d['results']]  # the short runs dropped
for name, key in (('restart, no backoff', 'messages'), ('feeders 1', 'per_feeder')):
    starts = [i for i, l in enumerate(lines) if l.startswith(name + ':')]
    count = 1000
    for k, i in enumerate(starts):
        win = next(l for l in lines[i:] if l.startswith('  window: '))
        w = float(re.search(r' took ([0-9.]+) ms', win).group(1))
        end = next(j for j in range(i + 1, len(lines) + 1) if j == len(lines) or not lines[j].startswith('  '))
        nxt = next((l for l in lines[i:end] if l.startswith('  calibrating:')), '')
        calib = re.match(r'  calibrating: (\d+) took ([0-9.]+) ms, under 30 ms: this run is not kept; again with (\d+) ', nxt)
        if k < len(starts) - 1:
            assert w < 30 and calib and int(calib.group(1)) == count, (name, win, nxt)
            assert int(calib.group(3)) > count, nxt
            count = int(calib.group(3))
        else:
            assert not calib and (w >= 30 or len(starts) == 4), (name, win, nxt)
    assert kept[name][key] == count and abs(kept[name]['window_s'] * 1e3 - w) < 0.1, (name, kept[name])
    if name == 'feeders 1':
        assert kept[name]['received'] == count, kept[name]
PY"

out=$("$exe" "${eal[@]}" -- --bench timers --idle sleep --sleep-us 200 --timers 50 --inflight 4 \
	--max-delay-us 1000 --ticks 20 2>&1); rc=$?
check "--idle sleep: timers only, exact" "[ $rc -eq 0 ] && [ \$(grep -cE '^  idle policy sleep \(sleeps\); ' <<<\"\$out\") -eq 2 ] && ! grep -q '^== restart' <<<\"\$out\" && grep -qx 'Accounting: every count exact' <<<\"\$out\""
check "--idle sleep: the sleep is said" "grep -q 'idle policy sleep (200 us sleeps after 1000 empty loops)' <<<\"\$out\""

# SIGINT in each bench ends the run (exit 1, "interrupted").
for b in "timers --ticks 1000000" "restart --messages 1000000000" "feeders --feeders 8 --per-feeder 1000000000"; do
	"$exe" "${eal[@]}" -- --bench $b >"$tmp/int" 2>&1 &
	pid=$!
	for _ in $(seq 300); do grep -qE '^(timers, lcores|restart, no|feeders 8:)' "$tmp/int" && break; sleep 0.1; done
	sleep 0.3
	kill -INT $pid
	for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then kill -KILL $pid; fi
	wait $pid; rc=$?
	check "SIGINT during ${b%% *} ends the run" "[ $rc -eq 1 ] && grep -q 'interrupted' '$tmp/int' && ! grep -qiE 'objects out|segmentation' '$tmp/int'"
done

for bad in "--hgrm /nonexistent/dir/lc.hgrm" "--bench" "--bench nope" "--bench timers,timers" "--bench timers,,feeders" "--idle nope" \
	"--sleep-us 0" "--sleep-us 100001" "--timers 0" "--timers 1x" "--inflight 1025" \
	"--min-delay-us 500 --max-delay-us 100" "--period-us 1" "--ticks -1" "--fail-every 1" \
	"--messages 10 --fail-every 100" "--backoff-failures 100001" "--window-ms 0" "--feeders 0" "--feeders 1,65" \
	"--feeders 1,2,3,4,5,6,7,8,9" "--per-feeder x" "--stall-s 0" "--frobnicate" "extra" "--json"; do
	out=$("$exe" "${eal[@]}" -- $bad 2>&1); rc=$?
	msg=$(grep -vE '^(lcactor: |Try )' <<<"$out")
	check "bad argument '$bad' exits 2 with one line" "[ $rc -eq 2 ] && [ \$(wc -l <<<\"\$msg\") -eq 1 ] && [ -n \"\$msg\" ]"
done
out=$("$exe" "${eal[@]}" -- --help 2>&1); rc=$?
check "--help exits 0" "[ $rc -eq 0 ] && grep -q '^Usage: ' <<<\"\$out\""
for o in bench idle sleep-us timers inflight min-delay-us max-delay-us period-us ticks messages \
	fail-every backoff-failures feeders per-feeder stall-s window-ms json; do
	check "--help lists --$o" "grep -q -- '  --$o ' <<<\"\$out\""
done
harness_checks "$exe" lca-lifecycle
finish
