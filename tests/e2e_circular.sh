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
	--json "$tmp/out.json" >"$tmp/out" 2>&1
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
    # 3 warm-up rounds, 1 launch round not counted, 20 measured
    assert res['rounds'] == 24, res['rounds']
    assert res['handled'] == res['expected'] == 24 * 101, (res['handled'], res['expected'])
    assert len(res['time']['values']) == 20 and min(res['time']['values']) > 0
    assert len(res['lcore_of_actor']) == n
    t = res['time']
    assert t['ci_method'] == 'bootstrap' and t['unit'] == 'ns'
    assert t['ci_low'] <= t['mean'] <= t['ci_high'] and t['min'] <= t['p50'] <= t['p99'] <= t['max']
    assert len(res['throughput']['values']) == 20
    assert res['frequency']['monitor'] in ('ran', 'did not run')
assert 'floor' not in d['results'][0]  # one actor: nothing crosses
for res in d['results'][1:]:
    f = res['floor']
    assert sorted(f['lcores']) == [0, 1] and f['handoff_median_ns'] > 0, f
    assert abs(f['ratio_median_to_floor'] - res['time']['p50'] / f['round_ns']) < 1e-6 * f['ratio_median_to_floor'], f
    assert f['slots']['handoff_median_ns'] > 0 and f['slots']['ratio_median_to_floor'] > 0, f
assert d['results'][2]['cross_lcore_links'] == 50
assert sorted(set(d['results'][2]['lcore_of_actor'])) == [0, 1]
PY"
record_checks "$tmp/out.json" lca-circular

out=$("$exe" "${eal[@]}" -- --samples 2 --warmup 0 --hops 10 2>&1); rc=$?
check "default ring sizes run" "[ $rc -eq 0 ]"
check "duplicates of the default sizes dropped, and said" "grep -q '^# ring sizes: 1, 2, 3, lcores - 1 = 1, lcores = 2, 50; dropped: 1 (lcores - 1, a duplicate), 2 (lcores, a duplicate)$' <<<\"\$out\" && grep -q '^# run: 1, 2, 3, 50 actors$' <<<\"\$out\""
check "four ring sizes measured" "[ \$(grep -cE '^circular/circular \([0-9]+ actors?\)$' <<<\"\$out\") -eq 4 ]"

out=$("$exe" "${eal[@]}" -- --actors 3,3 --placement pack --samples 5 --warmup 1 --hops 50 2>&1); rc=$?
check "pack: all on one lcore" "[ $rc -eq 0 ] && grep -qE 'placement \(pack\): lcore 0: 0 1 2 \(3\); 0 of 3 ring links cross lcores' <<<\"\$out\""
check "a duplicate given is dropped, and said" "grep -q '^# ring sizes given: 3, 3; dropped: 3 (a duplicate)$' <<<\"\$out\""

for bad in "--actors 0" "--actors 1,,2" "--actors x" "--actors 99999" "--samples 1" "--samples abc" \
	"--hops 0" "--warmup -1" "--placement nowhere" "--frobnicate" "extra" "--json"; do
	out=$("$exe" "${eal[@]}" -- $bad 2>&1); rc=$?
	check "bad argument '$bad' exits 2 with a message" "[ $rc -eq 2 ] && [ -n \"\$out\" ]"
done
out=$("$exe" "${eal[@]}" -- --help 2>&1); rc=$?
check "--help exits 0 and lists --actors" "[ $rc -eq 0 ] && grep -q -- '--actors LIST' <<<\"\$out\""
harness_checks "$exe" lca-circular
out=$("$exe" "${eal[@]}" -- --topology 2>&1); rc=$?
check "--topology exits 0 and lists both lcores" "[ $rc -eq 0 ] && [ \$(grep -cE '^[01] ' <<<\"\$out\") -eq 2 ]"
finish
