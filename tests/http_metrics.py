#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""lca-httpd's /metrics and access log (tests/e2e_http.sh).

Usage: http_metrics.py scrape PORT N M
       http_metrics.py clf LOG ANSWERS ROOT_LINES

scrape: parse /metrics by the Prometheus text exposition format 0.0.4
(https://prometheus.io/docs/instrumenting/exposition_formats/), send N
GET / and M GET /nope on one keep-alive connection, parse it again, and
check that the counters moved by exactly what was sent. clf: every line of
LOG is in the common log format, there are ANSWERS of them, and
ROOT_LINES are GET / answered 200 with the 35-byte body.
"""
import math
import re
import socket
import sys

WAIT = 20.0
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")


class Malformed(Exception):
    pass


def parse_value(s):
    if s in ("+Inf", "Inf"):
        return math.inf
    if s == "-Inf":
        return -math.inf
    if s == "NaN":
        return math.nan
    try:
        return float(s)
    except ValueError:
        raise Malformed("not a value: %r" % s)


def parse_labels(s, i, line):
    """Labels from s[i] == '{': (dict, index after '}')."""
    labels = {}
    i += 1
    while True:
        if s[i] == "}":
            return labels, i + 1
        m = re.compile(LABEL).match(s, i)
        if not m or s[m.end():m.end() + 2] != '="':
            raise Malformed("bad label in %r" % line)
        name, i = m.group(0), m.end() + 2
        val = []
        while s[i] != '"':
            if s[i] == "\\":
                esc = s[i + 1]
                if esc not in 'n"\\':
                    raise Malformed("bad escape in %r" % line)
                val.append("\n" if esc == "n" else esc)
                i += 2
            else:
                val.append(s[i])
                i += 1
        if name in labels:
            raise Malformed("label %s twice in %r" % (name, line))
        labels[name] = "".join(val)
        i += 1
        if s[i] == ",":
            i += 1
        elif s[i] != "}":
            raise Malformed("bad label list in %r" % line)


def family_of(name, types):
    for suffix in ("_bucket", "_sum", "_count"):
        base = name[:-len(suffix)]
        if name.endswith(suffix) and types.get(base) in ("histogram", "summary"):
            return base
    return name


def parse(text):
    """{family: {"type": T, "help": H, "samples": [(name, labels, value)]}}"""
    if not text.endswith("\n"):
        raise Malformed("the last line does not end with a newline")
    fams, types, done, current = {}, {}, set(), None
    for line in text.split("\n")[:-1]:
        if line.strip() == "":
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                if not re.fullmatch(NAME, parts[2]):
                    raise Malformed("bad name in %r" % line)
                f = fams.setdefault(parts[2], {"type": "untyped", "help": None, "samples": []})
                if parts[1] == "TYPE":
                    if parts[2] in types or f["samples"]:
                        raise Malformed("TYPE after samples or twice: %r" % line)
                    if len(parts) != 4 or parts[3] not in TYPES:
                        raise Malformed("bad TYPE: %r" % line)
                    types[parts[2]] = f["type"] = parts[3]
                else:
                    if f["help"] is not None:
                        raise Malformed("HELP twice: %r" % line)
                    f["help"] = parts[3] if len(parts) == 4 else ""
            continue
        m = re.compile(NAME).match(line)
        if not m:
            raise Malformed("bad sample line %r" % line)
        name, i, labels = m.group(0), m.end(), {}
        if i < len(line) and line[i] == "{":
            labels, i = parse_labels(line, i, line)
        rest = line[i:].split()
        if not line[i:i + 1] in (" ", "\t") or len(rest) not in (1, 2):
            raise Malformed("bad sample line %r" % line)
        if len(rest) == 2 and not re.fullmatch(r"-?[0-9]+", rest[1]):
            raise Malformed("bad timestamp in %r" % line)
        fam = family_of(name, types)
        if fam != current and fam in done:
            raise Malformed("family %s not in one group" % fam)
        if current is not None and fam != current:
            done.add(current)
        current = fam
        f = fams.setdefault(fam, {"type": "untyped", "help": None, "samples": []})
        f["samples"].append((name, labels, parse_value(rest[0])))
    for fam, f in fams.items():
        check_family(fam, f)
    return fams


def check_family(fam, f):
    seen = set()
    for name, labels, v in f["samples"]:
        key = (name, tuple(sorted(labels.items())))
        if key in seen:
            raise Malformed("%s%s twice" % (name, labels))
        seen.add(key)
        if f["type"] == "counter" and not v >= 0:
            raise Malformed("counter %s is %r" % (name, v))
    if f["type"] != "histogram":
        return
    buckets = [(parse_value(l["le"]), v) for n, l, v in f["samples"] if n == fam + "_bucket"]
    count = [v for n, _, v in f["samples"] if n == fam + "_count"]
    sums = [v for n, _, v in f["samples"] if n == fam + "_sum"]
    if not buckets or buckets[-1][0] != math.inf or len(count) != 1 or len(sums) != 1:
        raise Malformed("histogram %s needs buckets up to +Inf, _sum and _count" % fam)
    if [b for b, _ in buckets] != sorted(b for b, _ in buckets):
        raise Malformed("histogram %s: le not increasing" % fam)
    if any(a[1] > b[1] for a, b in zip(buckets, buckets[1:])):
        raise Malformed("histogram %s: buckets not cumulative" % fam)
    if buckets[-1][1] != count[0]:
        raise Malformed("histogram %s: +Inf bucket %r != _count %r" % (fam, buckets[-1][1], count[0]))


def read_answer(s, buf):
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            raise SystemExit("FAIL: the server closed the connection")
        buf += d
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    hdrs = {k.strip().lower(): v.strip() for k, _, v in (h.partition(b":") for h in lines[1:])}
    n = int(hdrs.get(b"content-length", b"0"))
    while len(rest) < n:
        d = s.recv(65536)
        if not d:
            raise SystemExit("FAIL: the server closed mid-answer")
        rest += d
    return int(lines[0].split()[1]), hdrs, rest[:n], rest[n:]


def scrape(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    status, hdrs, body, _ = read_answer(s, b"")
    s.close()
    if status != 200 or hdrs.get(b"content-type", b"").split(b";")[0] != b"text/plain" or \
            b"version=0.0.4" not in hdrs.get(b"content-type", b""):
        raise SystemExit("FAIL: /metrics answered %s, %s" % (status, hdrs.get(b"content-type")))
    return parse(body.decode("utf-8"))


def value(fams, fam, name=None, **labels):
    for n, l, v in fams[fam]["samples"]:
        if n == (name or fam) and l == labels:
            return v
    raise SystemExit("FAIL: no %s%s" % (name or fam, labels))


def scrape_case(port, n, m):
    before = scrape(port)
    s = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    buf = b""
    for path, times, want in ((b"/", n, 200), (b"/nope", m, 404)):
        for _ in range(times):
            s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: t\r\n\r\n")
            status, _, _, buf = read_answer(s, buf)
            if status != want:
                raise SystemExit("FAIL: GET %s answered %d" % (path.decode(), status))
    s.close()
    after = scrape(port)
    # The first scrape is counted by the second: its own answer was built
    # before its 200 was counted; its request was counted before it.
    hist = "lca_http_request_duration_seconds"
    want = {
        ("lca_http_requests_total", None, ()): n + m + 1,
        ("lca_http_responses_total", None, (("code", "200"),)): n + 1,
        ("lca_http_responses_total", None, (("code", "404"),)): m,
        (hist, hist + "_count", ()): n + m + 1,
        (hist, hist + "_bucket", (("le", "+Inf"),)): n + m + 1,
        ("lca_http_connections_accepted_total", None, ()): 2,
        ("lca_http_refused_total", None, (("reason", "shed"),)): 0,
        ("lca_http_access_log_dropped_total", None, ()): 0,
    }
    for (fam, name, labels), delta in want.items():
        got = value(after, fam, name, **dict(labels)) - value(before, fam, name, **dict(labels))
        print("%s%s: +%g (want +%d)" % (name or fam, dict(labels) or "", got, delta))
        if got != delta:
            raise SystemExit("FAIL: %s moved by %g, not %d" % (name or fam, got, delta))
    if value(after, "lca_http_connections_open") < 1:
        raise SystemExit("FAIL: the scrape's own connection is not counted open")
    if value(after, hist, hist + "_sum") < value(before, hist, hist + "_sum"):
        raise SystemExit("FAIL: the latency sum went down")
    print("ok metrics: %d families parsed, counters moved by what was sent" % len(after))


CLF = re.compile(r'^(\S+) (\S+) (\S+) \[(\d{2})/([A-Z][a-z]{2})/(\d{4}):(\d{2}):(\d{2}):(\d{2}) '
                 r'([+-]\d{4})\] "((?:[^"\\]|\\.)*)" (\d{3}) (\d+|-)$')


def clf_case(path, answers, root_lines):
    lines = open(path, encoding="ascii").read().split("\n")
    if lines[-1] != "":
        raise SystemExit("FAIL: the log's last line is not whole")
    lines = lines[:-1]
    for ln in lines:
        m = CLF.match(ln)
        if not m:
            raise SystemExit("FAIL: not CLF: %r" % ln)
        socket.inet_aton(m.group(1))
    roots = sum(1 for ln in lines if CLF.match(ln).group(11, 12, 13) == ("GET / HTTP/1.1", "200", "35"))
    print("log: %d lines (want %d), %d of GET / 200 35 (want %d)" % (len(lines), answers, roots, root_lines))
    if len(lines) != answers or roots != root_lines:
        raise SystemExit("FAIL: the log's counts")
    print("ok clf")


def main():
    try:
        if sys.argv[1] == "scrape":
            scrape_case(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
        elif sys.argv[1] == "clf":
            clf_case(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        elif sys.argv[1] == "parse":  # the parser alone, on stdin (its own check)
            print(len(parse(sys.stdin.read())))
        else:
            raise SystemExit(__doc__)
    except Malformed as e:
        raise SystemExit("FAIL: /metrics is not the text format: %s" % e)


if __name__ == "__main__":
    main()
