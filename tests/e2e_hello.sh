#!/usr/bin/env bash
# lca-hello end to end: the smoke run's counts, --topology, and bad arguments.
set -u
exe=$1
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_hello --log-level 'lib.*:error')
fail=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi; }

out=$("$exe" "${eal[@]}" -- --tokens 16 --hops 2000 2>&1); rc=$?
check "smoke run exits 0" "[ $rc -eq 0 ]"
check "every token counted" "grep -q 'messages handled: 32016 (expected 32016)' <<<\"\$out\""
check "topology table printed" "grep -q '^lcore  *cpu  *core' <<<\"\$out\""
check "no send failures" "grep -q 'send failures: mailbox full 0, no actor 0, stopped 0, pool empty 0' <<<\"\$out\""

out=$("$exe" "${eal[@]}" -- --topology 2>&1); rc=$?
check "--topology exits 0" "[ $rc -eq 0 ]"
check "--topology lists both lcores" "[ \$(grep -cE '^[01] ' <<<\"\$out\") -eq 2 ]"

out=$("$exe" "${eal[@]}" -- --tokens zero 2>&1); rc=$?
check "bad number exits 2" "[ $rc -eq 2 ]"
check "bad number is named" "grep -q \"bad value 'zero' for --tokens\" <<<\"\$out\""
out=$("$exe" "${eal[@]}" -- --bogus 2>&1); rc=$?
check "unknown option exits 2" "[ $rc -eq 2 ]"
out=$("$exe" -l 0-9999 --no-huge --no-pci --file-prefix lca_test_hello2 -- 2>&1); rc=$?
check "bad EAL args exit non-zero with a cause" "[ $rc -ne 0 ] && grep -q 'EAL init failed' <<<\"\$out\""
exit $fail
