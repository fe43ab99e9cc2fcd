#!/usr/bin/env bash
# lca-hello with more tokens than a channel between lcores holds: every
# token arrives (forwards refused for room are tried again, never dropped),
# the run ends, and the counts are exact (issue 13, defect 2).
set -u
exe=$1
fail=0
. "$(dirname "$0")/e2e_lib.sh"
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_tokens --log-level 'lib.*:error')

out=$("$exe" "${eal[@]}" -- --tokens 4000 --hops 1000 --timeout 60 2>&1); rc=$?
check "4000 tokens x 1000 hops end, every count exact" "[ $rc -eq 0 ] && grep -q '^messages handled: 4004000 (expected 4004000' <<<\"\$out\""
out=$("$exe" "${eal[@]}" -- --tokens 20000 --hops 20 --timeout 60 2>&1); rc=$?
check "20000 tokens: forwards tried again, counts exact" "[ $rc -eq 0 ] && grep -qE '^messages handled: ([0-9]+) \(expected \1: tokens x \(hops \+ 1\), and [0-9]+ forwards' <<<\"\$out\""
out=$("$exe" "${eal[@]}" -- --tokens 1048577 2>&1); rc=$?
check "more tokens than allowed exits 2" "[ $rc -eq 2 ]"
finish
