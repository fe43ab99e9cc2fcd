#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The rte_trace tracepoints (actors/lca_trace_priv.h), enabled with EAL's
# --trace='lcactor.*': a run writes CTF whose metadata names every one of
# them, and whose events, read back with babeltrace2, add up to what the apps
# count on their own: lca-hello's messages handled, lca-lifecycle's
# failures, restarts and backoff pauses, lca-pipeline's packets over a
# net_null port, and test_migrate's moves, as lcactor.migrate's DEBUG lines
# tell them. Without babeltrace2 only the metadata is checked (SKIP).
# e2e_trace.sh HELLO LIFECYCLE PIPELINE TEST_MIGRATE
set -u
hello=$1 lifecycle=$2 pipeline=$3 test_migrate=$4
. "$(dirname "$0")/e2e_lib.sh"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each lcore's trace buffer holds a whole run: DPDK overwrites the oldest
# events when one is full, and lca-lifecycle's restart bench (up to a
# million events here, more on a busy machine) wrote over the timers bench
# that came before it in 16 MB (0 periodic ticks left, twice in 7 runs).
eal=(-l 0-1 --no-huge --no-pci --in-memory --log-level 'lib.*:error' --trace-bufsz 64M)
have_bt=0
command -v babeltrace2 >/dev/null && have_bt=1

# The one CTF folder a run left under DIR.
ctf_of() { find "$1" -name metadata -printf '%h\n' | head -1; }

# EVENT FIELD: the sum of FIELD (and the count) over EVENT's events, from
# babeltrace2's text on stdin.
sum_field() {
	python3 -c '
import re, sys
ev, field = sys.argv[1], sys.argv[2]
n = total = 0
for line in sys.stdin:
    m = re.search(r"\) (\S+): \{.*\}, \{(.*)\}$", line)
    if m is None or m.group(1) != ev:
        continue
    fields = dict(kv.split(" = ") for kv in m.group(2).strip().split(", "))
    n += 1
    total += int(fields[field], 0)
print(n, total)' "$1" "$2"
}

# 1. lca-hello: every handled message went through one send and one turn.
"$hello" "${eal[@]}" --file-prefix "lca_h_trace_hello_$$" --trace='lcactor.*' \
	--trace-dir "$tmp/hello" -- --tokens 4 --hops 100 >"$tmp/hello.log" 2>&1
check "lca-hello --trace runs" "[ $? -eq 0 ]" || cat "$tmp/hello.log"
ctf=$(ctf_of "$tmp/hello")
check "it writes CTF under --trace-dir" "[ -n '$ctf' ] && [ -s '$ctf/metadata' ]"
for ev in send handle.begin handle.end fail restart migrate timer.fire port.rx port.tx; do
	check "the metadata names lcactor.$ev" "grep -q 'name = \"lcactor.$ev\";' '$ctf/metadata'"
done
if [ $have_bt -eq 1 ]; then
	babeltrace2 "$ctf" >"$tmp/hello.txt" 2>"$tmp/bt.err"
	check "babeltrace2 reads it" "[ $? -eq 0 ] && [ -s '$tmp/hello.txt' ]" || cat "$tmp/bt.err"
	handled=$(sed -n 's/^messages handled: \([0-9]*\).*/\1/p' "$tmp/hello.log")
	read -r begins _ < <(sum_field lcactor.handle.begin n <"$tmp/hello.txt")
	read -r ends ended < <(sum_field lcactor.handle.end n <"$tmp/hello.txt")
	read -r _ sent < <(sum_field lcactor.send sent <"$tmp/hello.txt")
	read -r _ errs < <(sum_field lcactor.send err <"$tmp/hello.txt")
	echo "# handled $handled; turns $begins begun, $ends ended, $ended envelopes; $sent sent"
	check "every turn that begins ends" "[ '$begins' -gt 0 ] && [ '$begins' -eq '$ends' ]"
	check "the turns' envelopes are the messages handled ($handled)" "[ '$ended' -eq '$handled' ]"
	check "the sends' envelopes are the messages handled" "[ '$sent' -eq '$handled' ]"
	check "no send failed" "[ '$errs' -eq 0 ]"
else
	skip_check "events of lca-hello" "babeltrace2 is not installed (apt-get install babeltrace2)"
fi

# 2. lca-lifecycle: timers fire; each failure is a restart; backoff pauses
# double (100, 200, 400 us) as the app's notices say.
"$lifecycle" "${eal[@]}" --file-prefix "lca_h_trace_life_$$" --trace='lcactor.*' \
	--trace-dir "$tmp/life" -- --bench timers,restart --timers 20 --inflight 4 \
	--max-delay-us 2000 --ticks 10 --messages 1000 --fail-every 100 --backoff-failures 3 \
	--window-ms 1 >"$tmp/life.log" 2>&1
check "lca-lifecycle --trace runs" "[ $? -eq 0 ]" || tail -20 "$tmp/life.log"
if [ $have_bt -eq 1 ]; then
	babeltrace2 "$(ctf_of "$tmp/life")" >"$tmp/life.txt"
	read -r fails _ < <(sum_field lcactor.fail actor <"$tmp/life.txt")
	read -r restarts _ < <(sum_field lcactor.restart actor <"$tmp/life.txt")
	pauses=$(grep ' lcactor.restart: ' "$tmp/life.txt" | sed 's/.*pause_us = \(-\{0,1\}[0-9]*\) }$/\1/' |
		grep -v '^0$' | tr '\n' ' ')
	fired=$(grep -c ' lcactor.timer.fire: .*kind = 0x0 }' "$tmp/life.txt")
	ticks=$(grep -c ' lcactor.timer.fire: .*kind = 0x1 }' "$tmp/life.txt")
	wakes=$(grep -c ' lcactor.timer.fire: .*kind = 0x2 }' "$tmp/life.txt")
	echo "# $fails failures, $restarts restarts, pauses: $pauses; timers: $fired one-shot, $ticks ticks, $wakes wake-ups"
	check "each failure is traced, and its restart" "[ '$fails' -gt 0 ] && [ '$fails' -eq '$restarts' ]"
	check "the backoff's restarts pause 100 200 400 us" "[ '$pauses' = '100 200 400 ' ]"
	check "one-shot timers fire" "[ '$fired' -gt 0 ]"
	check "the periodic timer ticks (--ticks 10)" "[ '$ticks' -ge 10 ]"
	check "each backoff pause ends in a wake-up" "[ '$wakes' -eq 3 ]"
else
	skip_check "events of lca-lifecycle" "babeltrace2 is not installed"
fi

# 3. lca-pipeline on net_null0, only the port's tracepoints: RX bursts hold
# the 2000 packets asked for (each queue stops within a burst past its
# quota), and TX bursts what the counters sent back out.
"$pipeline" "${eal[@]}" --file-prefix "lca_h_trace_pipe_$$" --vdev net_null0 \
	--trace='lcactor.port.*' --trace-dir "$tmp/pipe" -- --source port --engine lcactor \
	--messages 2000 --warmup-messages 100 --timeout 60 >"$tmp/pipe.log" 2>&1
check "lca-pipeline --trace runs" "[ $? -eq 0 ]" || tail -20 "$tmp/pipe.log"
if [ $have_bt -eq 1 ]; then
	babeltrace2 "$(ctf_of "$tmp/pipe")" >"$tmp/pipe.txt"
	read -r _ rx < <(sum_field lcactor.port.rx n <"$tmp/pipe.txt")
	read -r _ tx < <(sum_field lcactor.port.tx n <"$tmp/pipe.txt")
	echo "# port: $rx packets received, $tx sent in the traced bursts"
	check "RX bursts hold the packets taken" "[ '$rx' -ge 2000 ] && [ '$rx' -le $((2000 + 2 * 63)) ]"
	check "TX bursts send packets back out" "[ '$tx' -gt 0 ] && [ '$tx' -le '$rx' ]"
	check "--trace=lcactor.port.* enables nothing else" "! grep -v ' lcactor\\.port\\.' '$tmp/pipe.txt' | grep -q ."
else
	skip_check "events of lca-pipeline" "babeltrace2 is not installed"
fi

# 4. test_migrate (the unit test, given EAL arguments): one lcactor.migrate
# event per hand-over that the lcactor.migrate logtype reports at debug,
# each between its two lcores.
"$test_migrate" --trace=lcactor.migrate --trace-dir "$tmp/mig" \
	--log-level 'lcactor.migrate:debug' >"$tmp/mig.log" 2>&1
check "test_migrate --trace passes" "[ $? -eq 0 ]" || tail -20 "$tmp/mig.log"
handovers=$(grep -c '^lcactor: migrate actor [0-9]*: handed over by lcore' "$tmp/mig.log")
check "--log-level lcactor.migrate:debug shows the moves" "[ '$handovers' -gt 0 ]"
if [ $have_bt -eq 1 ]; then
	babeltrace2 "$(ctf_of "$tmp/mig")" >"$tmp/mig.txt"
	moves=$(grep -c ' lcactor.migrate: ' "$tmp/mig.txt")
	echo "# $handovers hand-overs logged, $moves traced"
	check "one migrate event per hand-over" "[ '$moves' -eq '$handovers' ]"
	check "each from one lcore to the other" "! grep ' lcactor.migrate: ' '$tmp/mig.txt' |
		grep -qv 'from = 0x0, to = 0x1 }\|from = 0x1, to = 0x0 }'"
else
	skip_check "events of test_migrate" "babeltrace2 is not installed"
fi
finish
