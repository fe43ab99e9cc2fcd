#!/usr/bin/env bash
# lca-httpd and lca-load end to end (issue 11): lca-load at a low rate
# against lca-httpd, its histogram's counts against what was sent and what
# the server counted; every hostile case of tests/http_hostile.py while a
# well-behaved client keeps being served; lca-load against a fixture server
# that is not lca-httpd; both apps' bad arguments. No figure is timed.
set -u
httpd=$1
load=$2
prefix=lca_test_http_$$  # its own: the telemetry socket is per prefix, and other build folders may run this test at the same time
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix $prefix --log-level 'lib.*:error')
fail=0
. "$(dirname "$0")/e2e_lib.sh"
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# The server's counters over telemetry: tel KEY
tel() {
	python3 - "$prefix" "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(10)
s.connect("/var/run/dpdk/%s/dpdk_telemetry.v2" % sys.argv[1])
s.recv(1024)
s.send(b"/lcactor/http")
print(json.loads(s.recv(65536))["/lcactor/http"][sys.argv[2]])
PY
}

# Wait (bounded) for a line in a file while PID lives: wait_for FILE REGEX PID
wait_for() {
	for _ in $(seq 300); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

"$httpd" "${eal[@]}" -- --port 0 --duration 120 --header-limit 1024 --body-limit 4096 \
	--request-timeout 500 --json "$tmp/httpd.json" >"$tmp/httpd.out" 2>&1 &
hpid=$!
pids+=("$hpid")
check "lca-httpd comes up and says its port" "wait_for '$tmp/httpd.out' 'ready on port [0-9]+' $hpid"
port=$(grep -oE 'ready on port [0-9]+' "$tmp/httpd.out" | awk '{print $4}')
check "lca-httpd says how it accepts and idles" "grep -q '^# accept: balance' '$tmp/httpd.out' && grep -q '^# idle: epoll' '$tmp/httpd.out'"

# lca-load, open loop at a low rate: every answer in the histogram.
before=$(tel status_200)
out=$("$load" --rate 200 --duration 2 --connections 10 --cpus 0,1 --latency \
	--json "$tmp/load.json" "http://127.0.0.1:$port/" 2>&1); rc=$?
after=$(tel status_200)
check "lca-load against lca-httpd exits 0" "[ $rc -eq 0 ]"
check "lca-load prints wrk2's summary and spectrum" "grep -q '^  Latency Distribution (HdrHistogram - Recorded Latency)' <<<\"\$out\" && grep -q '^  Detailed Percentile spectrum:' <<<\"\$out\" && grep -q '^#\\[Mean' <<<\"\$out\" && grep -q '^Requests/sec:' <<<\"\$out\""
check "lca-load: histogram counts every answer, sent = answered + out at the end, no errors, server counted them" "python3 - '$tmp/load.json' $before $after <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d['result']
served = int(sys.argv[3]) - int(sys.argv[2])
assert d['schema'] == 'lca-load/1' and d['conf']['mode'] == 'open' and d['conf']['rate'] == 200, d['conf']
assert r['requests'] > 0 and r['requests'] == r['latency']['count'] == r['spectrum'][-1][2], r['latency']
assert r['sent'] == r['requests'] + r['in_flight_at_end'] + r['failed'], r
assert r['failed'] == 0 and all(v == 0 for v in r['errors'].values()), r['errors']
assert r['requests'] <= served <= r['sent'], (served, r['sent'])
assert r['spectrum'][-1][1] == 100.0 and d['ok'] is True
PY"

# The /user route, open loop: each request a message to the service actor and back.
before=$(tel user_answered)
out=$("$load" --rate 100 --duration 1 --connections 4 --threads 2 --json "$tmp/user.json" \
	"http://127.0.0.1:$port/user/17" 2>&1); rc=$?
after=$(tel user_answered)
check "lca-load on /user/ID: no errors, the service answered each" "[ $rc -eq 0 ] && python3 - '$tmp/user.json' $before $after <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))['result']
assert r['requests'] > 0 and sum(r['errors'].values()) == 0, r
assert r['requests'] <= int(sys.argv[3]) - int(sys.argv[2]) <= r['sent'], r
PY"

# Closed loop: a short saturation run counts the same way.
out=$("$load" --closed --duration 1 --connections 8 --cpus 0,1 --json "$tmp/closed.json" \
	"http://127.0.0.1:$port/" 2>&1); rc=$?
check "lca-load closed loop: counts add up, no errors" "[ $rc -eq 0 ] && python3 - '$tmp/closed.json' <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))['result']
assert r['requests'] > 0 and r['requests'] == r['latency']['count'], r
assert r['sent'] == r['requests'] + r['in_flight_at_end'] + r['failed'] and r['failed'] == 0, r
PY"

# Hostile clients, each answered or closed alone, the rest served, counted.
out=$(timeout 120 python3 "$here/http_hostile.py" "$port" "$prefix" 10000 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
check "hostile cases: each answered or closed, others served, counters agree" "[ $rc -eq 0 ] && grep -q '^ok counters:' <<<\"\$out\""

kill -TERM "$hpid"
wait "$hpid"; rc=$?
check "lca-httpd stops on SIGTERM with exit 0" "[ $rc -eq 0 ]"
check "lca-httpd prints its counters" "grep -qE '^http: accepted=[0-9]+ .*status_431=2 status_503=0 ' '$tmp/httpd.out'"
clock_checks "$tmp/httpd.out" "$tmp/httpd.json" lca-httpd
record_checks "$tmp/httpd.json" lca-httpd
verdict_checks "$tmp/httpd.out" "$tmp/httpd.json" lca-httpd
check "JSON: counters and the workers' placement" "python3 - '$tmp/httpd.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d['results'][0]
assert r['name'] == 'http' and r['status_431'] == 2 and r['status_413'] == 2, r
assert r['status_408'] == 1 and r['status_400'] == 3 and r['opened'] >= 10000, r
assert len(r['per_lcore']) == 2 and sum(p['opened'] for p in r['per_lcore']) == r['opened']
assert sorted(p['role'] for p in d['placement']) == ['service', 'worker', 'worker']
PY"

# lca-load against a server that is not lca-httpd.
python3 "$here/http_fixture.py" "$tmp/fx.port" &
fpid=$!
pids+=("$fpid")
check "fixture server comes up" "wait_for '$tmp/fx.port' '^[0-9]+' $fpid"
out=$("$load" --rate 100 --duration 1 --connections 4 --threads 2 --json "$tmp/fx.json" \
	"http://127.0.0.1:$(cat "$tmp/fx.port")/any/path?q=1" 2>&1); rc=$?
kill -TERM "$fpid"; wait "$fpid"
check "lca-load against the fixture: counts add up, the fixture counted them, no errors" "[ $rc -eq 0 ] && python3 - '$tmp/fx.json' '$tmp/fx.port.count' <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))['result']
served = int(open(sys.argv[2]).read())
assert r['requests'] > 0 and r['requests'] == r['latency']['count'], r
assert sum(r['errors'].values()) == 0, r['errors']
assert r['requests'] <= served <= r['sent'], (served, r)
PY"

# Bad arguments.
harness_checks "$httpd" lca-httpd
out=$("$httpd" "${eal[@]}" -- --accept sometimes 2>&1); rc=$?
check "lca-httpd: bad --accept exits 2 and is named" "[ $rc -eq 2 ] && grep -q \"bad value 'sometimes' for --accept\" <<<\"\$out\""
out=$("$httpd" "${eal[@]}" -- --bind 300.1.1.1 2>&1); rc=$?
check "lca-httpd: bad --bind exits 2" "[ $rc -eq 2 ] && grep -q 'for --bind' <<<\"\$out\""
out=$("$load" --help 2>&1); rc=$?
check "lca-load: --help exits 0" "[ $rc -eq 0 ] && grep -q '^Usage: ' <<<\"\$out\""
out=$("$load" --version 2>&1); rc=$?
check "lca-load: --version prints its name and lcactor's version" "[ $rc -eq 0 ] && grep -qx 'lca-load (lcactor) [0-9][0-9.]*' <<<\"\$out\""
out=$("$load" -Zq http://127.0.0.1:1/ 2>&1); rc=$?
check "lca-load: an unknown short option exits 2 and is named" "[ $rc -eq 2 ] && grep -q \"unknown option '-Z'\" <<<\"\$out\""
out=$("$load" --rate 10 2>&1); rc=$?
check "lca-load: no URL exits 2 and says so" "[ $rc -eq 2 ] && grep -q 'no URL' <<<\"\$out\""
out=$("$load" --rate 10 --closed http://127.0.0.1:1/ 2>&1); rc=$?
check "lca-load: --rate with --closed exits 2" "[ $rc -eq 2 ] && grep -q 'either --rate' <<<\"\$out\""
out=$("$load" --rate ten http://127.0.0.1:1/ 2>&1); rc=$?
check "lca-load: bad --rate exits 2 and is named" "[ $rc -eq 2 ] && grep -q \"bad value 'ten' for --rate\" <<<\"\$out\""
out=$("$load" --rate 10 ftp://127.0.0.1/ 2>&1); rc=$?
check "lca-load: a URL that is not http exits 2" "[ $rc -eq 2 ] && grep -q 'bad URL' <<<\"\$out\""
out=$("$load" --rate 10 --json /nonexistent-lca/x.json http://127.0.0.1:1/ 2>&1); rc=$?
check "lca-load: --json where nothing can be written exits 2" "[ $rc -eq 2 ] && grep -q 'cannot be written' <<<\"\$out\""
out=$("$load" --rate 10 --cpus 0,99999 http://127.0.0.1:1/ 2>&1); rc=$?
check "lca-load: a CPU that does not exist exits 2" "[ $rc -eq 2 ] && grep -q 'for --cpus' <<<\"\$out\""

finish
