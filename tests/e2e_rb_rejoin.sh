#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lca-remote-bench trusts the library's rejoin: node 1 (the driver) is
# stopped (SIGSTOP) past dead_ms (1 s) during its round trips and let go on
# (SIGCONT). Each node declares the other down, then hears it rejoin; the
# run must go on and end well before --timeout: node 2 does not stop at the
# down, and node 1 sends again the round trip the old link held.
# Two processes over net_memif, one lcore each (-l 0, --peer-lcores 1).
set -u
bench=$1
fail=0
. "$(dirname "$0")/e2e_lib.sh"
tmp=$(mktemp -d)
apid=
cleanup() {
	[ -n "$apid" ] && kill -CONT "$apid" 2>/dev/null && kill -9 "$apid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
timeout_s=90
"$bench" -l 0 --no-huge --no-pci --in-memory --log-level 'lib.*:error' \
	--file-prefix lca_test_rbrj -- --remote memif --peer-lcores 1 --msgs 200000 \
	--sizes 16 --pings 200000 --timeout $timeout_s --no-floor >"$tmp/out" 2>&1 &
apid=$!
# The one-way pass's line comes as its round trips begin.
if check "node 1 began its round trips" "wait_for_line '$tmp/out' 'messages one way' 60 $apid"; then
	start=$SECONDS
	kill -STOP "$apid"
	sleep 2.5
	kill -CONT "$apid"
	wait "$apid"; rc=$?
	apid=
	took=$((SECONDS - start))
	out=$(cat "$tmp/out")
	check "node 2 declared node 1 down, waited, and heard it rejoin" \
		"grep -q '^node 2: node 1 is down; waiting for it to rejoin' <<<\"\$out\" && grep -q '^node 2: node 1 rejoined' <<<\"\$out\""
	check "node 2 did not stop at the down" "! grep -q 'stopping' <<<\"\$out\""
	check "node 1 heard node 2 rejoin and sent its round trip again" \
		"grep -q '^node 1: node 2 rejoined' <<<\"\$out\" && grep -qE '^Round trips sent again after a rejoin: [1-9]' <<<\"\$out\""
	check "the run ended well, before --timeout (${took} s of $timeout_s)" \
		"[ $rc -eq 0 ] && [ $took -lt $timeout_s ] && grep -q '^All messages counted on both sides' <<<\"\$out\" && grep -q '^Peer process exited with status 0' <<<\"\$out\""
	[ $fail -eq 0 ] || grep -E 'node [12]|rejoin|dead|failed|Peer|RTT|counted' "$tmp/out"
fi
finish
