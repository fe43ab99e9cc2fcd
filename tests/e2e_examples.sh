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
case $name in
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
	grep -Eq '^port [01]: rx [0-9]+ tx [0-9]+$' "$out"
	check "control printed a port's counters from an ask during the run" $?
	# A bad argument: the usage line and exit 2, before any packet.
	"$bin" "${eal[@]}" --vdev net_null0 --vdev net_null1 -- --bogus >"$out" 2>&1
	rc=$?
	grep -q 'usage: .* \[EAL args\] -- \[--packets N\]' "$out"
	check "a bad argument prints the usage and exits 2 (rc $rc)" $(( $? != 0 || rc != 2 ))
	;;
graph_actors)
	timeout 120 "$bin" "${eal[@]}" --vdev net_null0 -- --packets 500000 >"$out" 2>&1
	rc=$?
	cat "$out"
	check "exits 0 (rc $rc)" $((rc != 0))
	line=$(grep -E '^rx [0-9]+, through the flow actors [0-9]+, tx [0-9]+ \(0 refused by the port\); run: every packet out$' "$out")
	read -r rx thru tx < <(sed -E 's/^rx ([0-9]+), through the flow actors ([0-9]+), tx ([0-9]+).*/\1 \2 \3/' <<<"$line")
	[ -n "$line" ] && [ "$rx" -ge 500000 ] && [ "$rx" = "$thru" ] && [ "$rx" = "$tx" ]
	check "every packet the RX node took went through a flow actor and out (rx ${rx:-?}, actors ${thru:-?}, tx ${tx:-?})" $?
	[ "$(grep -cE '^flow [0-3] \(lcore [01]\): [1-9][0-9]* packets' "$out")" = 4 ]
	check "each of the 4 flow actors, on both lcores, kept its own state" $?
	! grep -E '^lcore [01]: .*, dropped [1-9]' "$out" >/dev/null
	check "lcactor's graph nodes dropped nothing" $?
	;;
*)
	echo "not ok - no check for example $name"; fail=1 ;;
esac
exit $fail
