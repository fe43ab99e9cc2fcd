#!/usr/bin/env bash
# lca-circular end to end: short runs of rings of 1, 2 and 50 actors on 2
# lcores (the one-actor ring sends to itself), their criterion-shaped output
# and their JSON counts; the default ring sizes with duplicates dropped;
# pack placement; then bad arguments.
set -u
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_circular --log-level 'lib.*:error')
fail=0
. "$(dirname "$0")/e2e_lib.sh"
num='[0-9]+(\.[0-9]+)?'
t="$num (ps|ns|µs|ms|s)"
r="$num (elem|Kelem|Melem|Gelem)/s"

"$exe" "${eal[@]}" -- --actors 1,2,50 --samples 20 --warmup 3 --hops 100 \
	--iterations 2 --window-ms 0 --json "$tmp/out.json" >"$tmp/out" 2>&1
rc=$?
out=$(cat "$tmp/out")
check "short run exits 0" "[ $rc -eq 0 ]"
for n in "1 actor" "2 actors" "50 actors"; do
	check "criterion block for $n" "grep -qx 'circular/circular ($n)' <<<\"\$out\""
done
check "three time lines" "[ \$(grep -cE '^ {24}time: +\[ *$t +$t +$t\]$' <<<\"\$out\") -eq 3 ]"
check "three thrpt lines" "[ \$(grep -cE '^ {24}thrpt: +\[ *$r +$r +$r\]$' <<<\"\$out\") -eq 3 ]"
check "median and p99 of a round" "[ \$(grep -cE '^ {24}median: \[ *$t\]  p99: \[ *$t\]  \(a round of 100 hops' <<<\"\$out\") -eq 3 ]"
check "the method is described" "grep -q '^# Method: the lcore loops keep running across rounds' <<<\"\$out\""
check "machine printed" "grep -q '^# machine: ' <<<\"\$out\""
check "one actor: its own next, on one lcore" "grep -qE 'placement \(round-robin\): lcore 0: 0 \(1\); 0 of 1 ring links' <<<\"\$out\""
check "two actors cross lcores" "grep -qE 'lcore 0: 0 \(1\); lcore 1: 1 \(1\); 2 of 2 ring links cross lcores' <<<\"\$out\""
check "50 actors: 25 per lcore, every link crosses" "grep -qE 'lcore 0: 0 2 4 .* \.\.\. \(25\); lcore 1: 1 3 5 .* \.\.\. \(25\); 50 of 50 ring links cross lcores' <<<\"\$out\""
check "a floor and its ratio for each ring that crosses lcores" "[ \$(grep -cE '^ {24}floor:  \[ *$t\]  \(one line bounced between lcores [01] and [01], CPUs [0-9]+ and [0-9]+: [0-9.]+ ns a hand-off, x [0-9]+ of [0-9]+ hops crossing\)  ratio: \[[0-9.]+x\]$' <<<\"\$out\") -eq 2 ]"
check "the slot floor under it" "[ \$(grep -cE '^ {24}slots:  \[ *$t\]  \(a 64-byte slot each way between the same lcores, no runtime: [0-9.]+ ns a hand-off\)  ratio: \[[0-9.]+x\]$' <<<\"\$out\") -eq 2 ]"
check "the ratio of each pair of iterations, its spread and the floor's move" "[ \$(grep -cE '^ {24}pairs:  ring / line floor, each floor right after its iteration: [0-9.]+x [0-9.]+x; spread [0-9.]+x to [0-9.]+x; the floor moved [0-9.]+% between its rounds' <<<\"\$out\") -eq 2 ]"
# "shorter than" exactly when the shortest of the ring's and its floors' windows is under 50 ticks.
windows=$(grep -E '^ {24}window: the shortest iteration took [0-9.]+ ms' <<<"$out" |
	awk -v t="$tick50_ms" '{ w = $6; if (/its floors/) { if ($10 < w) w = $10; if ($12 < w) w = $12 }
		if ((w < t) == /: shorter than 50 scheduler ticks/) n++ } END { print n + 0 }')
check "each ring size prints its window, flagged when short" "[ $windows -eq 3 ]"
check "the last line is the record's path" "[ \"\$(tail -n 1 <<<\"\$out\")\" = 'record: $tmp/out.json' ]"
check "summary table" "[ \$(grep -cE '^(1|2|50) +round-robin +[0-9]+ of [0-9]+ ' <<<\"\$out\") -eq 3 ]"
check "a frequency verdict per ring size" "[ \$(grep -cE '^  (1|2|50) actors: ' <<<\"\$out\") -eq 3 ]"
check "the frequency report" "grep -qE '^lcore +cpu +source +samples' <<<\"\$out\" && grep -q '^Clock verdict: ' <<<\"\$out\""
check "JSON is valid and every count exact" "python3 - '$tmp/out.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['conf']['benchmark'] == 'circular' and d['app'] == 'lca-circular'
assert d['conf']['hops'] == 100 and d['conf']['samples'] == 20, d['conf']
assert d['conf']['actors'] == [1, 2, 50], d['conf']['actors']
assert d['machine']['lcores'] == 2
assert len(d['results']) == 3
for res, n in zip(d['results'], [1, 2, 50]):
    assert res['actors'] == n
    # 3 warm-up rounds; 2 iterations, each 1 launch round not counted and 10 measured
    assert res['rounds'] == 25, res['rounds']
    assert res['handled'] == res['expected'] == 25 * 101, (res['handled'], res['expected'])
    assert [i['rounds'] for i in res['iterations']] == [10, 10], res['iterations']
    assert len(res['time']['values']) == 20 and min(res['time']['values']) > 0
    assert len(res['lcore_of_actor']) == n
    t = res['time']
    assert t['ci_method'] == 'bootstrap' and t['unit'] == 'ns'
    assert t['ci_low'] <= t['mean'] <= t['ci_high'] and t['min'] <= t['p50'] <= t['p99'] <= t['max']
    assert len(res['throughput']['values']) == 20
    assert res['frequency']['monitor'] in ('ran', 'did not run')
assert 'floor' not in d['results'][0]  # one actor: nothing crosses
close = lambda a, b: abs(a - b) <= 1e-9 * max(abs(a), abs(b))
tick = 1 / int('${kernel_hz:-250}' or 250)
rows = d['verdict']['rows']
assert [v['config'] for v in rows] == ['1 actor round-robin', '2 actors round-robin', '50 actors round-robin'], rows
assert rows[0]['floor'] is None and rows[0]['no_floor_why'] and rows[0]['ratios'] == [], rows[0]
for res, v in zip(d['results'][1:], rows[1:]):
    f = res['floor']
    assert sorted(f['lcores']) == [0, 1] and f['handoff_median_ns'] > 0, f
    for kind in (f, f['slots']):
        pairs = kind['pairs']
        assert len(pairs) == 2 and all(p['handoff_median_ns'] > 0 for p in pairs), pairs
        # each pair: the ring's iteration over the floor measured right after it
        for p, it in zip(pairs, res['iterations']):
            assert close(p['round_ns'], p['handoff_median_ns'] * 100 * res['cross_lcore_links'] / res['actors']), p
            assert close(p['ratio'], it['median_ns'] / p['round_ns']), (p, it)
        assert close(kind['ratio_median_to_floor'], (pairs[0]['ratio'] + pairs[1]['ratio']) / 2), kind
        h = [p['handoff_median_ns'] for p in pairs]
        assert close(kind['moved_pct'], 100 * (max(h) - min(h)) / min(h)), kind
    assert all(close(a, p['ratio']) for a, p in zip(v['ratios'], f['pairs'])), v
    assert close(v['floor_moved_pct'], f['moved_pct']) and v['moved'] == (f['moved_pct'] > 20), v
    assert ('moved' in v['flags']) == (f['moved_pct'] > 20), v
    assert close(v['score'], res['time']['p50'] / 100) and v['unit'] == 'ns/hop', v
    assert close(v['window_s'], min(res['window_s'], f['window_s'], f['slots']['window_s'])), v
    assert ('short-window' in v['flags']) == (v['window_s'] < 50 * tick), v
assert d['results'][2]['cross_lcore_links'] == 50
assert sorted(set(d['results'][2]['lcore_of_actor'])) == [0, 1]
PY"
record_checks "$tmp/out.json" lca-circular
verdict_checks "$tmp/out" "$tmp/out.json" lca-circular

out=$("$exe" "${eal[@]}" -- --samples 2 --warmup 0 --hops 10 --iterations 1 --window-ms 20 2>&1); rc=$?
check "default ring sizes run" "[ $rc -eq 0 ]"
check "an iteration runs rounds until its window is up" "[ \$(grep -cE '^ {24}window: the shortest iteration took (2[0-9]|[3-9][0-9]|[0-9]{3,})\.[0-9] ms' <<<\"\$out\") -eq 4 ]"
check "duplicates of the default sizes dropped, and said" "grep -q '^# ring sizes: 1, 2, 3, lcores - 1 = 1, lcores = 2, 50; dropped: 1 (lcores - 1, a duplicate), 2 (lcores, a duplicate)$' <<<\"\$out\" && grep -q '^# run: 1, 2, 3, 50 actors$' <<<\"\$out\""
check "four ring sizes measured" "[ \$(grep -cE '^circular/circular \([0-9]+ actors?\)$' <<<\"\$out\") -eq 4 ]"

out=$("$exe" "${eal[@]}" -- --actors 3,3 --placement pack --samples 5 --warmup 1 --hops 50 --window-ms 0 2>&1); rc=$?
check "pack: all on one lcore" "[ $rc -eq 0 ] && grep -qE 'placement \(pack\): lcore 0: 0 1 2 \(3\); 0 of 3 ring links cross lcores' <<<\"\$out\""
check "a duplicate given is dropped, and said" "grep -q '^# ring sizes given: 3, 3; dropped: 3 (a duplicate)$' <<<\"\$out\""

for bad in "--actors 0" "--actors 1,,2" "--actors x" "--actors 99999" "--samples 1" "--samples abc" \
	"--hops 0" "--warmup -1" "--placement nowhere" "--iterations 0" "--iterations 101" \
	"--window-ms x" "--frobnicate" "extra" "--json"; do
	out=$("$exe" "${eal[@]}" -- $bad 2>&1); rc=$?
	check "bad argument '$bad' exits 2 with a message" "[ $rc -eq 2 ] && [ -n \"\$out\" ]"
done
out=$("$exe" "${eal[@]}" -- --help 2>&1); rc=$?
check "--help exits 0 and lists --actors" "[ $rc -eq 0 ] && grep -q -- '--actors LIST' <<<\"\$out\""
harness_checks "$exe" lca-circular
out=$("$exe" "${eal[@]}" -- --topology 2>&1); rc=$?
check "--topology exits 0 and lists both lcores" "[ $rc -eq 0 ] && [ \$(grep -cE '^[01] ' <<<\"\$out\") -eq 2 ]"
finish
