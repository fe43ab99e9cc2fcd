#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# lca-httpd-floor, the socket path alone that scripts/http-compare.sh runs
# as the floor of lca-httpd and nginx: its answer is the byte count asked,
# one a request (pipelined, or a request whose end is cut between two
# reads), from each of its threads; bad arguments exit 2, SIGTERM 0.
set -u
floor=$1
fail=0
. "$(dirname "$0")/e2e_lib.sh"
out=$(mktemp)
trap 'kill -9 $pid 2>/dev/null; rm -f "$out"' EXIT

# --port 0: a free port, which its first line names (a fixed one may be
# some other test's client port).
"$floor" --port 0 --cpus 0,1 --bytes 180 >"$out" 2>&1 &
pid=$!
check "starts: two threads, an answer of 180 bytes" \
	"wait_for_line '$out' '^lca-httpd-floor: 127.0.0.1:[1-9][0-9]*, 2 thread\\(s\\), answer 180 bytes\$' 5 $pid" ||
	sed 's/^/# /' "$out"
port=$(sed -n 's/^lca-httpd-floor: 127.0.0.1:\([0-9]*\),.*/\1/p' "$out")
port=${port:-1}
check "answers: 180 bytes a request, pipelined or cut, on 8 connections at once" "python3 - $port <<'PY'
import socket, sys, time
port = int(sys.argv[1])
req = b'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'

def read_n(s, n):
    buf = b''
    while len(buf) < n:
        d = s.recv(65536)
        assert d, ('closed after', len(buf), 'of', n)
        buf += d
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
assert len(read_n(s, 540)) == 540
s.sendall(req[:-1]); time.sleep(0.1)     # the end cut between two reads
s.sendall(req[-1:])
assert len(read_n(s, 180)) == 180
s.settimeout(0.3)
try:
    extra = s.recv(1)
except socket.timeout:
    extra = b''
assert extra == b'', 'an answer too many'
PY"
kill -TERM $pid
wait $pid; rc=$?
check "stops on SIGTERM: exit 0" "[ $rc -eq 0 ]"

for bad in "--port 65536|--port 65536: 0 to 65535" "--cpus x --port $port|--cpus x: CPU numbers" \
	"--port $port --bytes 10|--bytes 10: too short for the head" "|--port is required" \
	"--port $port extra|unexpected argument"; do
	o=$("$floor" ${bad%%|*} 2>&1); rc=$?
	check "bad input '${bad%%|*}': exit 2, saying why" "[ $rc -eq 2 ] && grep -qF -- '${bad#*|}' <<<\"\$o\""
done
o=$("$floor" --help 2>&1); rc=$?
check "--help: exit 0, says it is a floor" "[ $rc -eq 0 ] && grep -q 'a floor for lca-httpd and nginx' <<<\"\$o\""
finish
