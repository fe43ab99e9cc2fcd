#!/usr/bin/env bash
# The examples of examples/, run as their header comments say, each with
# its output checked: what a user who copies one sees it do.
# Usage: e2e_examples.sh NAME BINARY
set -u
name=$1
bin=$2
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix "lca_ex_${name}_$$")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0
check() { # description, command status 0/1
	if [ "$2" -eq 0 ]; then echo "ok - $name: $1"; else echo "not ok - $name: $1"; fail=1; fi
}
# A bad argument: the usage on stderr and exit 2, before any work.
bad_argument() { # extra EAL args...
	"$bin" "${eal[@]}" "$@" -- --bogus >"$out" 2>&1
	rc=$?
	grep -q "^usage: .* \[EAL args\] -- " "$out" && grep -q "unknown argument '--bogus'" "$out"
	check "a bad argument is named, the usage printed, exit 2 (rc $rc)" $(( $? != 0 || rc != 2 ))
	help_prints_usage "$@"
}
help_prints_usage() { # extra EAL args...
	"$bin" "${eal[@]}" "$@" -- --help >"$out" 2>&1
	rc=$?
	grep -q "^usage: .* \[EAL args\] -- " "$out"
	check "--help prints the usage, exit 0 (rc $rc)" $(( $? != 0 || rc != 0 ))
}
case $name in
first_actor)
	timeout 60 "$bin" "${eal[@]}" -- --msgs 5 >"$out" 2>&1
	rc=$?
	cat "$out"
	check "exits 0 (rc $rc)" $((rc != 0))
	[ "$(grep -cE '^greeter on lcore 1: hello [1-5] of 5$' "$out")" = 5 ]
	check "the greeter, on lcore 1, handled each of the 5 messages once" $?
	grep -qx 'greeter handled 5 messages; run: stopped by the greeter' "$out"
	check "its counters say 5 handled, and it stopped the run" $?
	timeout 60 "$bin" "${eal[@]}" -- --msgs 1001 >"$out" 2>&1
	rc=$?
	grep -q -- '--msgs 1001: give a number from 1 to 1000' "$out"
	check "--msgs out of range is refused with exit 2 (rc $rc)" $(( $? != 0 || rc != 2 ))
	bad_argument
	;;
ask_names)
	timeout 60 "$bin" "${eal[@]}" -- --keys 7 >"$out" 2>&1
	rc=$?
	cat "$out"
	check "exits 0 (rc $rc)" $((rc != 0))
	[ "$(grep -cE '^client: key ([1-7]) is [0-9]+ \(ask 0x[0-9a-f]+\)$' "$out")" = 7 ]
	check "the store, found by name, answered each of the 7 asks" $?
	grep -qx 'client: "nobody": no actor has that name' "$out"
	check "a name nobody has is not found" $?
	grep -qx 'client: 7 answers, 7 right; 1 timeout' "$out"
	check "7 right answers and the mute's ask timed out" $?
	grep -qx 'asks: 8 asked, 7 replied, 1 timed out, 0 late; run: stopped by the client' "$out"
	check "the runtime's ask counters agree: 8 asked, 7 replied, 1 timed out" $?
	bad_argument
	;;
packet_pipeline)
	nulls=(--vdev net_null0 --vdev net_null1)
	timeout 60 "$bin" "${eal[@]}" "${nulls[@]}" -- --packets 200000 >"$out" 2>&1
	rc=$?
	cat "$out"
	check "exits 0 (rc $rc)" $((rc != 0))
	rx=$(sed -nE 's/^port 0: rx ([0-9]+) = delivered ([0-9]+) \+ dropped 0 \+ held 0$/\1 \2/p' "$out")
	read -r rx delivered <<<"${rx:-0 -1}"
	[ "$rx" -ge 200000 ] && [ "$rx" = "$delivered" ]
	check "port 0 took at least 200000 packets and gave every one to stage 1 (rx ${rx})" $?
	c=$(sed -nE 's/^stage 1, counter [01] \(lcore ([01])\): ([0-9]+) packets, [0-9]+ bytes, 0 refused by the lane$/\1 \2/p' "$out")
	[ "$(cut -d' ' -f1 <<<"$c" | sort | tr '\n' ' ')" = "0 1 " ] &&
		[ "$(( $(cut -d' ' -f2 <<<"$c" | paste -sd+) ))" = "$rx" ]
	check "the two stage 1 counters, one on each lcore, counted every packet between them" $?
	grep -qx "stage 2, tx (lcore 0): $rx packets, 0 without a TX queue" "$out" &&
		grep -qx "port 1: tx $rx, tx_dropped 0" "$out"
	check "stage 2 passed all $rx to port 1, which sent them all" $?
	grep -qx "every packet accounted for: rx $rx = tx $rx + dropped 0" "$out"
	check "every packet accounted for" $?
	timeout 60 "$bin" "${eal[@]}" --vdev net_null0 -- --packets 10 >"$out" 2>&1
	rc=$?
	grep -q 'needs two ports' "$out"
	check "one port only: said, exit 2 (rc $rc)" $(( $? != 0 || rc != 2 ))
	bad_argument "${nulls[@]}"
	;;
memif_pair)
	# Two processes, one lcore each, the ends of one memif.
	sock=$(mktemp -u /tmp/lca_ex_memif_XXXXXX.sock)
	end() { # node role: that node's EAL arguments, into the array "ends"
		ends=(-l $(($1 - 1)) --no-huge --no-pci --in-memory --file-prefix "lca_ex_memif$1_$$"
			--log-level 'pmd.net.memif:error'
			--vdev "net_memif0,role=$2,socket=$sock,socket-abstract=no")
	}
	end 1 server
	node1_eal=("${ends[@]}")
	end 2 client
	node2_eal=("${ends[@]}")
	out2=$(mktemp)
	timeout 90 "$bin" "${node2_eal[@]}" -- --node 2 >"$out2" 2>&1 &
	node2=$!
	timeout 90 "$bin" "${node1_eal[@]}" -- --node 1 --msgs 20000 >"$out" 2>&1
	rc=$?
	wait "$node2"
	rc2=$?
	echo "# node 1:"; cat "$out"; echo "# node 2:"; cat "$out2"
	check "node 1 exits 0 (rc $rc)" $((rc != 0))
	check "node 2 exits 0 (rc $rc2)" $((rc2 != 0))
	grep -qx 'node 1: sent 20000 PINGs, got 20000 PONGs, in order' "$out"
	check "node 1 sent 20000 and got each answer back, in order" $?
	grep -qx 'node 2 says: got 20000 PINGs, in order; answered 20000' "$out" &&
		grep -qx 'node 2: got 20000 PINGs from node 1, in order; answered 20000' "$out2"
	check "node 2 got each of the 20000, in order, and answered each" $?
	"$bin" "${node1_eal[@]}" -- --node 3 >"$out" 2>&1
	rc=$?
	grep -q -- '--node 1 or --node 2' "$out"
	check "--node 3 is refused with exit 2 (rc $rc)" $(( $? != 0 || rc != 2 ))
	"$bin" "${node2_eal[@]}" -- --bogus >"$out" 2>&1
	rc=$?
	grep -q "unknown argument '--bogus'" "$out"
	check "a bad argument is named, exit 2 (rc $rc)" $(( $? != 0 || rc != 2 ))
	rm -f "$out2" "$sock"
	;;
own_loop)
	timeout 120 "$bin" "${eal[@]}" --vdev net_null0 --vdev net_null1 -- --packets 2000000 \
		>"$out" 2>&1
	rc=$?
	cat "$out"
	check "exits 0 (rc $rc)" $((rc != 0))
	[ "$(grep -Ec '^port [01]: rx [0-9]+ tx [0-9]+, as the loops counted$' "$out")" = 2 ]
	check "the port_stats actor's counts of both ports, asked from the main lcore, match the loops' own" $?
	grep -Eq '^forwarded [0-9]+ packets, dropped 0; run: stopped by control$' "$out"
	check "every packet forwarded, none dropped, the run stopped by the control actor" $?
	# The first ask's answer, or (a main lcore descheduled past 100 ms) its
	# timeout notice: which one comes is the host's timing, not a check.
	grep -Eq '^port [01]: rx [0-9]+ tx [0-9]+$|^control: an ask timed out$|^control: no ask for port [01] this time: ' "$out"
	check "control asked for a port's counters during the run, and printed the answer (or the ask's timeout, or why it could not ask)" $?
	# A bad argument: the usage line and exit 2, before any packet.
	"$bin" "${eal[@]}" --vdev net_null0 --vdev net_null1 -- --bogus >"$out" 2>&1
	rc=$?
	grep -q 'usage: .* \[EAL args\] -- \[--packets N\]' "$out"
	check "a bad argument prints the usage and exits 2 (rc $rc)" $(( $? != 0 || rc != 2 ))
	help_prints_usage --vdev net_null0 --vdev net_null1
	;;
graph_actors)
	timeout 120 "$bin" "${eal[@]}" --vdev net_null0 -- --packets 500000 >"$out" 2>&1
	rc=$?
	cat "$out"
	check "exits 0 (rc $rc)" $((rc != 0))
	line=$(grep -E "^rx [0-9]+, through the flow actors [0-9]+, tx [0-9]+ \(0 refused by the port, [0-9]+ by the graph's queue\); run: every packet out$" "$out")
	read -r rx thru tx refused < <(sed -E 's/^rx ([0-9]+), through the flow actors ([0-9]+), tx ([0-9]+) \(0 refused by the port, ([0-9]+) .*/\1 \2 \3 \4/' <<<"$line")
	[ -n "$line" ] && [ "$rx" -ge 500000 ] && [ "$rx" = "$thru" ] && [ "$rx" = $((tx + refused)) ]
	check "every packet the RX node took went through a flow actor and out, or was counted as refused by a full graph queue (rx ${rx:-?}, actors ${thru:-?}, tx ${tx:-?}, refused ${refused:-?})" $?
	[ "${refused:-0}" = 0 ] || echo "# $refused packets refused by a full graph queue: an lcore was descheduled (a busy host)"
	[ "$(grep -cE '^flow [0-3] \(lcore [01]\): [1-9][0-9]* packets' "$out")" = 4 ]
	check "each of the 4 flow actors, on both lcores, kept its own state" $?
	! grep -E '^lcore [01]: .*, dropped [1-9]' "$out" >/dev/null
	check "lcactor's graph nodes dropped nothing" $?
	"$bin" "${eal[@]}" --vdev net_null0 -- --packets 0 >"$out" 2>&1
	rc=$?
	grep -q 'usage: .* \[EAL args\] -- \[--packets N\]' "$out"
	check "--packets 0 prints the usage and exits 2 (rc $rc)" $(( $? != 0 || rc != 2 ))
	help_prints_usage --vdev net_null0
	;;
*)
	echo "not ok - no check for example $name"; fail=1 ;;
esac
exit $fail
