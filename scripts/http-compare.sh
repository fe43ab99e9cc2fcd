#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lca-httpd against nginx, fairly (issue 25 item 6). Each server alone on the
# same CPUs, loaded by wrk (saturation) and lca-load (fixed rates, wrk2's
# open loop) sharing those CPUs.
#
#  - Every cell runs each server --reps times (at least 3), in ABBA order
#    (A B C, C B A, A B C ...), so a drift of the machine falls on all alike.
#  - Each server is started for each run and warmed up (wrk for --warmup
#    seconds, not counted) before the measured run.
#  - Both answers have the same byte count: nginx's body is padded or cut to
#    match lca-httpd's whole answer, checked on a raw socket, or no run.
#  - Each cell prints every sample, the median and the spread ((max - min) /
#    median); a ratio to nginx is printed only where the gap between the
#    medians is larger than the larger spread, else "no ratio" and why.
#
# Cells: sat-c100 and sat-c10 (wrk -t2 -cN, req/s); p99 at --rates percent
# of nginx's median saturation (lca-load --rate, 100 connections, p99 ms,
# and the server's CPU per request); rate-N, the same at N req/s (a fixed
# rate, whatever the saturation: --cells rate-2000,rate-20000 --rates '').
# Servers: nginx, lca-epoll (--io epoll), lca-uring (--io uring), lca (the
# default --io), floor and floor-uring (lca-httpd-floor --io epoll|uring:
# the socket path alone, SO_REUSEPORT, no runtime and no parser, the same
# answer's bytes; with floor each cell also prints every server's share
# of it).
# Needs nginx and wrk (Debian: apt-get install nginx-light wrk); --install
# installs them.
# Usage: scripts/http-compare.sh [--duration SEC] [--warmup SEC] [--reps N]
#          [--cpus LIST] [--servers LIST] [--cells LIST] [--rates PCTS]
#          [--build DIR] [--out DIR] [--install]
set -euo pipefail
cd "$(dirname "$0")/.."

duration=10
warmup=2
reps=3
cpus=0,1
servers=nginx,lca-epoll,lca-uring
cells=sat-c100,sat-c10
rates=50,90
build=build
out=""
install=0
while [ $# -gt 0 ]; do
	case "$1" in
	--duration) duration=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--servers) servers=$2; shift 2 ;;
	--cells) cells=$2; shift 2 ;;
	--rates) rates=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--install) install=1; shift ;;
	--help)
		sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'
		exit 0 ;;
	*) echo "http-compare: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
[[ "$duration" =~ ^[0-9]+$ && "$duration" -ge 1 ]] || { echo "http-compare: bad --duration '$duration'" >&2; exit 2; }
[[ "$warmup" =~ ^[0-9]+$ ]] || { echo "http-compare: bad --warmup '$warmup'" >&2; exit 2; }
[[ "$reps" =~ ^[0-9]+$ && "$reps" -ge 3 ]] || { echo "http-compare: --reps must be at least 3 (a median and a spread need them)" >&2; exit 2; }
[[ "$cpus" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "http-compare: bad --cpus '$cpus'" >&2; exit 2; }
[[ "$servers" =~ ^(nginx|lca|lca-epoll|lca-uring|floor|floor-uring)(,(nginx|lca|lca-epoll|lca-uring|floor|floor-uring))*$ ]] || { echo "http-compare: bad --servers '$servers' (nginx, lca, lca-epoll, lca-uring, floor, floor-uring)" >&2; exit 2; }
[[ "$cells" =~ ^(sat-c[0-9]+|rate-[0-9]+)(,(sat-c[0-9]+|rate-[0-9]+))*$ ]] || { echo "http-compare: bad --cells '$cells' (sat-cN, rate-N,...)" >&2; exit 2; }
[[ -z "$rates" || "$rates" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "http-compare: bad --rates '$rates'" >&2; exit 2; }
[[ -z "$rates" || ",$servers," == *,nginx,* ]] || { echo "http-compare: --rates are percents of nginx's saturation: --servers needs nginx" >&2; exit 2; }

missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
if [ ${#missing[@]} -gt 0 ]; then
	if [ $install = 1 ]; then
		sudo=""
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
	else
		echo "http-compare: needs ${missing[*]} (apt-get install -y ${missing[*]}, or --install)" >&2
		exit 2
	fi
fi
httpd=$build/apps/httpd/lca-httpd
load=$build/apps/load/lca-load
floor=$build/apps/httpd/lca-httpd-floor
[ -x "$httpd" ] && [ -x "$load" ] && [ -x "$floor" ] || { echo "http-compare: build first (ninja -C $build)" >&2; exit 2; }
out=${out:-bench-out/http-compare-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
exec python3 - "$(cd "$out" && pwd)" "$httpd" "$load" "$(command -v nginx || echo /usr/sbin/nginx)" "$floor" \
	"$duration" "$warmup" "$reps" "$cpus" "$servers" "$cells" "$rates" <<'PY'
import datetime, json, os, platform, re, signal, socket, statistics, subprocess, sys, time

out, httpd, load, nginx, floor = sys.argv[1:6]
duration, warmup, reps = int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
cpus, servers, cells = sys.argv[9], sys.argv[10].split(","), sys.argv[11].split(",")
rates = [int(r) for r in sys.argv[12].split(",")] if sys.argv[12] else []
BODY = "Hello from lca-httpd on DPDK lcores"
PORT = 18480
hz = os.sysconf("SC_CLK_TCK")


def say(*a):
    print(*a, flush=True)


def answer_bytes(port):
    """The whole answer to GET / on a raw socket: header and body bytes."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(4096)
        if not d:
            break
        buf += d
    head, _, body = buf.partition(b"\r\n\r\n")
    n = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
    while len(body) < n:
        body += s.recv(4096)
    s.close()
    return len(head) + 4 + n


def wait_port(port, proc, what):
    for _ in range(200):
        if proc.poll() is not None:
            sys.exit("http-compare: %s exited at start (rc %s); see %s" % (what, proc.returncode, out))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("http-compare: %s does not listen on %d" % (what, port))


class Server:
    def __init__(self, name):
        self.name, self.proc, self.pad, self.bytes = name, None, 0, 0

    def start(self, tag):
        log = open("%s/%s-%s.out" % (out, self.name, tag), "w")
        if self.name == "nginx":
            d = "%s/nginx" % out
            os.makedirs(d, exist_ok=True)
            mask = " ".join(bin(1 << int(c))[2:] for c in cpus.split(","))
            body = BODY + "x" * self.pad if self.pad >= 0 else BODY[:self.pad]
            open(d + "/nginx.conf", "w").write(NGINX_CONF % {
                "n": len(cpus.split(",")), "mask": mask, "d": d, "port": PORT, "body": body})
            self.proc = subprocess.Popen([nginx, "-c", d + "/nginx.conf", "-p", d], stdout=log,
                                         stderr=subprocess.STDOUT)
        elif self.name.startswith("floor"):
            self.proc = subprocess.Popen([floor, "--port", str(PORT), "--cpus", cpus, "--io",
                                          "uring" if self.name == "floor-uring" else "epoll"] +
                                         (["--bytes", str(self.bytes)] if self.bytes else []),
                                         stdout=log, stderr=subprocess.STDOUT)
        else:
            io = [] if self.name == "lca" else ["--io", self.name[4:]]
            self.proc = subprocess.Popen(
                [httpd, "-l", cpus, "--no-huge", "--no-pci", "--in-memory", "--file-prefix",
                 "http_cmp_%d" % os.getpid(), "--log-level", "lib.*:error", "--", "--port", str(PORT),
                 "--json", "%s/%s-%s.json" % (out, self.name, tag)] + io, stdout=log,
                stderr=subprocess.STDOUT)
        wait_port(PORT, self.proc, self.name)

    def pids(self):
        kids = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True,
                              text=True).stdout.split()
        return [self.proc.pid] + [int(k) for k in kids]

    def stop(self):
        self.proc.send_signal(signal.SIGQUIT if self.name == "nginx" else signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


NGINX_CONF = """worker_processes %(n)d;
worker_cpu_affinity %(mask)s;
worker_rlimit_nofile 65536;
daemon off;
pid %(d)s/nginx.pid;
error_log %(d)s/error.log warn;
events { worker_connections 16384; }
http {
	access_log off;
	server_tokens off;
	keepalive_requests 100000000;
	client_body_temp_path %(d)s/body;
	proxy_temp_path %(d)s/proxy;
	fastcgi_temp_path %(d)s/fastcgi;
	uwsgi_temp_path %(d)s/uwsgi;
	scgi_temp_path %(d)s/scgi;
	server {
		listen 127.0.0.1:%(port)d;
		location / {
			default_type text/plain;
			return 200 "%(body)s";
		}
	}
}
"""


def cpu_ticks(pids):
    t = 0
    for p in pids:
        try:
            f = open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()
            t += int(f[11]) + int(f[12])
        except OSError:
            pass
    return t


def loadavg():
    return float(open("/proc/loadavg").read().split()[0])


def run_wrk(conns, secs, path):
    r = subprocess.run(["wrk", "-t2", "-c%d" % conns, "-d%ds" % secs, "--latency",
                        "http://127.0.0.1:%d/" % PORT], capture_output=True, text=True)
    open(path, "w").write(r.stdout + r.stderr)
    m = re.search(r"Requests/sec:\s+([0-9.]+)", r.stdout)
    errs = re.search(r"Non-2xx or 3xx responses: (\d+)|Socket errors: (.*)", r.stdout)
    if m is None:
        sys.exit("http-compare: wrk gave no figure (%s)" % path)
    return float(m.group(1)), errs.group(0) if errs else ""


def run_rate(rate, path):
    subprocess.run([load, "--rate", str(rate), "--connections", "100", "--duration", str(duration),
                    "--latency", "--json", path + ".json", "http://127.0.0.1:%d/" % PORT],
                   stdout=open(path + ".txt", "w"), stderr=subprocess.STDOUT)
    r = json.load(open(path + ".json"))["result"]
    return r["latency"]["percentiles"]["99"] / 1e3, r["requests"], sum(r["errors"].values())


def one_run(srv, cell, rep):
    """Start, warm up, measure, stop: the cell's figure for this server."""
    tag = "%s-%d" % (cell, rep)
    srv.start(tag)
    try:
        if warmup > 0:
            run_wrk(100, warmup, "%s/%s-%s.warmup.txt" % (out, srv.name, tag))
        pids, la = srv.pids(), loadavg()
        t0, c0 = time.time(), cpu_ticks(pids)
        if cell.startswith("sat-c"):
            v, errs = run_wrk(int(cell[5:]), duration, "%s/%s-%s.txt" % (out, srv.name, tag))
            extra = {"errors": errs}
        else:
            v, served, errs = run_rate(int(cell.split("-")[1]), "%s/%s-%s" % (out, srv.name, tag))
            cpu_s = (cpu_ticks(pids) - c0) / hz
            extra = {"errors": errs, "cpu_us_per_request": 1e6 * cpu_s / served if served else None}
        extra["server_cpu_pct"] = round(100.0 * (cpu_ticks(pids) - c0) / hz / (time.time() - t0), 1)
        extra["loadavg_before"] = la
    finally:
        srv.stop()
    return v, extra


def spread(vals):
    return (max(vals) - min(vals)) / statistics.median(vals)


def run_cell(cell, unit, higher_better, rec):
    order, res = [kept.get(s) or Server(s) for s in servers], {}
    for s in servers:
        res[s] = []
    for rep in range(reps):
        for srv in (order if rep % 2 == 0 else order[::-1]):
            v, extra = one_run(srv, cell, rep)
            res[srv.name].append(v)
            rec.setdefault(cell, {}).setdefault(srv.name, []).append(dict(extra, value=v))
            say("  %s rep %d %s: %.3f %s%s" % (cell, rep + 1, srv.name, v, unit,
                "" if not extra.get("cpu_us_per_request") else
                ", server CPU %.1f us/request" % extra["cpu_us_per_request"]))
    say("\n| %s | median %s | spread | samples |" % (cell, unit))
    say("| --- | ---: | ---: | --- |")
    for s in servers:
        say("| %s | %.3f | %.1f %% | %s |" % (s, statistics.median(res[s]), 100 * spread(res[s]),
            ", ".join("%.3f" % v for v in res[s])))
    cpu = {s: [e["cpu_us_per_request"] for e in rec[cell][s] if e.get("cpu_us_per_request")]
           for s in servers}
    if all(len(v) == reps for v in cpu.values()):
        say("\n| %s | median server CPU, us/request | spread | samples |" % cell)
        say("| --- | ---: | ---: | --- |")
        for s in servers:
            say("| %s | %.1f | %.1f %% | %s |" % (s, statistics.median(cpu[s]), 100 * spread(cpu[s]),
                ", ".join("%.1f" % v for v in cpu[s])))
        if "nginx" in servers:
            for s in servers:
                if s != "nginx":
                    say("%s: %s / nginx, CPU per request: %.2fx" % (
                        cell, s, statistics.median(cpu[s]) / statistics.median(cpu["nginx"])))
    for ref in ("nginx", "floor"):
        if ref not in servers:
            continue
        for s in servers:
            if s == ref:
                continue
            a, b = statistics.median(res[s]), statistics.median(res[ref])
            gap, sp = abs(a - b) / b, max(spread(res[s]), spread(res[ref]))
            ratio = a / b
            entry = {"ratio": ratio, "gap": gap, "spread": sp, "reported": gap > sp}
            key = "%s/%s" % (cell, s) if ref == "nginx" else "%s/%s/floor" % (cell, s)
            rec.setdefault("ratios", {})[key] = entry
            if gap > sp:
                say("%s: %s / %s = %.2fx (gap %.1f %% > spread %.1f %%)%s" % (
                    cell, s, ref, ratio, 100 * gap, 100 * sp, "" if higher_better else " (lower is better)"))
            else:
                say("%s: %s / %s: no ratio: the spread %.1f %% is larger than the gap %.1f %%" % (
                    cell, s, ref, 100 * sp, 100 * gap))
    say("")
    return {s: statistics.median(v) for s, v in res.items()}


def check_bytes():
    """nginx's and the floor's answers made lca-httpd's byte count, checked."""
    others = [srv for name, srv in kept.items() if name in servers]
    if not others:
        return None
    srv = Server(next((s for s in servers if s.startswith("lca")), "lca"))
    srv.start("bytes")
    want = answer_bytes(PORT)
    srv.stop()
    for srv in others:
        srv.start("bytes")
        got = answer_bytes(PORT)
        srv.stop()
        if srv is nginx_srv:
            srv.pad = want - got
        else:
            srv.bytes = want
        srv.start("bytes")
        got = answer_bytes(PORT)
        srv.stop()
        if got != want:
            sys.exit("http-compare: the answers differ: lca-httpd %d bytes, %s %d" % (want, srv.name, got))
    say("# answers: %d bytes each (%s)" % (want, ", ".join(
        "nginx's body %+d bytes to match lca-httpd's headers" % nginx_srv.pad if srv is nginx_srv else
        "%s --bytes %d" % (srv.name, want) for srv in others)))
    return want


kept = {name: Server(name) for name in ("nginx", "floor", "floor-uring")}
nginx_srv = kept["nginx"]
say("# http-compare: %s, %d CPUs (%s), kernel %s, load average %.2f" % (
    datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"), os.cpu_count(),
    next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?"),
    platform.release(), loadavg()))
say("# servers %s on CPUs %s, wrk -t2 and lca-load on the same CPUs; %d s per run after %d s of "
    "warm-up; %d runs each, ABBA; results in %s" % (",".join(servers), cpus, duration, warmup, reps, out))
rec = {"schema": "lca-http-compare/2", "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
       "machine": {"cpus_online": os.cpu_count(), "kernel": platform.release(),
                   "loadavg_start": loadavg()},
       "cpus": cpus, "duration_s": duration, "warmup_s": warmup, "reps": reps, "servers": servers,
       "cells": {}}
rec["answer_bytes"] = check_bytes()
medians = {}
for cell in cells:
    if cell.startswith("rate-"):
        say("== %s: lca-load --rate %s --connections 100 -d%ds, ms p99" % (cell, cell[5:], duration))
        run_cell(cell, "ms p99", False, rec["cells"])
        continue
    say("== %s: wrk -t2 -c%s -d%ds, req/s" % (cell, cell[5:], duration))
    medians[cell] = run_cell(cell, "req/s", True, rec["cells"])
if rates:
    sat = medians.get("sat-c100", {}).get("nginx") or run_cell("sat-c100", "req/s", True, rec["cells"])["nginx"]
    for pct in rates:
        rate = int(sat * pct / 100)
        say("== p99 at %d %% of nginx's median saturation (%d req/s): lca-load --rate %d --connections 100, ms"
            % (pct, int(sat), rate))
        run_cell("rate-%d" % rate, "ms p99", False, rec["cells"])
rec["machine"]["loadavg_end"] = loadavg()
json.dump(rec, open(out + "/http-compare.json", "w"), indent=1)
say("# load average at the end %.2f; json: %s/http-compare.json" % (loadavg(), out))
PY
