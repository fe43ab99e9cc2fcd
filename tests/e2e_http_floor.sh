#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# lca-httpd-floor, the socket path alone that scripts/http-compare.sh runs
# as the floor of lca-httpd and nginx, over epoll and over io_uring: its
# answer is the byte count asked, one a request (pipelined, or a request
# whose end is cut between two reads), from each of its threads; bad
# arguments exit 2, SIGTERM 0.
set -u
floor=$1
fail=0
. "$(dirname "$0")/e2e_lib.sh"
out=$(mktemp)
pid=0
trap 'kill -9 $pid 2>/dev/null; rm -f "$out"' EXIT

# floor_checks IO: the floor over --io IO. --port 0: a free port, which its
# first line names (a fixed one may be some other test's client port).
floor_checks() {
	local io=$1 name rc port
	name=$([ "$io" = uring ] && echo io_uring || echo epoll)
	"$floor" --port 0 --cpus 0,1 --bytes 180 --io "$io" >"$out" 2>&1 &
	pid=$!
	if ! wait_for_line "$out" '^lca-httpd-floor: 127.0.0.1:' 5 $pid && [ "$io" = uring ] &&
		grep -q 'io_uring_queue_init' "$out"; then
		skip_check "floor --io uring" "this kernel refuses io_uring ($(tail -1 "$out"))"
		return
	fi
	check "$io: starts: two threads, an answer of 180 bytes, over $name" \
		"grep -q '^lca-httpd-floor: 127.0.0.1:[1-9][0-9]*, 2 thread(s), answer 180 bytes, $name\$' '$out'" ||
		sed 's/^/# /' "$out"
	port=$(sed -n 's/^lca-httpd-floor: 127.0.0.1:\([0-9]*\),.*/\1/p' "$out")
	check "$io: answers: 180 bytes a request, pipelined (3 and 200) or cut, on 8 connections at once" "python3 - ${port:-1} <<'PY'
import socket, sys, time
port = int(sys.argv[1])
req = b'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'

def read_n(s, n):
    buf = b''
    while len(buf) < n:
        d = s.recv(65536)
        assert d, ('closed after', len(buf), 'of', n)
        buf += d
    assert len(buf) == n, ('an answer too many', len(buf), n)
    return buf

conns = [socket.create_connection(('127.0.0.1', port), timeout=5) for _ in range(8)]
for s in conns:
    s.sendall(req)
for s in conns:
    a = read_n(s, 180)
    head, _, body = a.partition(b'\r\n\r\n')
    assert head.startswith(b'HTTP/1.1 200 OK\r\n'), head
    assert int(head.lower().split(b'content-length: ')[1].split(b'\r\n')[0]) == len(body), a
s = conns[0]
s.sendall(req * 3)                      # pipelined: three answers
assert read_n(s, 540) == a * 3
s.sendall(req * 200)                    # more than one send's worth
assert read_n(s, 36000) == a * 200
s.sendall(req[:-1]); time.sleep(0.1)     # the end cut between two reads
s.sendall(req[-1:])
assert read_n(s, 180) == a
s.settimeout(0.3)
try:
    extra = s.recv(1)
except socket.timeout:
    extra = b''
assert extra == b'', 'an answer too many'
PY"
	kill -TERM $pid
	wait $pid; rc=$?
	check "$io: stops on SIGTERM: exit 0" "[ $rc -eq 0 ]"
}

floor_checks epoll
if "$floor" --help | grep -q 'not in this build'; then
	skip_check "floor --io uring" "built without liburing"
else
	floor_checks uring
fi
port=18480
for bad in "--port 65536|--port 65536: 0 to 65535" "--cpus x --port $port|--cpus x: CPU numbers" \
	"--port $port --bytes 10|--bytes 10: too short for the head" "|--port is required" \
	"--port $port extra|unexpected argument" "--port $port --io poll|--io poll: epoll or uring"; do
	o=$("$floor" ${bad%%|*} 2>&1); rc=$?
	check "bad input '${bad%%|*}': exit 2, saying why" "[ $rc -eq 2 ] && grep -qF -- '${bad#*|}' <<<\"\$o\""
done
o=$("$floor" --help 2>&1); rc=$?
check "--help: exit 0, says it is a floor" "[ $rc -eq 0 ] && grep -q 'a floor for lca-httpd and nginx' <<<\"\$o\""
finish
