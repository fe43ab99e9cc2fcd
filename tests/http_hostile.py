#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Bad and hostile clients against a running lca-httpd (tests/e2e_http.sh).

Usage: http_hostile.py PORT FILE_PREFIX [IDLE_CONNS]

Its requests are also read by a second parser (tests/http_framing.py
imports CLOSE_CASES, KEEP_CASES and all_payloads()).

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

PORT = PREFIX = ADDR = None  # set by main(): tests/http_framing.py imports the cases
IDLE = 10000
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
    """Everything until the server closes (or WAIT passes without a byte)."""
    out = b""
    while True:
        try:
            d = s.recv(65536)
        except ConnectionResetError:
            break
        except TimeoutError:
            return out + b"\n(no close in %d s)" % WAIT
        if not d:
            break
        out += d
    return out


def status_of(data):
    if not data.startswith(b"HTTP/1.1 "):
        return None
    return int(data[9:12])


# Requests answered with a status, then a close, and nothing after: a
# request behind the refused one is never answered (it would be smuggled
# past a proxy that reads the bytes another way). Each: a name, the bytes
# (a list: sent in that many writes, apart), the status and the counter of
# its cause (None: the status counter only). The server runs with limits of
# 1024 (request line, headers) and 4096 (body), and a 500 ms request timeout.
SMUGGLED = b"GET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n"
CLOSE_CASES = [
    # Malformed: a bad method, a bad version, a header line without a colon.
    ("malformed method", b"G@T / HTTP/1.1\r\nHost: t\r\n\r\n", 400, None),
    ("malformed version", b"GET / HTTP/9x\r\nHost: t\r\n\r\n", 400, None),
    ("malformed header", b"GET / HTTP/1.1\r\nHost\r\n\r\n", 400, None),
    # Request line and headers past their limits.
    ("header too large",
     b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 4000 + b"\r\n\r\n", 431, None),
    ("request line too large", b"GET /" + b"b" * 4000 + b" HTTP/1.1\r\n\r\n", 414, None),
    # A body past the limit: announced, and chunked.
    ("body too large (length)",
     b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n" + b"x" * 8192, 413, None),
    ("body too large (chunked)",
     b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" +
     (b"1000\r\n" + b"y" * 4096 + b"\r\n") * 3, 413, None),
    # A header name is a token (RFC 9112 5.1: no white space before the
    # colon). http-parser, built lenient, takes a space in a name and still
    # frames the body by it; nginx answers these 400.
    ("Transfer-Encoding with a space before the colon",
     b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + SMUGGLED,
     400, "refused_header_name"),
    ("Content-Length with a space before the colon",
     b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length : 5\r\n\r\nhello" + SMUGGLED,
     400, "refused_header_name"),
    ("a space inside a header name", b"GET / HTTP/1.1\r\nHost: t\r\nX Y: z\r\n\r\n",
     400, "refused_header_name"),
    ("white space before the first header line", b"GET / HTTP/1.1\r\n Host: t\r\n\r\n",
     400, "refused_header_name"),
    ("a tab before the colon", b"GET / HTTP/1.1\r\nHost\t: t\r\n\r\n", 400, None),
    # Content-Length and Transfer-Encoding together, or two lengths.
    ("Content-Length with Transfer-Encoding",
     b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
     b"0\r\n\r\n" + SMUGGLED, 400, None),
    ("two different Content-Length lines",
     b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 40\r\n\r\nhello" +
     SMUGGLED, 400, None),
    # obs-fold: a server must refuse it, or replace it with a space (RFC
    # 9112 5.2); refused here, as nginx does.
    ("obs-fold", b"GET / HTTP/1.1\r\nHost: t\r\nX-A: a\r\n b\r\n\r\n", 400, "refused_obs_fold"),
    ("obs-fold after an empty value", b"GET / HTTP/1.1\r\nHost: t\r\nX-A:\r\n b\r\n\r\n",
     400, "refused_obs_fold"),
    ("obs-fold of white space only", b"GET / HTTP/1.1\r\nHost: t\r\nX-A: a\r\n \t\r\n\r\n",
     400, "refused_obs_fold"),
    ("obs-fold with a bare LF", b"GET / HTTP/1.1\nHost: t\nX-A: a\n\tb\n\n", 400, "refused_obs_fold"),
    ("obs-fold across two reads",
     [b"GET / HTTP/1.1\r\nHost: t\r\nX-A: a\r\n", b" b\r\n\r\n"], 400, "refused_obs_fold"),
    ("obs-fold after an empty value, across two reads",
     [b"GET / HTTP/1.1\r\nHost: t\r\nX-A:\r\n", b" b\r\n\r\n"], 400, "refused_obs_fold"),
    ("obs-fold in Content-Length",
     b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n 0\r\n\r\n" + b"x" * 10, 400, None),
    # HTTP/1 only (RFC 9110 6.2: 1.2 is served as 1.1, below).
    ("HTTP/2.0", b"GET / HTTP/2.0\r\nHost: t\r\n\r\n", 505, None),
    ("HTTP/9.9", b"GET / HTTP/9.9\r\nHost: t\r\n\r\n", 505, None),
    ("HTTP/0.9 (no version)", b"GET /\r\n\r\n", 505, None),
    # A method this server does not know (RFC 9110 9.1); "G@T" is no token.
    ("unknown method", b"FOO / HTTP/1.1\r\nHost: t\r\n\r\n", 501, "refused_unknown_method"),
    ("unknown method, a known one's prefix", b"PATCHED / HTTP/1.1\r\nHost: t\r\n\r\n",
     501, "refused_unknown_method"),
    ("lower-case method", b"get / HTTP/1.1\r\nHost: t\r\n\r\n", 501, "refused_unknown_method"),
    # A slow sender: half a request, then nothing: 408 and a close.
    ("slow sender", b"GET / HTTP/1.1\r\nHost: t\r\n", 408, None),
]

# Requests served on one connection, then our side shut: every answer, in
# order, then the close.
KEEP_CASES = [
    ("a body by Content-Length, then a request",
     b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: t\r\n\r\n",
     [405, 200]),
    ("a chunked body, then a request",
     b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
     b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", [405, 200]),
    ("HTTP/1.2, served as 1.1", b"GET / HTTP/1.2\r\nHost: t\r\n\r\n", [200]),
    ("HTTP/1.0", b"GET / HTTP/1.0\r\n\r\n", [200]),
    ("a known method not allowed", b"DELETE / HTTP/1.1\r\nHost: t\r\n\r\n", [405]),
]

GOOD_REQ = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"  # the well-behaved client's, over and over
# 60 in one write, every third to /user/ID (the service actor).
PIPELINED = b"".join(b"GET /user/%d HTTP/1.1\r\nHost: t\r\n\r\n" % i if i % 3 == 0
                     else GOOD_REQ for i in range(60))
HALF_CLOSE_REQS = b"GET /user/7 HTTP/1.1\r\nHost: t\r\n\r\n" + GOOD_REQ
RESET_REQ = b"GET /bytes/8000000 HTTP/1.1\r\nHost: t\r\n\r\n"


def all_payloads():
    """Every request this file sends, one connection's bytes each: (name, bytes)."""
    out = [(name, joined(p)) for name, p, _, _ in CLOSE_CASES]
    out += [(name, p) for name, p, _ in KEEP_CASES]
    out += [("well-behaved client", GOOD_REQ), ("pipelining", PIPELINED),
            ("half-close", HALF_CLOSE_REQS), ("reset mid-answer", RESET_REQ)]
    return out


def joined(payload):
    return b"".join(payload) if isinstance(payload, list) else payload


def send_pieces(s, payload):
    if not isinstance(payload, list):
        s.sendall(payload)
        return
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for i, piece in enumerate(payload):
        if i > 0:
            time.sleep(0.05)  # the server reads the first piece alone
        s.sendall(piece)


def expect_close_with(name, payload, status):
    s = connect()
    try:
        send_pieces(s, payload)
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused before all was sent: the answer is still there to read
    data = read_all(s)
    s.close()
    got = status_of(data)
    if got != status:
        fail("%s: wanted %d then a close, got %r" % (name, status, data[:80]))
    answers = parse_answers(data)
    if len(answers) != 1 or data.endswith(b" s)"):
        fail("%s: %r, wanted the %d alone, then a close" %
             (name, [a[0] for a in answers], status))
    print("ok %s: %d, then closed" % (name, status), flush=True)


def expect_answers(name, payload, statuses):
    s = connect()
    s.sendall(payload)
    s.shutdown(socket.SHUT_WR)
    got = [a[0] for a in parse_answers(read_all(s))]
    s.close()
    if got != statuses:
        fail("%s: answers %r, wanted %r" % (name, got, statuses))
    print("ok %s: %s" % (name, ", ".join(str(x) for x in got)), flush=True)


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
                s.sendall(GOOD_REQ)
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
    global PORT, PREFIX, ADDR, IDLE
    PORT = int(sys.argv[1])
    PREFIX = sys.argv[2]
    IDLE = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    ADDR = ("127.0.0.1", PORT)
    before = telemetry()
    good = GoodClient()
    good.start()

    for name, payload, status, _ in CLOSE_CASES:
        expect_close_with(name, payload, status)
    for name, payload, statuses in KEEP_CASES:
        expect_answers(name, payload, statuses)

    # Pipelining: many requests in one write, answers in order, the /user
    # ones crossing to the service actor and back.
    s = connect()
    s.sendall(PIPELINED)
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
        s.sendall(HALF_CLOSE_REQS)
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
        s.sendall(RESET_REQ)
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
    want = {k: 0 for k in ("status_400", "status_405", "status_408", "status_413", "status_414",
                           "status_431", "status_501", "status_505", "refused_header_name",
                           "refused_obs_fold", "refused_unknown_method")}
    for _, _, status, cause in CLOSE_CASES:
        want["status_%d" % status] += 1
        if cause is not None:
            want[cause] += 1
    want["status_405"] = sum(a.count(405) for _, _, a in KEEP_CASES)
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
