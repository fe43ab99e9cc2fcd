#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""lca-httpd's framing against a second, independent HTTP/1.1 parser
(tests/e2e_http.sh).

Usage: http_framing.py PORT

Every request tests/http_hostile.py sends is read by h11 (Debian's
python3-h11, a strict pure-Python HTTP/1.1 parser that shares no code with
http-parser) and sent to lca-httpd on a connection of its own, our side
shut after it. A proxy in front of lca-httpd that frames the bytes as h11
does must never see lca-httpd answer a request it did not see (a smuggled
one), nor lose one it saw. So, with N the requests h11 reads complete
before its end or its error, and the answers lca-httpd gives before it
closes:
  - it answers at most N requests without refusing them;
  - fewer than N only when its last answer refuses (400, 408, 413, 414,
    431, 501, 505: lca-httpd is stricter than h11 about obs-fold, versions
    and methods), and nothing comes after a refusal.
Exits 77 without h11.
"""
import socket
import sys

try:
    import h11
except ImportError:
    print("SKIP: no h11 in this python (Debian: python3-h11)")
    sys.exit(77)

import http_hostile as hh

REFUSALS = {400, 408, 413, 414, 431, 501, 505}


def reference(data):
    """(requests h11 reads complete, whether it stops on an error)."""
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(data)
    n = 0
    try:
        while True:
            ev = conn.next_event()
            if ev is h11.NEED_DATA or isinstance(ev, h11.ConnectionClosed):
                return n, False
            if ev is h11.PAUSED:
                # Answer it, as a server would, to read the next request.
                conn.send(h11.Response(status_code=200, headers=[("Content-Length", "0")]))
                conn.send(h11.EndOfMessage())
                if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                    return n, False  # HTTP/1.0 or Connection: close: nothing follows
                conn.start_next_cycle()
            elif isinstance(ev, h11.EndOfMessage):
                n += 1
    except h11.RemoteProtocolError:
        return n, True


def served(data):
    """The statuses lca-httpd answers @p data with, up to its close."""
    s = socket.create_connection(("127.0.0.1", hh.PORT), timeout=hh.WAIT)
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused before all was sent: the answer is still there to read
    got = [a[0] for a in hh.parse_answers(hh.read_all(s))]
    s.close()
    return got


def main():
    hh.PORT = int(sys.argv[1])
    cases = hh.all_payloads()
    for name, data in cases:
        n, err = reference(data)
        got = served(data)
        ok_answers = [st for st in got if st not in REFUSALS]
        refused = bool(got) and got[-1] in REFUSALS
        what = "%s: h11 reads %d request(s)%s; lca-httpd answers %s" % (
            name, n, " then an error" if err else "", got)
        if len(ok_answers) > n:
            hh.fail(what + ": a request h11 did not see was served")
        if any(st in REFUSALS for st in got[:-1]):
            hh.fail(what + ": an answer after a refusal")
        if len(ok_answers) < n and not refused:
            hh.fail(what + ": a request h11 read was neither answered nor refused")
        print("ok " + what, flush=True)
    print("ok framing: %d payloads, lca-httpd and h11 agree on every boundary" % len(cases))


if __name__ == "__main__":
    main()
