#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Bad and hostile clients against a running lca-httpd (tests/e2e_http.sh).

Usage: http_hostile.py PORT FILE_PREFIX [IDLE_CONNS]

Each case gets its status or its close, while a well-behaved client keeps
being served on a keep-alive connection the whole time; then the server's
counters (DPDK telemetry, /lcactor/http) must say what happened. No case
asserts a time: waits are bounded only so that a broken server fails the
test instead of hanging it.
"""
import json
import os
import resource
import socket
import struct
import sys
import threading
import time

PORT = int(sys.argv[1])
PREFIX = sys.argv[2]
IDLE = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
ADDR = ("127.0.0.1", PORT)
WAIT = 20.0  # most seconds any one answer may take before the test fails


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def telemetry(cmd="/lcactor/http"):
    path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % PREFIX
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(WAIT)
    s.connect(path)
    s.recv(1024)  # the greeting
    s.send(cmd.encode())
    reply = json.loads(s.recv(1 << 16).decode())
    s.close()
    return reply[cmd]


def connect():
    s = socket.create_connection(ADDR, timeout=WAIT)
    return s


def read_all(s):
    """Everything until the server closes."""
    out = b""
    while True:
        try:
            d = s.recv(65536)
        except ConnectionResetError:
            break
        if not d:
            break
        out += d
    return out


def status_of(data):
    if not data.startswith(b"HTTP/1.1 "):
        return None
    return int(data[9:12])


def expect_close_with(name, payload, status, then_wait=False):
    s = connect()
    s.sendall(payload)
    data = read_all(s)
    s.close()
    got = status_of(data)
    if got != status:
        fail("%s: wanted %d then a close, got %r" % (name, status, data[:80]))
    print("ok %s: %d, then closed" % (name, status), flush=True)


class GoodClient(threading.Thread):
    """GET / on one keep-alive connection, over and over, while the cases run."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.served = 0
        self.error = None

    def run(self):
        try:
            s = connect()
            f = s.makefile("rb")
            while not self.stop.is_set():
                s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
                line = f.readline()
                if not line.startswith(b"HTTP/1.1 200"):
                    raise RuntimeError("bad status line %r" % line)
                length = None
                while True:
                    h = f.readline()
                    if h in (b"\r\n", b""):
                        break
                    if h.lower().startswith(b"content-length:"):
                        length = int(h.split(b":")[1])
                if f.read(length) != b"Hello from lca-httpd on DPDK lcores":
                    raise RuntimeError("bad body")
                self.served += 1
                time.sleep(0.005)
            s.close()
        except Exception as e:  # noqa: BLE001 - any failure fails the test
            self.error = repr(e)


def parse_answers(data):
    """Split pipelined answers; return [(status, body)]."""
    out = []
    while data:
        head, sep, rest = data.partition(b"\r\n\r\n")
        if not sep:
            break
        length = 0
        for h in head.split(b"\r\n")[1:]:
            if h.lower().startswith(b"content-length:"):
                length = int(h.split(b":")[1])
        out.append((int(head[9:12]), rest[:length]))
        data = rest[length:]
    return out


def read_answers(s, n):
    data = b""
    while len(parse_answers(data)) < n:
        d = s.recv(65536)
        if not d:
            break
        data += d
    return parse_answers(data)


def main():
    before = telemetry()
    good = GoodClient()
    good.start()

    # Malformed: a bad method, a bad version, a header line without a colon.
    expect_close_with("malformed method", b"G@T / HTTP/1.1\r\nHost: t\r\n\r\n", 400)
    expect_close_with("malformed version", b"GET / HTTP/9x\r\nHost: t\r\n\r\n", 400)
    expect_close_with("malformed header", b"GET / HTTP/1.1\r\nHost\r\n\r\n", 400)
    # Request line and headers past their limits (the server runs with 1024).
    expect_close_with("header too large",
                      b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 4000 + b"\r\n\r\n", 431)
    expect_close_with("request line too large", b"GET /" + b"b" * 4000 + b" HTTP/1.1\r\n\r\n", 414)
    # A body past the limit (4096): announced, and chunked.
    expect_close_with("body too large (length)",
                      b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n" + b"x" * 8192,
                      413)
    expect_close_with("body too large (chunked)",
                      b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" +
                      (b"1000\r\n" + b"y" * 4096 + b"\r\n") * 3, 413)
    # A slow sender: half a request, then nothing (the server runs with a
    # 500 ms request timeout): 408 and a close.
    expect_close_with("slow sender", b"GET / HTTP/1.1\r\nHost: t\r\n", 408)

    # Pipelining: many requests in one write, answers in order, the /user
    # ones crossing to the service actor and back.
    s = connect()
    reqs = []
    for i in range(60):
        reqs.append(b"GET /user/%d HTTP/1.1\r\nHost: t\r\n\r\n" % i if i % 3 == 0
                    else b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
    s.sendall(b"".join(reqs))
    answers = read_answers(s, 60)
    s.close()
    if len(answers) != 60:
        fail("pipelining: %d answers of 60" % len(answers))
    for i, (st, body) in enumerate(answers):
        if st != 200:
            fail("pipelining: answer %d has status %d" % (i, st))
        if i % 3 == 0 and json.loads(body)["id"] != i:
            fail("pipelining: answer %d is for user %s" % (i, body))
    print("ok pipelining: 60 answers in order, 20 through the service actor", flush=True)

    # Half-close: requests, then our side shut; every answer must come.
    for _ in range(3):
        s = connect()
        # Corked: the requests and the FIN leave in one segment, so the
        # server sees the half-close with the requests (its counter moves).
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
        s.sendall(b"GET /user/7 HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n")
        s.shutdown(socket.SHUT_WR)
        answers = parse_answers(read_all(s))
        s.close()
        if [a[0] for a in answers] != [200, 200] or json.loads(answers[0][1])["id"] != 7:
            fail("half-close: answers %r" % answers)
    print("ok half-close: both answers, then closed (3 times)", flush=True)

    # The peer resets mid-answer: a large answer, a small window, a reset.
    for _ in range(2):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(WAIT)
        s.connect(ADDR)
        s.sendall(b"GET /bytes/8000000 HTTP/1.1\r\nHost: t\r\n\r\n")
        got = s.recv(1000)
        if status_of(got) != 200:
            fail("reset: wanted the start of a 200, got %r" % got[:40])
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()  # RST, with most of the answer unsent
    print("ok reset mid-answer: 2 connections reset", flush=True)

    # 10k idle connections: opened, counted open, the rest still served.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = IDLE + 256
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
        soft = min(want, hard)
    n_idle = min(IDLE, soft - 256)
    if n_idle < IDLE:
        print("note: RLIMIT_NOFILE allows %d idle connections, not %d" % (n_idle, IDLE))
    t = telemetry()
    base_open, base_opened = t["open"], t["opened"]
    idle = []
    for _ in range(n_idle):
        idle.append(socket.create_connection(ADDR, timeout=WAIT))
    deadline = time.time() + WAIT
    while True:
        t = telemetry()
        if t["opened"] - base_opened >= n_idle and t["open"] >= n_idle:
            break
        if time.time() > deadline:
            fail("idle: server took %d and has %d open, wanted %d" %
                 (t["opened"] - base_opened, t["open"], n_idle))
        time.sleep(0.05)
    t = telemetry()
    s = connect()
    s.sendall(b"GET /user/3 HTTP/1.1\r\nHost: t\r\n\r\n")
    a = read_answers(s, 1)
    s.close()
    if not a or a[0][0] != 200:
        fail("idle: a new connection was not served with %d idle open" % n_idle)
    print("ok %d idle connections: open %d (per lcore: %s), a new one served" %
          (n_idle, t["open"], ", ".join("%s=%d" % (k[11:], v) for k, v in t.items()
                                          if k.startswith("open_lcore_"))), flush=True)
    for s in idle:
        s.close()
    deadline = time.time() + WAIT
    while telemetry()["open"] > base_open:
        if time.time() > deadline:
            fail("idle: %d still open after the clients closed" % telemetry()["open"])
        time.sleep(0.05)

    good.stop.set()
    good.join(WAIT)
    if good.error is not None or good.served == 0:
        fail("the well-behaved client: %s after %d answers" % (good.error, good.served))
    print("ok well-behaved client served %d times throughout" % good.served, flush=True)

    after = telemetry()
    d = {k: after[k] - before.get(k, 0) for k in after}
    want = {"status_400": 3, "status_431": 1, "status_414": 1, "status_413": 2, "status_408": 1}
    for k, v in want.items():
        if d[k] != v:
            fail("counter %s: %d, wanted %d" % (k, d[k], v))
    for k in ("half_closed", "resets"):
        if d[k] < 1:
            fail("counter %s did not move" % k)
    if d["opened"] < n_idle:
        fail("counter opened: %d, wanted at least %d" % (d["opened"], n_idle))
    print("ok counters: " + ", ".join("%s +%d" % (k, d[k]) for k in sorted(want) +
                                      ["half_closed", "resets", "opened", "closed",
                                       "user_answered"]), flush=True)


if __name__ == "__main__":
    main()
