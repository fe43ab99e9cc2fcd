#!/usr/bin/env bash
# lca-hello end to end: the smoke run's counts, --topology, and bad arguments.
set -u
exe=$1
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_hello --log-level 'lib.*:error')
fail=0
. "$(dirname "$0")/e2e_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$exe" "${eal[@]}" -- --tokens 16 --hops 2000 --json "$tmp/hello.json" 2>&1); rc=$?
check "smoke run exits 0" "[ $rc -eq 0 ]"
check "every token counted" "grep -qE '^messages handled: ([0-9]+) \\(expected \\1: tokens x \\(hops \\+ 1\\)' <<<\"\$out\" && grep -q '^messages handled: 32016 ' <<<\"\$out\""
check "topology table printed" "grep -q '^lcore  *cpu  *core' <<<\"\$out\""
check "one '# isolation: CPU' line per lcore" "[ \$(grep -c '^# isolation: CPU [0-9]* (lcore [0-9]*): isolcpus ' <<<\"\$out\") -eq 2 ]"
check "nothing else starts with '# isolation:' but warnings" "! grep '^# isolation:' <<<\"\$out\" | grep -vqE '^# isolation: (CPU [0-9]+ |warning: )'"
check "no send failures" "grep -q 'send failures: mailbox full 0, no actor 0, stopped 0, pool empty 0, node down 0, too big 0, invalid 0, other 0' <<<\"\$out\""
record_checks "$tmp/hello.json" lca-hello
printf '%s\n' "$out" >"$tmp/hello.out"
verdict_checks "$tmp/hello.out" "$tmp/hello.json" lca-hello
check "JSON: the ring's counts and every actor's lcore" "python3 - '$tmp/hello.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d['results'][0]
assert r['name'] == 'ring' and r['handled'] == r['expected'] == 32016, r
assert len(d['placement']) == 4 and d['ok'] is True
assert d['frequency']['monitor'] == 'did not run'
assert d['app_args'][:2] == ['--tokens', '16'], d['app_args']
assert [c['lcores'] for c in d['isolation']] == [[0], [1]], d['isolation']
PY"
harness_checks "$exe" lca-hello

# One token: a mailbox of 1 is below the runtime's smallest (2).
out=$("$exe" "${eal[@]}" -- --tokens 1 --hops 100 --per-lcore 4 2>&1); rc=$?
check "--tokens 1 runs and counts its hops" "[ $rc -eq 0 ] && grep -q '^messages handled: 101 (expected 101' <<<\"\$out\""

out=$("$exe" "${eal[@]}" -- --topology 2>&1); rc=$?
check "--topology exits 0" "[ $rc -eq 0 ]"
check "--topology lists both lcores" "[ \$(grep -cE '^[01] ' <<<\"\$out\") -eq 2 ]"
check "--topology prints no isolation lines" "! grep -q '^# isolation:' <<<\"\$out\""

out=$("$exe" "${eal[@]}" -- --tokens zero 2>&1); rc=$?
check "bad number exits 2" "[ $rc -eq 2 ]"
check "bad number is named" "grep -q \"bad value 'zero' for --tokens\" <<<\"\$out\""
out=$("$exe" "${eal[@]}" -- --bogus 2>&1); rc=$?
check "unknown option exits 2" "[ $rc -eq 2 ]"
out=$("$exe" -l 0-9999 --no-huge --no-pci --file-prefix lca_test_hello2 -- 2>&1); rc=$?
check "bad EAL args exit non-zero with a cause" "[ $rc -ne 0 ] && grep -q 'EAL init failed' <<<\"\$out\""
# After EAL's own usage, the app's (rte_set_application_usage_hook): the
# reader of an EAL error learns how the line splits and where the app's are.
out=$("$exe" -l 0 --no-huge --no-pci --in-memory --no-such-eal-option --file-prefix lca_test_hello3 -- 2>&1); rc=$?
check "an unknown EAL option exits non-zero" "[ $rc -ne 0 ]"
check "... and prints the app's usage line after EAL's" \
	"grep -qxF 'Usage: $exe [EAL args] -- [options]' <<<\"\$out\" && grep -qxF \"lca-hello's own options: $exe -- --help\" <<<\"\$out\""
finish
