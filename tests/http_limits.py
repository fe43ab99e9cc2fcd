#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Raw-socket cases for lca-httpd behind a load balancer (tests/e2e_http.sh).

Usage: http_limits.py rfc PORT
       http_limits.py shed PORT
       http_limits.py flood PORT N
       http_limits.py drain PORT SERVER_PID THREADS

rfc: RFC 9112 cases, each with its status. shed: with --max-inflight 1, a
request that finds a connection stuck on a full socket gets 503 with
Retry-After, and 200 once it is gone. flood: N connections at once against
a server at a low fd limit; each is answered (200 or 503) or closed, none
left hanging. drain: keep-alive load while the server gets SIGTERM; every
request sent gets its answer. Waits are bounded only so that a broken
server fails instead of hanging the test; no time is asserted.
"""
import os
import select
import signal
import socket
import sys
import threading
import time

WAIT = 20.0


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def connect(port, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(WAIT)
    s.connect(("127.0.0.1", port))
    return s


def read_answer(s, buf=b""):
    """One answer: (status, headers dict, body, rest); status None on a close."""
    while b"\r\n\r\n" not in buf:
        try:
            d = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            return None, {}, b"", b""
        if not d:
            return None, {}, b"", buf
        buf += d
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    hdrs = {}
    for h in lines[1:]:
        k, _, v = h.partition(b":")
        hdrs[k.strip().lower().decode()] = v.strip().decode()
    n = int(hdrs.get("content-length", "0"))
    while len(rest) < n:
        d = s.recv(65536)
        if not d:
            break
        rest += d
    return int(lines[0][9:12]), hdrs, rest[:n], rest[n:]


def case(port, name, payload, status):
    s = connect(port)
    s.sendall(payload)
    got, hdrs, body, _ = read_answer(s)
    s.close()
    if got != status:
        fail("%s: wanted %d, got %r" % (name, status, got))
    print("ok %s: %d" % (name, status), flush=True)
    return hdrs, body


def rfc(port):
    h = b"Host: t\r\n"
    # Expect: 100-continue: 100 before the body, the answer after it.
    s = connect(port)
    s.sendall(b"GET / HTTP/1.1\r\n" + h + b"Content-Length: 5\r\nExpect: 100-continue\r\n\r\n")
    got, _, _, rest = read_answer(s)
    if got != 100:
        fail("expect 100-continue: wanted 100 before the body, got %r" % got)
    s.sendall(b"hello")
    got, _, body, _ = read_answer(s, rest)
    s.close()
    if got != 200 or not body.startswith(b"Hello"):
        fail("expect 100-continue: after the body wanted 200, got %r" % got)
    print("ok expect 100-continue: 100, then 200 after the body", flush=True)
    case(port, "expect 100-continue where the body changes nothing: the final status at once",
         b"POST / HTTP/1.1\r\n" + h + b"Content-Length: 5\r\nExpect: 100-continue\r\n\r\n", 405)
    case(port, "HTTP/1.1 without Host", b"GET / HTTP/1.1\r\n\r\n", 400)
    case(port, "HTTP/1.1 with two Host lines", b"GET / HTTP/1.1\r\n" + h + h + b"\r\n", 400)
    case(port, "HTTP/1.0 without Host", b"GET / HTTP/1.0\r\n\r\n", 200)
    _, body = case(port, "absolute-form target", b"GET http://t/ HTTP/1.1\r\n" + h + b"\r\n", 200)
    if not body.startswith(b"Hello"):
        fail("absolute-form: not the root's body: %r" % body)
    _, body = case(port, "absolute-form /user/3", b"GET http://t:80/user/3?x=1 HTTP/1.1\r\n" + h +
                   b"\r\n", 200)
    if b'"id":3' not in body:
        fail("absolute-form /user/3: %r" % body)
    case(port, "request line past 8 KiB", b"GET /" + b"u" * 9000 + b" HTTP/1.1\r\n" + h + b"\r\n",
         414)
    case(port, "20 headers of 1 KB", b"GET / HTTP/1.1\r\n" + h +
         b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 1000) for i in range(20)) + b"\r\n", 200)
    case(port, "one header line past 8 KiB", b"GET / HTTP/1.1\r\n" + h + b"X-Big: " +
         b"v" * 9000 + b"\r\n\r\n", 431)
    case(port, "101 header lines", b"GET / HTTP/1.1\r\n" + h +
         b"".join(b"X-N%d: 1\r\n" % i for i in range(100)) + b"\r\n", 431)
    te = b"POST / HTTP/1.1\r\n" + h
    case(port, "Transfer-Encoding: chunked on two lines",
         te + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400)
    case(port, "Transfer-Encoding: chunked, chunked",
         te + b"Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", 400)
    case(port, "Transfer-Encoding: chunked, gzip (chunked not last)",
         te + b"Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", 400)
    case(port, "Transfer-Encoding: ch@nked (malformed)",
         te + b"Transfer-Encoding: ch@nked\r\n\r\n0\r\n\r\n", 400)
    case(port, "Transfer-Encoding: gzip, chunked (a coding not done)",
         te + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501)
    case(port, "Transfer-Encoding: gzip alone", te + b"Transfer-Encoding: gzip\r\n\r\n", 501)
    case(port, "a chunked GET", b"GET / HTTP/1.1\r\n" + h +
         b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 200)
    # Only the chunk's size line, none of its bytes: 413 must not wait for them.
    case(port, "a chunk size past the body limit, before its bytes",
         te + b"Transfer-Encoding: chunked\r\n\r\n200000\r\n", 413)


def shed(port):
    # A connection stuck on a full socket: 8 MB asked, a small window, not read.
    stuck = connect(port, rcvbuf=4096)
    stuck.sendall(b"GET /bytes/8000000 HTTP/1.1\r\nHost: t\r\n\r\n")
    deadline = time.time() + WAIT
    while True:
        s = connect(port)
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        got, hdrs, _, _ = read_answer(s)
        s.close()
        if got == 503:
            break
        if got != 200 or time.time() > deadline:
            fail("shed: wanted 503 while a connection is stuck, got %r" % got)
        time.sleep(0.05)
    if hdrs.get("retry-after") != "1":
        fail("shed: 503 without Retry-After: %r" % hdrs)
    print("ok shed: 503 with Retry-After: 1 above --max-inflight", flush=True)
    stuck.settimeout(WAIT)
    got = 0
    while got < 8000000:
        d = stuck.recv(1 << 20)
        if not d:
            break
        got += len(d)
    stuck.close()
    deadline = time.time() + WAIT
    while True:
        s = connect(port)
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        st = read_answer(s)[0]
        s.close()
        if st == 200:
            break
        if time.time() > deadline:
            fail("shed: still %r once the stuck connection is gone" % st)
        time.sleep(0.05)
    print("ok shed: 200 again once nothing is in flight", flush=True)


def flood(port, n):
    conns = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        conns.append(s)
    outcome = {}
    pending = {}
    deadline = time.time() + WAIT
    for s in conns:  # every connect completes (the backlog holds them) or fails
        while True:
            _, w, _ = select.select([], [s], [], max(0, deadline - time.time()))
            if w or time.time() > deadline:
                break
        err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if not w or err != 0:
            outcome[s] = "connect failed"
            continue
        s.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        pending[s] = b""
    while pending and time.time() < deadline:
        r, _, _ = select.select(list(pending), [], [], max(0, deadline - time.time()))
        for s in r:
            try:
                d = s.recv(65536)
            except ConnectionResetError:
                d = b""
            if not d:
                outcome[s] = "closed" if not pending[s] else pending[s][9:12].decode()
                del pending[s]
                continue
            pending[s] += d
            if b"\r\n\r\n" in pending[s]:
                outcome[s] = pending[s][9:12].decode()
                del pending[s]
    counts = {}
    for v in outcome.values():
        counts[v] = counts.get(v, 0) + 1
    print("flood: %d connections: %s, %d hanging" % (n, counts, len(pending)), flush=True)
    if pending:
        fail("flood: %d connections neither answered nor closed" % len(pending))
    if counts.get("503", 0) == 0:
        fail("flood: no connection was refused with 503 at the fd limit")
    if set(counts) - {"200", "503", "closed"}:
        fail("flood: unexpected outcomes %r" % counts)
    for s in conns:
        s.close()
    # Room again: a new connection is served.
    deadline = time.time() + WAIT
    while True:
        s = connect(port)
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        st = read_answer(s)[0]
        s.close()
        if st == 200:
            break
        if time.time() > deadline:
            fail("flood: after the flood a new connection got %r" % st)
        time.sleep(0.05)
    print("ok flood: each answered or refused, 503 %d; then served again" % counts["503"],
          flush=True)
    print("refused_503=%d" % counts["503"])


class Loader(threading.Thread):
    """Keep-alive requests back to back until the server refuses to connect.
    A request counts as sent once written; lost if no answer comes for it."""

    def __init__(self, port, idx):
        super().__init__(daemon=True)
        self.port, self.idx = port, idx
        self.sent = self.answered = self.lost = self.closes = self.idle_closed = 0
        self.error = None

    def run(self):
        try:
            self.loop()
        except Exception as e:  # noqa: BLE001 - any failure fails the test
            self.error = repr(e)

    def loop(self):
        s = None
        k = 0
        while True:
            if s is None:
                try:
                    s = connect(self.port)
                except ConnectionRefusedError:
                    return  # the server stopped accepting: nothing more is sent
                buf = b""
            # A pooled client checks a kept connection before reuse: a FIN
            # already in means the server closed it idle.
            r, _, _ = select.select([s], [], [], 0)
            if r and not buf:
                s.close()
                s = None
                self.idle_closed += 1
                continue
            path = b"/user/%d" % (k % 100) if k % 4 == 0 else b"/"
            k += 1
            try:
                s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: t\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                s.close()
                s = None
                continue  # not written: never sent
            self.sent += 1
            st, hdrs, body, buf = read_answer(s, buf)
            if st != 200:
                self.lost += 1
                s.close()
                s = None
                continue
            self.answered += 1
            if hdrs.get("connection") == "close":
                self.closes += 1
                s.close()
                s = None


def drain(port, pid, n):
    # One idle keep-alive connection: the drain must close it, not wait on it.
    idle = connect(port)
    idle.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
    if read_answer(idle)[0] != 200:
        fail("drain: the idle connection's request was not answered")
    loaders = [Loader(port, i) for i in range(n)]
    for t in loaders:
        t.start()
    deadline = time.time() + WAIT
    while sum(t.answered for t in loaders) < 2000 and time.time() < deadline:
        time.sleep(0.05)
    os.kill(pid, signal.SIGTERM)
    for t in loaders:
        t.join(WAIT)
    if any(t.is_alive() for t in loaders):
        fail("drain: a client still runs %.0f s after SIGTERM" % WAIT)
    tot = {k: sum(getattr(t, k) for t in loaders)
           for k in ("sent", "answered", "lost", "closes", "idle_closed")}
    errs = [t.error for t in loaders if t.error]
    print("drain: %s" % tot, flush=True)
    if errs:
        fail("drain: client errors %r" % errs)
    if tot["lost"] != 0 or tot["sent"] != tot["answered"]:
        fail("drain: %d requests sent and not answered" % (tot["sent"] - tot["answered"]))
    if tot["closes"] == 0:
        fail("drain: no answer said Connection: close")
    try:
        closed = idle.recv(1) == b""
    except ConnectionResetError:
        closed = True
    if not closed:
        fail("drain: the idle connection got bytes instead of a close")
    print("ok drain: the idle keep-alive connection was closed", flush=True)
    print("answered=%d" % (tot["answered"] + 1))


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "rfc":
        rfc(port)
    elif mode == "shed":
        shed(port)
    elif mode == "flood":
        flood(port, int(sys.argv[3]))
    elif mode == "drain":
        drain(port, int(sys.argv[3]), int(sys.argv[4]))
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
