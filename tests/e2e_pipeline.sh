#!/usr/bin/env bash
# lca-pipeline end to end: short runs of the three engines, their seed-shaped
# lines, exact accounting of every engine (in the output and the JSON), odd
# sizes, the cross layout, one lcore; then bad arguments, SIGINT, a time-out.
set -u
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_pipeline --log-level 'lib.*:error')
fail=0
. "$(dirname "$0")/e2e_lib.sh"

# exact FILE MESSAGES ENGINES...: every run of every engine counted every message.
exact() {
	python3 - "$@" <<'PY'
import json, sys
path, messages, engines = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
d = json.load(open(path))
assert d['ok'] is True, 'ok'
assert d['conf']['engines'] == engines, d['conf']['engines']
assert [r['engine'] for r in d['results']] == engines
for res in d['results']:
    assert res['throughput']['n'] == d['conf']['runs'] and res['mean_msg_per_s'] > 0, res['name']
    assert set(res['ratios']) == set(engines) - {res['engine']}, res['ratios']
    for r in res['runs']:
        assert r['exact'] and r['status'] == 'done', r
        assert r['produced'] == r['processed'] == messages and r['in_flight'] == 0, r
        assert r['count_errors'] == 0 and r['out_of_order'] == 0, r
        assert 0 < r['measured'] <= messages and r['measured_s'] > 0, r
        assert sum(l['processed'] for l in r['lcores']) == messages
        assert sum(l['produced'] for l in r['lcores']) == messages
        assert r['frequency']['monitor'] in ('ran', 'did not run')
    assert res['frequency']['monitor'] in ('ran', 'did not run')
if 'lcactor' in engines:
    assert len(d['placement']) == d['conf']['partitions']
    assert all(p['role'].startswith('task p') for p in d['placement'])
assert len(d['conf']['partition_lcores']) == d['conf']['partitions']
# The verdict: lcactor against plain run by run when plain ran, the others why not.
close = lambda a, b: abs(a - b) <= 1e-9 * max(abs(a), abs(b))
rows = {v['config']: v for v in d['verdict']['rows']}
assert sorted(rows) == sorted(engines), rows
by = {r['engine']: r for r in d['results']}
for e, v in rows.items():
    vals = by[e]['throughput']['values']
    assert close(v['score'], by[e]['throughput']['p50'] / 1e6) and v['unit'] == 'M msg/s', v
    w = min(sum(p['measured_s'] for p in by[e]['runs'] if p['run'] == k) for k in range(1, d['conf']['runs'] + 1))
    if e == 'lcactor' and 'plain' in engines:
        floor = by['plain']['throughput']['values']
        assert all(close(a, b / f) for a, b, f in zip(v['ratios'], vals, floor)) and len(v['ratios']) == len(vals), v
        moved = 100 * (max(floor) - min(floor)) / min(floor) if len(floor) > 1 else None
        assert (v['floor_moved_pct'] is None) if moved is None else close(v['floor_moved_pct'], moved), v
        assert v['moved'] == (moved is not None and moved > 20), v
        wp = min(sum(p['measured_s'] for p in by['plain']['runs'] if p['run'] == k) for k in range(1, d['conf']['runs'] + 1))
        assert close(v['window_s'], min(w, wp)), v
    else:
        assert v['floor'] is None and v['no_floor_why'] and v['ratios'] == [], v
        assert close(v['window_s'], w), (v, w)
PY
}

seed_line() { # ENGINE: the seed's sentence, in its words
	echo "^$1: after the initial warm-up \(~[0-9.]+s\), the test processes [0-9]+ messages in [0-9.]+s \([0-9.]+s-[0-9.]+s\)\. This comes out to ~[0-9,]+ messages/sec \([0-9]+/[0-9.]+\)\.$"
}

"$exe" "${eal[@]}" -- --messages 200000 --engine lcactor,eventdev,plain --json "$tmp/all.json" \
	>"$tmp/all" 2>&1
rc=$?
out=$(cat "$tmp/all")
check "three engines: exits 0" "[ $rc -eq 0 ]"
for e in lcactor eventdev plain; do
	check "$e: the seed's line" "grep -qE '$(seed_line $e)' <<<\"\$out\""
done
check "an exact accounting line per engine" "[ \$(grep -cE '^  accounting: produced 200000 = processed 200000 \+ in flight 0 \(of 200000\): exact; 0 \(stream, partition\) counts off, 0 out of offset order$' <<<\"\$out\") -eq 3 ]"
check "the vdev added for eventdev, and said" "grep -q 'added --vdev event_dsw0' <<<\"\$out\" && grep -q -- '--vdev event_dsw0' <<<\"\$out\""
check "side by side with ratios" "grep -qE '^lcactor +[0-9]+ +[0-9.]+ +[0-9.]+x eventdev, [0-9.]+x plain$' <<<\"\$out\" && grep -qE '^plain +[0-9]+ +[0-9.]+ +[0-9.]+x lcactor, [0-9.]+x eventdev$' <<<\"\$out\""
check "Samza's published figure shown as such, never as a ratio to this run" "grep -q \"^The published figure, not a ratio to this run: Samza's container in SAMZA-245-3\" <<<\"\$out\" && ! grep -q 'x Samza' <<<\"\$out\""
# One pass with --messages given; "shorter than" exactly when under 50 scheduler ticks.
windows=$(grep -E '^  window: (lcactor|eventdev|plain) run 1 measured [0-9.]+ ms over 1 pass of --messages' <<<"$out" |
	awk -v t="$tick50_ms" '{ if (($6 < t) == /: shorter than 50 scheduler ticks/) n++ } END { print n + 0 }')
check "a window line per run, one pass, flagged when short" "[ $windows -eq 3 ]"
check "the last line is the record's path" "[ \"\$(tail -n 1 <<<\"\$out\")\" = 'record: $tmp/all.json' ]"
check "placement: 4 partitions over lcores 0 and 1, sources local" "[ \$(grep -cE '^[0-3] +[0-9]+ +[01] +[0-9]+ +[0-9]+ +[01] +1000 +50000$' <<<\"\$out\") -eq 4 ]"
check "per-lcore rows, stage rows" "[ \$(grep -cE '^  [01] +[0-9]+ +[0-9]+ +[0-9]+ ' <<<\"\$out\") -eq 6 ] && [ \$(grep -cE '^  (source|task) +[0-9]+ ' <<<\"\$out\") -eq 6 ]"
check "a clock verdict per engine, and the frequency report" "[ \$(grep -c '^  clock: ' <<<\"\$out\") -eq 3 ] && grep -q '^Clock verdict: ' <<<\"\$out\""
check "JSON: every engine's accounting exact" "exact '$tmp/all.json' 200000 lcactor eventdev plain"
check "lcactor carries records in mbufs by default, and says so" "grep -q '^# lcactor carries each record in an mbuf' <<<\"\$out\" && grep -q '(--carrier mbuf)' <<<\"\$out\" && grep -q 'tasks are actors (records in mbufs) ==' <<<\"\$out\" && python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))[\"conf\"][\"carrier\"] == \"mbuf\"' '$tmp/all.json'"
record_checks "$tmp/all.json" lca-pipeline
verdict_checks "$tmp/all" "$tmp/all.json" lca-pipeline

# Odd sizes: remainders everywhere (messages over partitions and streams,
# bursts and batches that do not divide them), two runs each, engines reordered.
out=$("$exe" "${eal[@]}" -- --messages 100003 --streams 7 --partitions 3 --batch 3 --burst 5 \
	--throughput 3 --mailbox 64 --watermark 40 --warmup-messages 1 --runs 2 \
	--engine plain,lcactor --json "$tmp/odd.json" 2>&1); rc=$?
check "odd sizes, 2 runs: exits 0, exact" "[ $rc -eq 0 ] && exact '$tmp/odd.json' 100003 plain lcactor"
# The envelope carrier: the message path, with the same remainders, and
# crossing lcores through the channels.
for layout in local cross; do
	out=$("$exe" "${eal[@]}" -- --carrier envelope --messages 100003 --streams 7 --partitions 3 \
		--batch 3 --burst 5 --throughput 3 --mailbox 64 --watermark 40 --layout $layout \
		--warmup-messages 1 --engine lcactor,plain --json "$tmp/env.json" 2>&1); rc=$?
	check "--carrier envelope, $layout: exits 0, exact, in envelopes" "[ $rc -eq 0 ] && exact '$tmp/env.json' 100003 lcactor plain && grep -q 'tasks are actors (records in envelopes) ==' <<<\"\$out\" && python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))[\"conf\"][\"carrier\"] == \"envelope\"' '$tmp/env.json'"
done
out=$("$exe" "${eal[@]}" -- --messages 200000 --layout cross --engine lcactor,plain,eventdev \
	--json "$tmp/cross.json" 2>&1); rc=$?
check "cross layout: exits 0, exact" "[ $rc -eq 0 ] && exact '$tmp/cross.json' 200000 lcactor plain eventdev"
check "cross layout: sources on the other lcore" "[ \$(grep -cE '^[0-3] +[0-9]+ +([01]) +[0-9]+ +[0-9]+ +(1 +1000 .*|0 +1000 .*)$' <<<\"\$out\") -eq 4 ] && grep -q 'layout cross' <<<\"\$out\""
out=$("$exe" -l 0 --no-huge --no-pci --in-memory --file-prefix lca_test_pipeline \
	--log-level 'lib.*:error' --vdev event_dsw0 -- --messages 50000 \
	--engine eventdev,lcactor,plain --json "$tmp/one.json" 2>&1); rc=$?
check "one lcore, vdev given: exits 0, exact, nothing added" "[ $rc -eq 0 ] && exact '$tmp/one.json' 50000 eventdev lcactor plain && ! grep -q 'added --vdev' <<<\"\$out\""

# The defaults: lcactor and its floor plain, each run repeating --messages
# until it measured 200 ms.
out=$("$exe" "${eal[@]}" -- --json "$tmp/def.json" 2>&1); rc=$?
check "defaults: exits 0, exact, lcactor beside plain" "[ $rc -eq 0 ] && exact '$tmp/def.json' 10000000 lcactor plain"
check "defaults: each run repeats its passes until it measured 200 ms" "python3 - '$tmp/def.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for res in d['results']:
    passes = [p['pass'] for p in res['runs']]
    assert passes == list(range(1, len(passes) + 1)), passes
    s = [p['measured_s'] for p in res['runs']]
    assert sum(s) >= 0.2 and sum(s[:-1]) < 0.2, s
    assert res['throughput']['values'][0] * sum(s) == sum(p['measured'] for p in res['runs']) or abs(res['throughput']['values'][0] * sum(s) / sum(p['measured'] for p in res['runs']) - 1) < 1e-9
v = {r['config']: r for r in d['verdict']['rows']}
assert v['lcactor']['floor'] and len(v['lcactor']['ratios']) == 1 and v['lcactor']['window_s'] >= 0.2, v
assert ('short-window' in v['lcactor']['flags']) == (v['lcactor']['window_s'] < 50 / int('${kernel_hz:-250}')), v
PY"

# 20 M messages: plain takes 2 M in about 3 ms here, so a 2 ms warm-up on
# a preempted lcore could leave it nothing to measure (CI saw it: exit 1).
out=$("$exe" "${eal[@]}" -- --messages 20000000 --warmup-ms 2 --engine plain,lcactor \
	--json "$tmp/ms.json" 2>&1); rc=$?
check "--warmup-ms: exits 0, exact" "[ $rc -eq 0 ] && exact '$tmp/ms.json' 20000000 plain lcactor && grep -q '^# Warm-up: 2 ms' <<<\"\$out\"" ||
	echo "$out" | grep -vE '^ +[0-9]' | tail -8 | sed 's/^/# /'
out=$("$exe" "${eal[@]}" -- --messages 20000 --warmup-ms 100000 --engine plain 2>&1); rc=$?
check "a warm-up longer than the run: exits 1, says nothing was measured" "[ $rc -eq 1 ] && grep -q 'nothing measured' <<<\"\$out\""

for bad in "--engine foo" "--engine lcactor,lcactor" "--engine lcactor," "--engine" \
	"--source kafka" "--streams 0" "--streams 1000001" "--partitions 0" \
	"--partitions 1025" "--batch 0" "--messages 0" "--messages x" "--messages -5" \
	"--warmup-messages 200000 --messages 200000" "--warmup-ms 5 --warmup-messages 5" \
	"--warmup-ms 0" "--layout diagonal" "--burst 0" "--burst 257" "--throughput 0" \
	"--mailbox 1000" "--mailbox 1024 --watermark 1024" "--runs 0" "--timeout 0" \
	"--streams 1000000 --partitions 8" "--carrier" "--carrier pigeon" "--bogus" "extra"; do
	out=$("$exe" "${eal[@]}" -- $bad 2>&1); rc=$?
	check "bad argument '$bad' exits 2 with a message" "[ $rc -eq 2 ] && grep -qE 'lca-pipeline: |unknown option|unexpected argument|needs a value' <<<\"\$out\""
done
out=$("$exe" "${eal[@]}" -- --source port 2>&1); rc=$?
check "--source port with no port exits 2 (tests/e2e_pipeline_port.sh covers ports)" "[ $rc -eq 2 ] && grep -q 'no port to read' <<<\"\$out\""
out=$("$exe" "${eal[@]}" --vdev net_null0 -- --source port --carrier mbuf 2>&1); rc=$?
check "--carrier with --source port exits 2" "[ $rc -eq 2 ] && grep -q -- '--carrier goes with --source mock' <<<\"\$out\""
out=$("$exe" -l 0 --no-huge --no-pci --in-memory --file-prefix lca_test_pipeline -- --layout cross 2>&1); rc=$?
check "cross layout on one lcore exits 2" "[ $rc -eq 2 ] && grep -q 'needs two lcores' <<<\"\$out\""
out=$("$exe" "${eal[@]}" -- --help 2>&1); rc=$?
check "--help exits 0 and lists --engine and --source" "[ $rc -eq 0 ] && grep -q -- '--engine LIST' <<<\"\$out\" && grep -q -- '--source S' <<<\"\$out\""

# A time-out ends the run with exit 1, and says so.
out=$("$exe" "${eal[@]}" -- --messages 1000000000000 --timeout 1 --engine plain 2>&1); rc=$?
check "--timeout: exits 1, says why" "[ $rc -eq 1 ] && grep -q 'timed out' <<<\"\$out\""
# Interrupted mid-run on each engine: a clean stop, every envelope freed.
for e in lcactor eventdev plain; do
	# Emptied before the start: the shell truncates it only once the job
	# runs, and the last engine's placement line, still there, would send
	# SIGINT before this process handles it (a background job of a script
	# starts with SIGINT ignored, so it would be lost and the run would
	# go on to its --timeout).
	rm -f "$tmp/int"
	"$exe" "${eal[@]}" -- --messages 1000000000000 --engine $e >"$tmp/int" 2>&1 &
	pid=$!
	# The placement's last line, flushed just before the engine runs.
	wait_for_line "$tmp/int" '^lcores: .*every engine polls' 60 $pid
	kill -INT $pid
	wait $pid
	rc=$?
	check "$e: SIGINT stops cleanly (exit 1, interrupted)" "[ $rc -eq 1 ] && grep -q 'interrupted' $tmp/int && ! grep -qiE 'objects out|sanitizer|segmentation' $tmp/int" ||
		{ echo "# $e: exit $rc; its last lines:"; tail -n 8 "$tmp/int" | sed 's/^/#   /'; }
done
harness_checks "$exe" lca-pipeline
out=$("$exe" "${eal[@]}" -- --topology 2>&1); rc=$?
check "--topology exits 0" "[ $rc -eq 0 ] && [ \$(grep -cE '^[01] ' <<<\"\$out\") -eq 2 ]"
finish
