#!/usr/bin/env bash
# lca-reqresp end to end: a short run of both dispatchers at throughput 1
# and 50, its output parsed (counts, invocation lines, JMH table, efficiency,
# placement, frequency report) and its JSON checked; then bad arguments.
set -u
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_reqresp --log-level 'lib.*:error')
fail=0
. "$(dirname "$0")/e2e_lib.sh"

"$exe" "${eal[@]}" -- --queries 2000 --users 5000 -i 2 -wi 1 --invocations 1 \
	-p throughput=1,50 -p dispatcher=affinity,shared --json "$tmp/out.json" \
	--jmh-json "$tmp/jmh.json" >"$tmp/out" 2>&1
rc=$?
out=$(cat "$tmp/out")
check "short run exits 0" "[ $rc -eq 0 ]"
# 1 inline + 2 dispatchers x 2 throughputs, each 1 warm-up + 2 measured
# invocations; each affinity iteration followed by one of its floor.
check "every invocation line counts 16000 messages" \
	"[ \$(grep -cE '^(# Warmup Iteration +1: |Iteration +[12]: |# Warmup floor iteration +1: |# Floor iteration +[12]: )?  16000 messages by 8 actors took [0-9]+ ms, [0-9.]+ M msg/s$' <<<\"\$out\") -eq 21 ]"
# w/i: a warm-up/measured iteration, v/f: a floor's; inline, affinity x 2, shared x 2.
order=$(sed -nE 's/^# Warmup Iteration .*/w/p; s/^# Warmup floor iteration .*/v/p; s/^Iteration .*/i/p; s/^# Floor iteration .*/f/p' <<<"$out" | tr -d '\n')
check "each affinity iteration is followed by its floor's ($order)" "[ '$order' = wiiwvififwvififwiiwii ]"
check "JMH table header" "grep -qE '^Benchmark +\(dispatcher\) +\(mailbox\) +\(throughPut\) +\(placement\) +Mode +Cnt +Score +Error +Units$' <<<\"\$out\""
for row in "affinity +mp +1 +round-robin" "affinity +mp +50 +round-robin" "shared +mp +1 +-" \
	"shared +mp +50 +-" "inline +- +- +-" "floor +- +1 +round-robin" "floor +- +50 +round-robin"; do
	check "table row: $row" "grep -qE 'RequestResponseBenchmark.queryUserServiceActor +$row +thrpt +2 +[0-9.]+ ' <<<\"\$out\""
done
check "affinity against its floor, pair by pair" "[ \$(grep -cE '^runtime efficiency: [0-9.]+% of its floor \(median of 2 pairs of rounds, [0-9.]+% to [0-9.]+%\) \(dispatcher affinity' <<<\"\$out\") -eq 2 ]"
check "shared has no floor" "[ \$(grep -cE '^runtime efficiency: floor n/a \(dispatcher shared' <<<\"\$out\") -eq 2 ]"
check "Result blocks" "[ \$(grep -c '^Result \"lcactor.RequestResponseBenchmark.queryUserServiceActor\":' <<<\"\$out\") -eq 5 ] && [ \$(grep -c '^Result \"lcactor.RequestResponseBenchmark.queryUserServiceActor floor\":' <<<\"\$out\") -eq 2 ]"
check "every set prints its window" "[ \$(grep -cE '^window: the shortest measured iteration took [0-9]+ ms' <<<\"\$out\") -eq 5 ]"
check "the last line is the record's path" "[ \"\$(tail -n 1 <<<\"\$out\")\" = 'record: $tmp/out.json' ]"
check "placement of 8 actors" "[ \$(grep -cE '^[0-9]+ +[QS][0-3] +[01] +[0-9]+ +[0-9]+ ' <<<\"\$out\") -eq 8 ]"
check "service databases on their node" "[ \$(grep -cE '^[0-9]+ +S[0-3] .*100% of sampled pages' <<<\"\$out\") -eq 4 ]"
check "a frequency verdict per set" "[ \$(grep -cE '^  \(dispatcher = [a-z]+, mailbox = [a-z]+, throughPut = [0-9]+\): ' <<<\"\$out\") -eq 5 ]"
check "the frequency report and its verdict" "grep -qE '^lcore +cpu +source +samples' <<<\"\$out\" && grep -q '^Clock verdict: ' <<<\"\$out\""
check "no send failures" "grep -q 'send failures: mailbox full 0, no actor 0, stopped 0, pool empty 0, node down 0, too big 0, invalid 0, other 0' <<<\"\$out\""
check "JSON is valid and complete" "python3 - '$tmp/out.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['conf']['actors'] == 8 and d['conf']['queries'] == 2000 and d['conf']['idle'] == 'spin'
# inline, then affinity and shared at throughput 1 and 50 (and any floor rows)
measured = [r for r in d['results'] if r['dispatcher'] != 'floor']
assert len(measured) == 5, [r['name'] for r in d['results']]
for s in d['results']:
    for it in s['iterations']:
        for inv in it['invocations']:
            assert inv['messages'] == 16000, inv
    assert s['throughput']['mean'] > 0 and s['throughput']['unit'] == 'ops/s'
    assert s['frequency']['monitor'] in ('ran', 'did not run')
assert len(d['placement']) == 8
assert d['machine']['lcores'] == 2
PY"
check "each affinity row against its own floor row, pair by pair; shared without one" "python3 - '$tmp/out.json' <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
by_name = {r['name']: r for r in d['results']}
rows = {v['config']: v for v in d['verdict']['rows']}
assert sorted(rows) == ['affinity mp tp=1', 'affinity mp tp=50', 'inline', 'shared mp tp=1', 'shared mp tp=50'], sorted(rows)
close = lambda a, b: abs(a - b) <= 1e-9 * max(abs(a), abs(b))
for r in d['results']:
    v = rows.get(r['dispatcher'] + ' mp tp=%d' % r['throughput_per_turn'])
    if r['dispatcher'] == 'affinity':
        f = by_name[r['floor_row']]
        assert f['dispatcher'] == 'floor' and f['beside'] == r['name'], f['name']
        mine, its = r['throughput']['values'], f['throughput']['values']
        assert len(mine) == len(its) == 2
        ratios = [a / b for a, b in zip(mine, its)]
        assert all(close(a, b) for a, b in zip(ratios, r['ratio_to_floor_row'])), ratios
        assert all(close(a, b) for a, b in zip(ratios, v['ratios'])), v
        assert close(r['pct_of_floor_row'], 100 * (ratios[0] + ratios[1]) / 2)
        moved = 100 * (max(its) - min(its)) / min(its)
        assert close(r['floor_row_moved_pct'], moved) and close(v['floor_moved_pct'], moved)
        assert v['moved'] == (moved > 20) and ('moved' in v['flags']) == (moved > 20), v
        assert v['floor'] and v['no_floor_why'] is None
        assert close(v['window_s'], min(r['window_s'], min(i['window_s'] for i in f['iterations'] if not i['warmup'])))
    elif r['dispatcher'] in ('shared', 'inline'):
        v = v or rows['inline']
        assert r.get('floor_row') is None and 'ratio_to_floor_row' not in r, r['name']
        assert v['floor'] is None and v['ratios'] == [] and v['no_floor_why'], v
        assert (r['dispatcher'] == 'shared') == ('no_floor_why' in r)
    if r['dispatcher'] != 'floor':
        assert close(v['score'], r['throughput']['p50'] / 1e6), (v, r['throughput'])
        assert v['unit'] == 'M msg/s'
        # The ± of the median is the median's own interval (order
        # statistics at 99.9 %), none when the iterations are too few.
        vals = sorted(r['throughput']['values'])
        n, cdf, j = len(vals), 0.0, 0
        for k in range((n + 1) // 2):
            cdf += math.comb(n, k) / 2 ** n
            if cdf > 0.0005:
                break
            j = k + 1
        med = (vals[(n - 1) // 2] + vals[n // 2]) / 2
        half = max(med - vals[j - 1], vals[n - j] - med) / 1e6 if j else None
        assert (v['ci_half'] is None) if half is None else close(v['ci_half'], half), (v['ci_half'], half)
        assert ('unreliable' in v['flags']) == (half is not None and half > v['score'] / 2), v
PY"
record_checks "$tmp/out.json" lca-reqresp
# --jmh-json: JMH's -rf json shape, read as JMH's format defines it, one
# entry a table row, its rawData the record's measured iterations.
check "--jmh-json: JMH's result JSON, each entry consistent with its rawData" \
	"/usr/bin/python3 '$here/check_jmh.py' '$tmp/jmh.json' --unit ops/s --entries 7 \
	--param dispatcher=affinity,mailbox=mp,throughPut=50 --param dispatcher=floor,throughPut=1 \
	--param dispatcher=inline,mailbox=-,throughPut=-"
check "--jmh-json: rawData are the record's measured iterations, row by row" "python3 - '$tmp/jmh.json' '$tmp/out.json' <<'PY'
import json, sys
jmh, rec = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert [e['benchmark'] for e in jmh] == ['lcactor.RequestResponseBenchmark.queryUserServiceActor'] * 7
assert all(e['measurementIterations'] == 2 and e['warmupIterations'] == 1 for e in jmh)
def key(r):
    tp = '-' if r['dispatcher'] == 'inline' else str(r['throughput_per_turn'])
    return (r['dispatcher'], tp)
want = {key(r): r['throughput']['values'] for r in rec['results']}
got = {(e['params']['dispatcher'], e['params']['throughPut']): e['primaryMetric']['rawData'][0] for e in jmh}
assert got == want, (got, want)
PY"
verdict_checks "$tmp/out" "$tmp/out.json" lca-reqresp

out=$("$exe" "${eal[@]}" -- --queries 500 --users 100 -i 1 -wi 0 --invocations 1 \
	-p dispatcher=affinity -p mailbox=sp,rts,hts --placement pairs-local --idle pause --quiet 2>&1); rc=$?
check "mailbox modes sp, rts, hts with pairs-local and --idle pause run" "[ $rc -eq 0 ] && [ \$(grep -cE 'affinity +(sp|rts|hts) +1 +pairs-local +thrpt' <<<\"\$out\") -eq 3 ]"

# SIGINT in the inline phase (the first set, no runtime loop) ends the run.
"$exe" "${eal[@]}" -- --queries 4000000000 -i 1 -wi 0 --invocations 1 -p dispatcher=affinity \
	>"$tmp/int" 2>&1 &
pid=$!
# The harness prints lcore 1's isolation just before the first set, inline.
wait_for_line "$tmp/int" '^# isolation: CPU [0-9]+ \(lcore 1\)' 60 $pid
kill -INT $pid
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
check "SIGINT during the inline ceiling ends the run, and says so" "! kill -0 $pid 2>/dev/null && grep -q 'interrupted' $tmp/int"
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null

# Round-robin crosses every pair; auto moves them together while it runs,
# keeping the lcores within 1.25 x the mean: on 2 lcores that is each pair on
# one lcore, 2 pairs a lcore, at least one move per pair. Both in one run
# (make run's), each affinity row with its own floor.
"$exe" "${eal[@]}" -- --queries 300000 --users 1000 -i 1 -wi 0 --invocations 1 \
	-p dispatcher=affinity --placement round-robin,auto --quiet --json "$tmp/auto.json" >"$tmp/auto" 2>&1
rc=$?
check "placement auto runs and logs its moves" "[ $rc -eq 0 ] && grep -qE '^Moves \(placement auto\): ([4-9]|[1-9][0-9]+); 4 of 4 pairs now on one lcore$' $tmp/auto"
check "round-robin and auto side by side: a table row, a floor row and a verdict row each" \
	"[ \$(grep -cE 'queryUserServiceActor +affinity +mp +1 +(round-robin|auto) +thrpt' $tmp/auto) -eq 2 ] && [ \$(grep -cE 'queryUserServiceActor +floor +- +1 +(round-robin|auto) +thrpt' $tmp/auto) -eq 2 ] && grep -qE '^affinity mp tp=1: .* of its floor' $tmp/auto && grep -qE '^affinity mp tp=1 auto: .* of its floor' $tmp/auto"
check "placement auto's floor ran at the placement auto ended with; round-robin's across every pair" "python3 - '$tmp/auto.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
by_name = {r['name']: r for r in d['results']}
assert d['conf']['placements'] == ['round-robin', 'auto'], d['conf']
rr, aff = [r for r in d['results'] if r['dispatcher'] == 'affinity']
assert rr['placement_policy'] == 'round-robin' and aff['placement_policy'] == 'auto', (rr['name'], aff['name'])
assert aff['name'] == 'affinity mp throughPut 1 placement auto', aff['name']
fl = by_name[aff['floor_row']]
ended = {(p['pair'], p['role']): p['lcore'] for p in aff['actor_placement']}
want = [(k, ended[(k, 'Q')], ended[(k, 'S')]) for k in range(4)]
got = [(p['pair'], p['q_lcore'], p['s_lcore']) for p in fl['placement']]
assert got == want, (got, want)
local = sum(q == s for _, q, s in got)
assert local == aff['moves']['pairs_local'], (local, aff['moves'])
# round-robin's own floor: the spawn placement, every pair across the lcores
rfl = by_name[rr['floor_row']]
assert rfl is not fl and all(p['q_lcore'] != p['s_lcore'] for p in rfl['placement']), rfl['placement']
assert 'moves' not in rr
PY"
check "placement auto's moves in the JSON" "python3 - '$tmp/auto.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
aff = [r for r in d['results'] if r.get('placement_policy') == 'auto'][0]
m = aff['moves']
assert m['count'] >= 4 and len(m['log']) == m['count'], m
for e in m['log']:
    assert e['from'] != e['to'] and e['from'] in (0, 1) and e['to'] in (0, 1), e
    assert e['why'].startswith('auto:') and e['state_on_node_pct'] == 100, e
PY"

for bad in "--placement auto," "--jmh-json /nonexistent/dir/j.json" "--actors 7" "--actors 0" "-p throughput=0" "-p throughput=1,,5" "-p dispatcher=fork" \
	"-p speed=1" "--placement nowhere" "--idle nap" "-i abc" "-wi -1" "--mailbox xx" "-r 0" "--frobnicate" "extra"; do
	out=$("$exe" "${eal[@]}" -- $bad 2>&1); rc=$?
	check "bad argument '$bad' exits 2 with a message" "[ $rc -eq 2 ] && [ -n \"\$out\" ]"
done
out=$("$exe" "${eal[@]}" -- --help 2>&1); rc=$?
check "--help exits 0 and lists -p" "[ $rc -eq 0 ] && grep -q -- '-p dispatcher=LIST' <<<\"\$out\""
harness_checks "$exe" lca-reqresp
finish
