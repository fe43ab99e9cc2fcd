#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# More than two nodes (issue 21 item 9): 4 processes of tests/remote_mesh.c,
# each linked to every other, over memif (6 sockets, one a pair, the lower
# node the server) and over UCX on 127.0.0.1. Every node sends 20,000
# messages to every other; node 1 collects every node's counts by source
# and checks them exact. 4 processes on the 2 CPUs (lcores 0 and 1 twice):
# each sleeps when idle (the runtime's sleep policy), so none spins on a
# CPU that another needs. Then lca-pinghops --remote over 4 processes, and
# its build whose far nodes each claim one message more.
set -u
prog=$1
pinghops=$2
pinghops_corrupt=$3
fail=0
. "$(dirname "$0")/e2e_lib.sh"
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

nodes=4
msgs=20000
eal=(--no-huge --no-pci --in-memory --log-level 'lib.*:error' --log-level 'pmd.net.memif:error')
prefix=lcamesh$(($$ % 100000))

# mesh TRANSPORT: the 4 nodes, node 1 last (it checks), each one's output
# in $tmp/TRANSPORT.K.log; the checks on node 1's and every exit status.
mesh() {
	local t=$1 k j vdevs rc=0 i
	pids=()
	for k in $(seq 2 $nodes) 1; do
		vdevs=()
		if [ "$t" = memif ]; then
			for j in $(seq 1 $nodes); do
				[ "$j" = "$k" ] && continue
				local lo=$((k < j ? k : j)) hi=$((k < j ? j : k))
				vdevs+=(--vdev "net_memif$j,socket=$tmp/m$lo-$hi.sock,role=$([ "$k" = "$lo" ] && echo server || echo client),id=0")
			done
			args=(--memif "$tmp")
		else
			args=(--ucx $((20000 + $$ % 20000)))
		fi
		"$prog" -l $(((k - 1) % 2)) "${eal[@]}" --file-prefix "$prefix$t$k" "${vdevs[@]}" \
			-- --node "$k" --nodes $nodes --msgs $msgs "${args[@]}" >"$tmp/$t.$k.log" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" && continue
		code=$?
		# Node 1 starts last: pids[nodes - 1] is node 1, the others 2..N.
		k=$((i == nodes - 1 ? 1 : i + 2))
		if [ "$t" = memif ] && grep -q '^mesh: .*every count exact' "$tmp/$t.1.log" &&
			grep -q 'Caught signal 11' "$tmp/$t.$k.log" &&
			grep -q 'librte_net_memif' "$tmp/$t.$k.log"; then
			echo "# known crash: memif node $k died of SIGSEGV in net_memif (exit $code)" \
				"after node 1 had checked every count and said quit (DPDK 22.11" \
				"net_memif: regions unmapped under a burst in flight when a peer" \
				"disconnects)"
			continue
		fi
		rc=$((rc + 1))
	done
	pids=()
	out=$(cat "$tmp/$t.1.log")
	grep -E '^(node [0-9]|mesh:)' <<<"$out"
	check "$t: all $nodes processes exit 0 (or a far memif node died of the known crash)" "[ $rc -eq 0 ]"
	check "$t: node 1 collected every node's counts, each exact" \
		"[ \$(grep -cE '^node [1-4]: got( [0-9]+ from node [1-4],){3} sent 60000: exact\$' <<<\"\$out\") -eq 4 ]"
	check "$t: 20000 from each other node, on every node" \
		"! grep -E '^node [1-4]: ' <<<\"\$out\" | grep -vqE '^node [1-4]: got 20000 from node [1-4], 20000 from node [1-4], 20000 from node [1-4], sent 60000: exact\$'"
	check "$t: node 1's last line" \
		"grep -q '^mesh: 4 nodes, 20000 messages each way a pair: every count exact; other errors 0\$' <<<\"\$out\""
	if [ $fail -ne 0 ]; then
		for k in $(seq 1 $nodes); do
			echo "--- $t node $k:"
			grep -vE "^ *[0-9]+  /lib|flush.c" "$tmp/$t.$k.log" | tail -15
		done
	fi
}

mesh memif
mesh ucx

# lca-pinghops --remote T --remote-nodes 4: 2 workers in each process, node
# 1 the master; node 1 checks each run's counts, the far nodes' sent back.
# A far memif node may die of DPDK 22.11's known SIGSEGV once the counts are
# in: then the status says so and the counts must still be there. UCX over
# shared memory: there three busy-polling processes on one CPU time out
# UCX's endpoints, and a message for an endpoint closed since made UCX 1.13
# abort in ucp_am_handler_reply until lcactor asked for indirect endpoint
# ids (in 3 of 4 runs here without them; docs/benchmarks.md, "lca-pinghops
# over four processes").
ph_args=(--remote-nodes 4 --workers 8 --pings 2000 --hops 50 --runs 2 --window-ms 0)
for t in memif ucx; do
	out=$(UCX_TLS=shm,tcp "$pinghops" -l 0 "${eal[@]}" --file-prefix "${prefix}ph$t" -- \
		--remote $t "${ph_args[@]}" 2>&1); rc=$?
	[ $t = memif ] || check "pinghops --remote ucx --remote-nodes 4 over shared memory: no UCX assertion, no process died of a signal" \
		"! grep -qE 'Assertion|died of signal' <<<\"\$out\""
	if [ $rc -ne 0 ] && [ $t = memif ] && grep -q '^peer process [0-9]* (node [234]) died of signal 11 ' <<<"$out" &&
		[ "$(grep -cE '^ +[12] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ .* ok$' <<<"$out")" -eq 2 ]; then
		echo "# known crash: a far memif node died of SIGSEGV after the counts were checked"
		rc=0
	fi
	check "pinghops --remote $t --remote-nodes 4: exits 0 (over memif: or a far node died of the known net_memif SIGSEGV after the counts), both runs' counts exact" \
		"[ $rc -eq 0 ] && [ \$(grep -cE '^ +[12] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ .* ok\$' <<<\"\$out\") -eq 2 ]"
	check "pinghops --remote $t --remote-nodes 4: 2+2+2+2 workers, nodes 2-4 started, a link to each" \
		"grep -q '^Remote: 2+2+2+2 workers in 4 processes' <<<\"\$out\" && [ \$(grep -cE '^Peer process [0-9]+ started: node [234] on lcores 1\$' <<<\"\$out\") -eq 3 ] && [ \$(grep -cE '^Link to node [234]: [1-9][0-9]* msgs sent .*, [1-9][0-9]* delivered from it' <<<\"\$out\") -eq 3 ]"
	check "pinghops --remote $t --remote-nodes 4: says its lcores share the CPUs" \
		"grep -q '^NOTE: 4 busy-polling lcores in 4 processes share 2 CPUs' <<<\"\$out\""
	[ $fail -eq 0 ] || tail -30 <<<"$out"
done
# Three processes: 8 workers do not divide, the first nodes take one more;
# the record says how many processes.
out=$(UCX_TLS=tcp "$pinghops" -l 0 "${eal[@]}" --file-prefix "${prefix}ph3" -- --remote ucx \
	--remote-nodes 3 --workers 8 --pings 2000 --hops 50 --runs 2 --window-ms 0 \
	--json "$tmp/ph3.json" 2>&1); rc=$?
check "pinghops --remote ucx --remote-nodes 3: 3+3+2 workers, both runs' counts exact" \
	"[ $rc -eq 0 ] && grep -q '^Remote: 3+3+2 workers in 3 processes' <<<\"\$out\" && [ \$(grep -cE '^ +[12] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ .* ok\$' <<<\"\$out\") -eq 2 ]"
check "pinghops --remote-nodes 3: its record's conf says 3 processes over ucx" \
	"python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))[\"conf\"]; sys.exit(not (c[\"remote_nodes\"] == 3 and c[\"remote\"] == \"ucx\"))' '$tmp/ph3.json'"
[ $fail -eq 0 ] || tail -30 <<<"$out"
# Each far node of the corrupt build claims one message more than it had:
# node 1's check sees the three.
out=$(UCX_TLS=tcp "$pinghops_corrupt" -l 0 "${eal[@]}" --file-prefix "${prefix}phc" -- \
	--remote ucx "${ph_args[@]}" 2>&1); rc=$?
read -r handled expected < <(grep -oE 'run 0: count mismatch: workers handled [0-9]+ \(expected [0-9]+; [0-9]+ of them in the other processes\)' <<<"$out" | sed -E 's/^run 0[^0-9]+([0-9]+)[^0-9]+([0-9]+).*/\1 \2/')
check "pinghops --remote-nodes 4 with corrupted far counts fails its check, three messages over" \
	"[ $rc -ne 0 ] && [ -n '${handled:-}' ] && [ '${handled:-0}' -eq \$(( ${expected:-0} + 3 )) ]"
# What is refused, and said.
for bad in "--remote ucx --remote-nodes 5|--remote-nodes 5: 2 to 4 processes" \
	"--remote af_packet --remote-nodes 3|--remote-nodes 3: over memif or ucx only, not af_packet" \
	"--remote-nodes 3|--remote-nodes needs --remote" \
	"--remote memif --remote-nodes 3 --start-order node2|--start-order: for two processes only"; do
	out=$("$pinghops" -l 0 "${eal[@]}" --file-prefix "${prefix}phb" -- ${bad%%|*} 2>&1); rc=$?
	check "pinghops ${bad%%|*}: refused (exit 2), saying why" "[ $rc -eq 2 ] && grep -qF -- '${bad#*|}' <<<\"\$out\""
done
finish
