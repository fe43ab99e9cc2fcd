#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A soak of the apps (issue 13, item 7): `make soak`, not part of `make test`.
#
# For SECONDS (default 60) it runs the apps one after another with arguments
# drawn from a fixed seed (a different mix each round), and checks every run:
# its exit status, its counts (lca-hello's tokens, lca-pinghops' runs,
# lca-pipeline's exact accounting, no send failure), and that it left no
# runtime folder. Meanwhile one lca-httpd serves the whole time, loaded by
# lca-load each round (every request answered, no error), and its RSS is
# sampled after each load round. Before the first round a warm-up loads every
# path the rounds use at the most connections they use, so the server has
# touched every buffer and pool slot it will (its pools are made at start);
# from there its RSS must stay flat: the last sample may exceed the first by
# at most RSS_GROW_KB (default 1024: 1 MiB, allocator noise; seen here: the
# samples after the first moved by 100 kB in 30 s). A round here serves
# about 44 000 requests, so even the smallest leak, one 32-byte malloc chunk
# a request, passes 1 MiB within a minute's soak. At the
# end the server is stopped with SIGINT and must exit 0.
#
# usage: scripts/soak.sh [BUILD] [SECONDS]    (SOAK_SEED=N for another mix)
set -u
build=${1:-build}
seconds=${2:-60}
RANDOM=${SOAK_SEED:-13}
rss_grow_kb=${RSS_GROW_KB:-1024}
apps=$build/apps
eal=(-l 0-1 --no-huge --no-pci --in-memory --log-level 'lib.*:error')
if [ "$(id -u)" -eq 0 ]; then run_base=/var/run/dpdk; else run_base=${XDG_RUNTIME_DIR:-/tmp}/dpdk; fi
tmp=$(mktemp -d)
server=
cleanup() {
	[ -n "$server" ] && kill -KILL "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

for a in hello/lca-hello reqresp/lca-reqresp pinghops/lca-pinghops circular/lca-circular \
	 microbench/lca-microbench pipeline/lca-pipeline httpd/lca-httpd load/lca-load; do
	[ -x "$apps/$a" ] || { echo "soak: no $apps/$a: build first (make build)" >&2; exit 2; }
done

runs=0 failed=0
declare -A per_app
pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }

# run NAME CHECK -- ARGS...: one run, its output in $tmp/out; CHECK is a shell
# condition on $rc and $tmp/out.
run() {
	local name=$1 check=$2 prefix=soak_$1
	shift 3
	runs=$((runs + 1))
	per_app[$name]=$(( ${per_app[$name]:-0} + 1 ))
	"$apps/${name#lca-}/$name" "${eal[@]}" --file-prefix "$prefix" -- "$@" >"$tmp/out" 2>&1
	rc=$?
	if ! eval "$check" || [ -e "$run_base/$prefix" ]; then
		failed=$((failed + 1))
		echo "FAIL: $name $* (exit $rc$([ -e "$run_base/$prefix" ] && echo ", left $run_base/$prefix"))"
		tail -n 5 "$tmp/out" | sed 's/^/    /'
		rm -rf "${run_base:?}/$prefix"
	fi
}
no_send_failures="grep -q 'send failures: mailbox full 0, no actor 0, stopped 0, pool empty 0' \$tmp/out"

# The server that runs throughout, sleeping in epoll when idle so it leaves
# the CPUs to the other runs.
"$apps/httpd/lca-httpd" "${eal[@]}" --file-prefix soak_server -- --port 0 --idle epoll \
	>"$tmp/server" 2>&1 &
server=$!
port=
for _ in $(seq 200); do
	port=$(sed -n 's/^lca-httpd: ready on port \([0-9]*\)$/\1/p' "$tmp/server")
	[ -n "$port" ] && break
	kill -0 "$server" 2>/dev/null || break
	sleep 0.05
done
[ -n "$port" ] || { echo "soak: lca-httpd did not start"; cat "$tmp/server"; exit 1; }

rss() { awk '/^VmRSS:/ { print $2 }' /proc/"$server"/status 2>/dev/null; }
# Warm-up: every path the rounds load, at the most connections they use,
# so that the server has touched every buffer and pool slot a round can
# touch before the first sample; from there its RSS must not grow.
for path in '' user/7 bytes/100000; do
	"$apps/load/lca-load" --closed --connections 64 --threads 1 --duration 1 \
		"http://127.0.0.1:$port/$path" >"$tmp/load" 2>&1 ||
		{ echo "soak: the warm-up load of /$path failed"; tail -n 5 "$tmp/load"; exit 1; }
done
rss_first= rss_last= rss_max=0 rss_n=0 loads=0 requests=0 rss_all=()
start=$(date +%s)
round=0
while [ $(( $(date +%s) - start )) -lt "$seconds" ]; do
	round=$((round + 1))
	tokens=$(pick 1 8 64 256) hops=$(pick 10 1000 4000) per=$(pick 1 2 4)
	run lca-hello "[ \$rc -eq 0 ] && grep -q '^messages handled: $(( tokens * (hops + 1) )) (expected $(( tokens * (hops + 1) ))' \$tmp/out && $no_send_failures" \
		-- --tokens "$tokens" --hops "$hops" --per-lcore "$per" --timeout 60
	runs_n=$(pick 1 2 3)
	# (a full mailbox is pinghops' back-pressure: its workers keep the ping)
	run lca-pinghops "[ \$rc -eq 0 ] && [ \$(grep -c '^Run #[0-9]* ended! Time = ' \$tmp/out) -eq $runs_n ]" \
		-- --pings "$(pick 100 1000 5000)" --hops "$(pick 10 100)" --runs "$runs_n" \
		--placement "$(pick round-robin pack pairs-local auto)" --seed "$round"
	run lca-reqresp "[ \$rc -eq 0 ] && $no_send_failures" \
		-- -wi 0 -i 1 --invocations 1 --queries "$(pick 1000 10000 30000)" --users 1000 --quiet \
		-p dispatcher="$(pick affinity shared)" -p throughput="$(pick 1 5 50)" \
		--idle "$(pick spin sleep)" --mailbox "$(pick mp sp rts hts)"
	run lca-pipeline "[ \$rc -eq 0 ] && grep -q 'accounting: produced \\([0-9]*\\) = processed \\1 + in flight 0 .*: exact' \$tmp/out" \
		-- --messages "$(pick 100000 300000)" --streams "$(pick 1 10 100)" --partitions "$(pick 1 2 4)" \
		--layout "$(pick local cross)" --warmup-messages 1000
	if [ $((round % 2)) -eq 1 ]; then
		run lca-circular "[ \$rc -eq 0 ]" \
			-- --actors "$(pick 1 2 3 8)" --samples 5 --warmup 1 --hops "$(pick 10 100 1000)" \
			--placement "$(pick round-robin pack)"
	else
		run lca-microbench "[ \$rc -eq 0 ]" \
			-- --scenario "$(pick same-lcore cross-lcore many-to-one)" --messages 200000 --runs 1 \
			--burst "$(pick 1 8 32)" --mailbox "$(pick mp rts)"
	fi
	# The server: a second of load, every request answered.
	loads=$((loads + 1))
	runs=$((runs + 1))
	per_app[lca-load]=$(( ${per_app[lca-load]:-0} + 1 ))
	"$apps/load/lca-load" --closed --connections "$(pick 1 8 64)" --threads 1 --duration 1 \
		"http://127.0.0.1:$port/$(pick '' user/7 bytes/100000)" >"$tmp/load" 2>&1
	rc=$?
	n=$(sed -n 's/^  sent [0-9]*, answered \([0-9]*\), .*/\1/p' "$tmp/load")
	if [ $rc -ne 0 ] || ! grep -q '^errors: 0$' "$tmp/load" || [ "${n:-0}" -eq 0 ]; then
		failed=$((failed + 1))
		echo "FAIL: lca-load against lca-httpd (exit $rc)"
		tail -n 5 "$tmp/load" | sed 's/^/    /'
	fi
	requests=$((requests + ${n:-0}))
	r=$(rss)
	if [ -z "$r" ]; then
		failed=$((failed + 1))
		echo "FAIL: lca-httpd is gone"
		tail -n 5 "$tmp/server" | sed 's/^/    /'
		break
	fi
	rss_n=$((rss_n + 1))
	rss_all+=("$r")
	[ -z "$rss_first" ] && rss_first=$r
	rss_last=$r
	[ "$r" -gt "$rss_max" ] && rss_max=$r
done

# Stop the server as an operator would.
server_rc=-1
if kill -0 "$server" 2>/dev/null; then
	kill -INT "$server"
	for _ in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.05; done
	wait "$server"; server_rc=$?
	server=
fi
[ "$server_rc" -eq 0 ] || { failed=$((failed + 1)); echo "FAIL: lca-httpd did not exit 0 on SIGINT (exit $server_rc)"; }
if [ -e "$run_base/soak_server" ]; then
	failed=$((failed + 1))
	echo "FAIL: lca-httpd left $run_base/soak_server"
fi

grow_ok=1
if [ -n "$rss_first" ]; then
	bound=$(( rss_first + rss_grow_kb ))
	[ "$rss_last" -le "$bound" ] || { grow_ok=0; failed=$((failed + 1)); }
fi

echo "soak: $(( $(date +%s) - start )) s, $round rounds, $runs runs, $failed failed"
for a in "${!per_app[@]}"; do printf '  %-16s %4d runs\n' "$a" "${per_app[$a]}"; done | sort
echo "  lca-httpd answered $requests requests in $loads load rounds"
if [ -n "$rss_first" ]; then
	echo "  lca-httpd RSS: first ${rss_first} kB, last ${rss_last} kB, max ${rss_max} kB over $rss_n samples" \
		"(bound: last <= $bound kB): $([ $grow_ok -eq 1 ] && echo flat || echo GREW)"
	echo "  lca-httpd RSS samples (kB): ${rss_all[*]}"
else
	echo "  lca-httpd RSS: no sample"
	failed=$((failed + 1))
fi
[ "$failed" -eq 0 ] && echo "soak: ok" || echo "soak: FAILED"
[ "$failed" -eq 0 ]
