#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Seed 003's experiment scaled to this machine (issue 11): lca-httpd against
# nginx, each alone on the same CPUs, loaded by lca-load (open loop, wrk2's
# semantics) sharing those CPUs. Each server is started for each run, and
# the runs of the two alternate.
#
#  1. saturation of each server: lca-load --closed and wrk -t2 -c100;
#  2. fixed rates of 10 %, 50 %, 90 % and 120 % of nginx's saturation (the
#     higher of its two figures) against both servers, 100 connections;
#  3. a table like the seed's (rate, average, stdev, p50/p99/p99.9/max,
#     achieved req/s, errors, CPU of the server and of lca-load), the same
#     as JSON, and a latency-percentile plot (SVG and PNG, matplotlib).
#
# Needs nginx and wrk (apt-get install nginx wrk); nothing else runs them.
# Before each run it waits, up to --quiet-wait SEC (default 120), until
# other processes use under 10 % of a CPU, and it records their CPU during
# the run: figures taken while others ran say so.
# Usage: scripts/http-compare.sh [--duration SEC] [--warmup SEC] [--cpus LIST]
#                                [--quiet-wait SEC] [--build DIR] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

duration=10
warmup=1
cpus=0,1
quiet_wait=120
build=build
out=""
while [ $# -gt 0 ]; do
	case "$1" in
	--duration) duration=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--quiet-wait) quiet_wait=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--help)
		sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'
		exit 0 ;;
	*) echo "http-compare: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
for v in "$duration" "$warmup" "$quiet_wait"; do
	[[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "http-compare: bad number '$v'" >&2; exit 2; }
done
[[ "$cpus" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "http-compare: bad --cpus '$cpus'" >&2; exit 2; }
for p in nginx wrk python3; do
	command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || {
		echo "http-compare: needs $p (apt-get install nginx wrk)" >&2; exit 2; }
done
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
httpd=$build/apps/httpd/lca-httpd
load=$build/apps/load/lca-load
[ -x "$httpd" ] && [ -x "$load" ] || { echo "http-compare: build first (ninja -C $build)" >&2; exit 2; }
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=${out:-bench-out/http-compare-$stamp}
mkdir -p "$out"
out=$(cd "$out" && pwd)
n_cpus=$(tr ',' '\n' <<<"$cpus" | wc -l)
lcores=$cpus
body="Hello from lca-httpd on DPDK lcores"
port_nginx=18480
port_lca=18481
echo "# http-compare: $(date -u +%FT%TZ), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), kernel $(uname -r)"
echo "# servers and load on CPUs $cpus; ${duration}s measured after ${warmup}s of warm-up; results in $out"

server_pids=()

start_nginx() {
	local d=$out/nginx mask="" i
	mkdir -p "$d"
	rm -f "$d/nginx.pid"
	# One worker per CPU, each pinned, as lca-httpd's lcores are.
	for i in $(tr ',' ' ' <<<"$cpus"); do
		mask+=" $(python3 -c "print(bin(1 << $i)[2:])")"
	done
	cat >"$d/nginx.conf" <<EOF
worker_processes $n_cpus;
worker_cpu_affinity$mask;
worker_rlimit_nofile 65536;
daemon off;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 16384; }
http {
	access_log off;
	keepalive_requests 100000000;
	client_body_temp_path $d/body;
	proxy_temp_path $d/proxy;
	fastcgi_temp_path $d/fastcgi;
	uwsgi_temp_path $d/uwsgi;
	scgi_temp_path $d/scgi;
	server {
		listen 127.0.0.1:$port_nginx;
		location / {
			default_type text/plain;
			return 200 "$body";
		}
	}
}
EOF
	"$nginx_bin" -c "$d/nginx.conf" -p "$d" >"$d/stdout" 2>&1 &
	for _ in $(seq 50); do
		[ -s "$d/nginx.pid" ] && curl -s "http://127.0.0.1:$port_nginx/" >/dev/null 2>&1 && break
		sleep 0.1
	done
	server_pids=($(cat "$d/nginx.pid") $(pgrep -P "$(cat "$d/nginx.pid")"))
	server_stop="kill -QUIT $(cat "$d/nginx.pid")"
	server_port=$port_nginx
}

start_lca() {
	local d=$out/lca-httpd
	mkdir -p "$d"
	"$httpd" -l "$lcores" --no-huge --no-pci --in-memory --file-prefix "http_cmp_$$" \
		--log-level 'lib.*:error' -- --port $port_lca --json "$d/$1.json" >"$d/$1.out" 2>&1 &
	local pid=$!
	for _ in $(seq 100); do
		grep -q 'ready on port' "$d/$1.out" 2>/dev/null && break
		kill -0 $pid 2>/dev/null || { cat "$d/$1.out" >&2; exit 1; }
		sleep 0.1
	done
	[ -n "${said_lca:-}" ] || grep '^# \(accept\|idle\|RLIMIT\)' "$d/$1.out"
	said_lca=1
	server_pids=($pid)
	server_stop="kill -TERM $pid"
	server_wait=$pid
	server_port=$port_lca
}

# run_load NAME FILE CMD...: wait (at most 120 s) until other processes
# leave the CPUs nearly idle, run the load, and record the CPU of the
# server, of the load generator and of everything else over it.
run_load() {
	local name=$1 file=$2
	shift 2
	/usr/bin/python3 - "$quiet_wait" "$name" "$file" "${server_pids[*]}" "$@" <<'PY'
import json, os, subprocess, sys, time
quiet_wait, name, file = float(sys.argv[1]), sys.argv[2], sys.argv[3]
pids, cmd = [int(p) for p in sys.argv[4].split()], sys.argv[5:]
hz = os.sysconf("SC_CLK_TCK")

def proc(p):
    try:
        f = open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()
        return int(f[11]) + int(f[12])
    except OSError:
        return 0

def server():
    return sum(proc(p) for p in pids)

def machine():
    a = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
    return sum(a) - a[3] - a[4]

# Quiet first: others (all but the server) under 10 % of a CPU for 1 s.
waited, t_wait = 0.0, time.time()
while True:
    m0, s0 = machine(), server()
    time.sleep(1)
    others = 100.0 * ((machine() - m0) - (server() - s0)) / hz
    if others < 10 or time.time() - t_wait > quiet_wait:
        break
waited = time.time() - t_wait - 1
s0, m0, t0 = server(), machine(), time.time()
with open(file + ".txt", "w") as f:
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
    _, status, ru = os.wait4(p.pid, 0)
wall = time.time() - t0
srv = 100.0 * (server() - s0) / hz / wall
mach = 100.0 * (machine() - m0) / hz / wall
load = 100.0 * (ru.ru_utime + ru.ru_stime) / wall
rec = {"server_cpu_pct": round(srv, 1), "load_cpu_pct": round(load, 1),
       "others_cpu_pct": round(max(0.0, mach - srv - load), 1), "machine_cpu_pct": round(mach, 1),
       "wall_s": round(wall, 2), "quiet_wait_s": round(max(0.0, waited), 1),
       "quiet_before": others < 10, "exit_status": os.waitstatus_to_exitcode(status)}
json.dump(rec, open(file + ".cpu.json", "w"))
rps = next((l.split()[1] for l in open(file + ".txt") if l.startswith("Requests/sec")), "?")
print("  %s: %s req/s; CPU %%: server %.0f, load %.0f, others %.0f%s" % (
    name, rps, srv, load, rec["others_cpu_pct"],
    "" if rec["quiet_before"] else " (the machine was not quiet before it)"), flush=True)
PY
}

stop_server() {
	$server_stop
	if [ -n "${server_wait:-}" ]; then
		wait "$server_wait" || true
		server_wait=""
	else
		# nginx's master leaves once its workers have.
		for _ in $(seq 50); do
			kill -0 "${server_pids[0]}" 2>/dev/null || break
			sleep 0.1
		done
	fi
}

# both NAME CMD-WITH-@PORT@...: the same load against nginx, then against
# lca-httpd, each server started for the run alone: runs of the two
# servers alternate, so that what else the machine does falls on both.
both() {
	local name=$1 s
	shift
	for s in nginx lca; do
		if [ $s = nginx ]; then start_nginx; else start_lca "$s-$name"; fi
		local args=("${@//@PORT@/$server_port}")
		run_load "$s $name" "$out/$s-$name" "${args[@]//@S@/$s}"
		stop_server
	done
}

url="http://127.0.0.1:@PORT@/"
echo "== saturation"
both sat-lcaload "$load" --closed --connections 100 --cpus "$cpus" --duration "$duration" \
	--warmup "$warmup" --json "$out/@S@-sat-lcaload.json" "$url"
both sat-wrk wrk -t2 -c100 -d"${duration}s" --latency "$url"
sat=$(python3 - "$out" <<'PY'
import json, re, sys
d = sys.argv[1]
a = json.load(open(d + "/nginx-sat-lcaload.json"))["result"]["achieved_rps"]
w = float(re.search(r"Requests/sec:\s+([0-9.]+)", open(d + "/nginx-sat-wrk.txt").read()).group(1))
print(int(max(a, w)))
PY
)
rate_list=$(python3 -c "print(' '.join(str(int(round($sat * f))) for f in (0.1, 0.5, 0.9, 1.2)))")
echo "== fixed rates: nginx saturation $sat req/s (the higher of lca-load --closed and wrk); rates $rate_list"
for r in $rate_list; do
	both "rate-$r" "$load" --rate "$r" --connections 100 --cpus "$cpus" --duration "$duration" \
		--warmup "$warmup" --latency --json "$out/@S@-rate-$r.json" "$url"
done

/usr/bin/python3 - "$out" "$sat" "$rate_list" "$cpus" "$duration" "$warmup" "$*" <<'PY'
import json, os, re, sys, platform, subprocess, datetime
out, sat, rates, cpus, duration, warmup = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4], float(sys.argv[5]), float(sys.argv[6])

def cpu(path, key="server_cpu_pct"):
    try:
        return json.load(open(path + ".cpu.json"))[key]
    except (OSError, ValueError, KeyError):
        return None

def wrk_rps(path):
    m = re.search(r"Requests/sec:\s+([0-9.]+)", open(path).read())
    return float(m.group(1)) if m else None

rows, sats = [], {}
for s, label in (("nginx", "nginx"), ("lca", "lca-httpd")):
    a = json.load(open("%s/%s-sat-lcaload.json" % (out, s)))["result"]
    sats[label] = {"lca_load_closed_rps": a["achieved_rps"],
                   "lca_load_closed_errors": sum(a["errors"].values()),
                   "wrk_rps": wrk_rps("%s/%s-sat-wrk.txt" % (out, s)),
                   "server_cpu_pct_lca_load": cpu("%s/%s-sat-lcaload" % (out, s)),
                   "server_cpu_pct_wrk": cpu("%s/%s-sat-wrk" % (out, s)),
                   "others_cpu_pct_lca_load": cpu("%s/%s-sat-lcaload" % (out, s), "others_cpu_pct"),
                   "others_cpu_pct_wrk": cpu("%s/%s-sat-wrk" % (out, s), "others_cpu_pct")}
    for i, r in enumerate(rates):
        d = json.load(open("%s/%s-rate-%s.json" % (out, s, r)))
        res, lat = d["result"], d["result"]["latency"]
        rows.append({"server": label, "pct_of_nginx_sat": (10, 50, 90, 120)[i], "rate": int(r),
                     "achieved_rps": res["achieved_rps"], "avg_ms": lat["mean"] / 1e3,
                     "stdev_ms": lat["stdev"] / 1e3,
                     "p50_ms": lat["percentiles"]["50"] / 1e3, "p99_ms": lat["percentiles"]["99"] / 1e3,
                     "p999_ms": lat["percentiles"]["99.9"] / 1e3, "max_ms": lat["max"] / 1e3,
                     "errors": sum(res["errors"].values()),
                     "errors_by_kind": res["errors"], "behind_schedule": res["behind_schedule"],
                     "server_cpu_pct": cpu("%s/%s-rate-%s" % (out, s, r)), "load_cpu_pct": res["cpu_pct"],
                     "others_cpu_pct": cpu("%s/%s-rate-%s" % (out, s, r), "others_cpu_pct"),
                     "spectrum": res["spectrum"]})

verdicts = []
for run in ["sat-lcaload", "sat-wrk"] + ["rate-%s" % r for r in rates]:
    freq = json.load(open("%s/lca-httpd/lca-%s.json" % (out, run)))["frequency"]
    verdicts += [{"run": run, "lcore": l["lcore"], "cpu": l["cpu"], "verdict": l["verdict"],
                  "cause": l["cause"], "mean_mhz": l["mean_mhz"], "steal_pct": l["steal_pct"],
                  "busy_pct": l["busy_pct"]} for l in freq.get("lcores", [])]
lca_sat = max(sats["lca-httpd"]["lca_load_closed_rps"], sats["lca-httpd"]["wrk_rps"] or 0)
def row(srv, pct):
    return next(r for r in rows if r["server"] == srv and r["pct_of_nginx_sat"] == pct)
targets = {
    "saturation_ratio": lca_sat / sat,
    "saturation_ge_1_2x": lca_sat >= 1.2 * sat,
    "p99_le_nginx_at_50": row("lca-httpd", 50)["p99_ms"] <= row("nginx", 50)["p99_ms"],
    "p99_le_nginx_at_90": row("lca-httpd", 90)["p99_ms"] <= row("nginx", 90)["p99_ms"],
    "zero_errors_below_saturation": all(r["errors"] == 0 for r in rows if r["pct_of_nginx_sat"] < 100
                                        and r["server"] == "lca-httpd"),
}
rec = {"schema": "lca-http-compare/1", "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
       "machine": {"cpu_model": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                                      if l.startswith("model name")), "?"),
                   "cpus_online": os.cpu_count(), "kernel": platform.release()},
       "cpus": cpus, "duration_s": duration, "warmup_s": warmup,
       "nginx_saturation_rps": sat, "saturation": sats, "rows": rows,
       "cpu_pct_note": "percent of one CPU; others = the whole machine less the server and the load generator",
       "lca_httpd_frequency": verdicts,
       "targets": targets}
json.dump(rec, open(out + "/http-compare.json", "w"), indent=1)

print("\n## Saturation (100 connections, CPUs %s)\n" % cpus)
print("| server | lca-load --closed req/s | wrk -t2 -c100 req/s | server CPU % (lca-load, wrk) | others' CPU % (lca-load, wrk) |")
print("| --- | ---: | ---: | ---: | ---: |")
for k, v in sats.items():
    print("| %s | %.0f | %.0f | %s, %s | %s, %s |" % (k, v["lca_load_closed_rps"], v["wrk_rps"] or 0,
          v["server_cpu_pct_lca_load"], v["server_cpu_pct_wrk"], v["others_cpu_pct_lca_load"],
          v["others_cpu_pct_wrk"]))
print("\n## Fixed rates (lca-load, open loop, 100 connections; latency from the intended send time)\n")
print("| server | rate (% of nginx sat.) | achieved req/s | avg ms | stdev ms | p50 ms | p99 ms | p99.9 ms | max ms | errors | behind | server CPU % | lca-load CPU % | others' CPU % |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    print("| %s | %d (%d %%) | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %d | %s | %.0f | %s |" % (
        r["server"], r["rate"], r["pct_of_nginx_sat"], r["achieved_rps"], r["avg_ms"], r["stdev_ms"],
        r["p50_ms"], r["p99_ms"], r["p999_ms"], r["max_ms"], r["errors"], r["behind_schedule"],
        r["server_cpu_pct"], r["load_cpu_pct"], r["others_cpu_pct"]))
print("\nlca-httpd's lcores, per run:")
for v in verdicts:
    print("  %s: lcore %d (CPU %d): %s%s, %.0f MHz, busy %s%%, steal %s%%" % (
        v["run"], v["lcore"], v["cpu"], v["verdict"], " (%s)" % v["cause"] if v["cause"] else "",
        v["mean_mhz"] or 0, round(v["busy_pct"] or 0, 1), round(v["steal_pct"] or 0, 2)))
print("targets: " + ", ".join("%s=%s" % (k, round(v, 2) if isinstance(v, float) else v)
                              for k, v in targets.items()))

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 5.5))
    styles = {"nginx": "--", "lca-httpd": "-"}
    for r in rows:
        pts = [(1 / (1 - p / 100), v / 1e3) for v, p, _ in r["spectrum"] if p < 100]
        if not pts:
            continue
        ax.plot([x for x, _ in pts], [y for _, y in pts], styles[r["server"]],
                label="%s @ %d req/s (%d %%)" % (r["server"], r["rate"], r["pct_of_nginx_sat"]))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([1, 2, 10, 100, 1000, 10000, 100000])
    ax.set_xticklabels(["0%", "50%", "90%", "99%", "99.9%", "99.99%", "99.999%"])
    ax.set_xlabel("percentile")
    ax.set_ylabel("latency, ms (from the intended send time)")
    ax.set_title("lca-httpd vs nginx, CPUs %s, lca-load open loop, 100 connections" % cpus)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out + "/http-compare.svg")
    fig.savefig(out + "/http-compare.png", dpi=110)
    print("plot: %s/http-compare.svg (.png)" % out)
except ImportError:
    print("no plot: python3-matplotlib is not installed")
print("json: %s/http-compare.json" % out)
PY
