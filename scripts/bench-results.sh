#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Reruns the commands of docs/benchmarks.md's results tables and prints
# the figures in the tables' shape, so that a table is refreshed by
# rerunning it, never by hand:
#   scripts/bench-results.sh [APP ...]     (default: every app below)
# APP: pipeline httpd remote-bench freq load lifecycle reqresp microbench
#      circular pinghops (the names of apps/, without "lca-").
#
# - Each app's timed runs hold the timing lock (flock $LOCK, default
#   /tmp/lca-timing.lock) for that app only, so that others sharing the
#   machine take their turn between apps.
# - Quiet-host checks: before taking the lock for an app the script waits
#   (up to QUIET_WAIT seconds, default 60) for 2 s in which the machine
#   used under a tenth of a CPU, and again (up to QUIET_IN, default 10)
#   before each invocation under the lock; what it found is printed.
# - The timed runs run at nice PRIORITY (default -20; root only), so that
#   builds at nice 19 sharing the machine do not take the lcores' CPUs;
#   the clock verdict checks that they did not.
# - Each invocation's clock verdict is read from its record: a PREEMPTED
#   (or STOLEN) one does not count and runs again, up to TRIES times in all
#   (default 3); a figure still taken from a preempted run says so.
# - Three invocations where an app gives one figure an invocation
#   (INVOCATIONS, default 3), the median printed; the Go versions of
#   reqresp, circular and pinghops (../shared/peers/go, when `go` is
#   installed) run alternated with lcactor's invocations, under the same
#   lock hold.
# Environment: BUILD (default build), OUT (default bench-out/results-TIME),
# LOCK, QUIET_WAIT, QUIET_IN, PRIORITY, TRIES, INVOCATIONS, GO_DIR (the Go folder).
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
OUT=${OUT:-bench-out/results-$(date -u +%Y%m%d-%H%M)}
LOCK=${LOCK:-/tmp/lca-timing.lock}
QUIET_WAIT=${QUIET_WAIT:-60}
QUIET_IN=${QUIET_IN:-10}
PRIORITY=${PRIORITY:--20}
TRIES=${TRIES:-3}
INVOCATIONS=${INVOCATIONS:-3}
GO_DIR=${GO_DIR:-../shared/peers/go}
ALL_APPS="pipeline httpd remote-bench freq load lifecycle reqresp microbench circular pinghops"
b=$BUILD/apps
eal_common=(--no-huge --no-pci --in-memory --log-level 'lib.*:error' --file-prefix "lca_results_$$")
eal2=(-l 0-1 "${eal_common[@]}")
eal1=(-l 0 "${eal_common[@]}")
export OUT BUILD TRIES INVOCATIONS QUIET_IN GO_DIR

usage() {
	sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'
}

# The clock verdict's worst cause over a record's lcores ("STABLE",
# "PREEMPTED", ...; the record's own "cause" is only its first unstable
# lcore's, which can be CLOCK while the other one was PREEMPTED), or
# "none" when there is no record (the run failed).
clock_of() {
	python3 -c 'import json,sys
order = ["PREEMPTED", "STOLEN", "IRQ", "CLOCK", "STABLE"]
try:
    f = json.load(open(sys.argv[1])).get("frequency") or {}
    causes = [l.get("cause") for l in f.get("lcores", [])] + [f.get("cause")]
    found = [c for c in order if c in causes]
    print(found[0] if found else (f.get("verdict") or "n/a"))
except Exception:
    print("none")' "$1"
}

# One invocation of a DPDK app, rerun while its clock was taken away:
#   invoke LABEL N BINARY ARGS...   (ARGS end with the app's own; --json added)
invoke() {
	local label=$1 n=$2 try clock json rc
	shift 2
	for try in $(seq "$TRIES"); do
		wait_quiet
		json=$OUT/$label-i$n.json
		rm -f "$json"
		echo "# $(date -u +%T) $label, invocation $n, try $try: $*" >>"$OUT/commands.txt"
		"$@" --json "$json" >"$OUT/$label-i$n.txt" 2>&1
		rc=$?
		clock=$(clock_of "$json")
		echo "  $label #$n try $try: exit $rc, clock $clock" >&2
		# lca-lifecycle's feeders share the lcores' CPUs by design: their
		# run is PREEMPTED by themselves, and a rerun would be too.
		[ "${own_preemption:-0}" = 1 ] && [ "$clock" = PREEMPTED ] && return 0
		case "$clock" in PREEMPTED | STOLEN | none) ;; *) return 0 ;; esac
	done
	return 0
}

# The Go program NAME with ARGS, its RESULT line kept as $OUT/go-NAME-iN.txt.
go_peer() { # name n args...
	local name=$1 n=$2
	shift 2
	[ -x "$OUT/go/bin/$name" ] || return 0
	wait_quiet
	echo "# $(date -u +%T) go $name, invocation $n: GOMAXPROCS=2 bin/$name $*" >>"$OUT/commands.txt"
	GOMAXPROCS=2 taskset -c 0,1 "$OUT/go/bin/$name" "$@" >"$OUT/go-$name-i$n.txt" 2>&1
}

go_build() {
	if [ ! -d "$GO_DIR" ] || ! command -v go >/dev/null; then
		echo "  (no Go: the Go rows are left out; apt-get install golang-go)" >&2
		return 0
	fi
	[ -x "$OUT/go/bin/reqresp" ] && return 0
	rm -rf "$OUT/go" && cp -r "$GO_DIR" "$OUT/go" &&
		(cd "$OUT/go" && GOCACHE=${GOCACHE:-$PWD/.cache} HOME=${HOME:-/root} \
			nice -n 19 go build -o bin/ ./reqresp ./circular ./pinghops) >&2 ||
		echo "  (the Go build failed: the Go rows are left out)" >&2
}

# user + nice + system of every CPU, in clock ticks.
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4; exit }' /proc/stat; }

# Waits (up to the limit) for a quiet host: 2 s in which the whole
# machine used under a tenth of one CPU, as the apps' clock verdict wants
# (rq-wait <= 2 %: a compiler on the CPU of an lcore preempts it, even at
# nice 19). Goes on after the limit anyway: the verdict then says so.
wait_quiet() { # [limit: seconds, default QUIET_IN]
	local limit=${1:-$QUIET_IN} waited=0 t0 t1 hz
	hz=$(getconf CLK_TCK)
	while :; do
		t0=$(machine_ticks)
		sleep 2
		t1=$(machine_ticks)
		waited=$((waited + 2))
		[ $(((t1 - t0) * 10)) -lt $((2 * hz)) ] && break
		[ "$waited" -ge "$limit" ] && break
	done
	echo "  $(date -u +%T): host used $(((t1 - t0) * 100 / (2 * hz))) % of a CPU over 2 s, after ${waited}s; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
}

# The timed part of each app: its invocations, run under the lock.
timed_pipeline() {
	local n
	for n in $(seq "$INVOCATIONS"); do
		invoke pipeline-mock "$n" "$b/pipeline/lca-pipeline" "${eal2[@]}" -- \
			--engine lcactor,plain --runs 3
		invoke pipeline-port "$n" "$b/pipeline/lca-pipeline" "${eal2[@]}" --vdev net_null0 -- \
			--source port --engine io,ring,lcactor,graph --messages 10000000 --runs 3
	done
}

timed_httpd() {
	wait_quiet
	echo "# $(date -u +%T) httpd: scripts/http-compare.sh --servers nginx,floor,lca-epoll --cells sat-c100,rate-2000 --rates '' --reps 3 --duration 5 --warmup 1" >>"$OUT/commands.txt"
	scripts/http-compare.sh --servers nginx,floor,lca-epoll --cells sat-c100,rate-2000 \
		--rates '' --reps 3 --duration 5 --warmup 1 --build "$BUILD" --out "$OUT/httpd" \
		>"$OUT/httpd.txt" 2>&1
}

timed_remote_bench() {
	local n
	for n in $(seq "$INVOCATIONS"); do
		invoke remote-memif "$n" "$b/remote_bench/lca-remote-bench" "${eal1[@]}" -- \
			--remote memif --peer-lcores 1 --sizes 16,256
	done
}

timed_freq() {
	local n
	for n in $(seq "$INVOCATIONS"); do
		invoke freq "$n" "$b/freqstat/lca-freq" "${eal2[@]}" -- --count 5 --interval 1 --load
	done
}

# lca-load's closed loop against wrk's, alternated, on one server (the
# socket path alone, lca-httpd-floor): what the generator reaches of wrk.
timed_load() {
	local port=18089 srv n
	"$b/httpd/lca-httpd-floor" --port "$port" --cpus 0,1 --io epoll >"$OUT/load-server.txt" 2>&1 &
	srv=$!
	sleep 1
	for n in $(seq "$INVOCATIONS"); do
		wait_quiet
		echo "# $(date -u +%T) load #$n: wrk -t2 -c100 -d5s; lca-load --closed -t 2 -c 100 -d 5" >>"$OUT/commands.txt"
		taskset -c 0,1 wrk -t2 -c100 -d5s "http://127.0.0.1:$port/" >"$OUT/load-wrk-i$n.txt" 2>&1
		"$b/load/lca-load" --closed -t 2 -c 100 -d 5 --cpus 0,1 --json "$OUT/load-lca-i$n.json" \
			"http://127.0.0.1:$port/" >"$OUT/load-lca-i$n.txt" 2>&1
	done
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
}

timed_lifecycle() {
	local n
	for n in $(seq "$INVOCATIONS"); do
		invoke lifecycle "$n" "$b/lifecycle/lca-lifecycle" "${eal2[@]}" -- --bench timers,restart
		own_preemption=1 invoke lifecycle-feeders "$n" "$b/lifecycle/lca-lifecycle" "${eal2[@]}" -- \
			--bench feeders
	done
}

timed_reqresp() {
	local n
	for n in $(seq "$INVOCATIONS"); do
		invoke reqresp "$n" "$b/reqresp/lca-reqresp" "${eal2[@]}" -- -i 4 -wi 2 \
			-p throughput=1 -p dispatcher=affinity,shared \
			--placement round-robin,pairs-local,auto --quiet
		go_peer reqresp "$n" 1
	done
}

timed_microbench() {
	local n
	for n in $(seq "$INVOCATIONS"); do
		invoke microbench "$n" "$b/microbench/lca-microbench" "${eal2[@]}" -- \
			--scenario same-lcore,cross-lcore,many-to-one --runs 3
	done
}

timed_circular() {
	local n
	for n in $(seq "$INVOCATIONS"); do
		invoke circular "$n" "$b/circular/lca-circular" "${eal2[@]}" -- --actors 1,2
		go_peer circular "$n"
	done
}

timed_pinghops() {
	local n
	for n in $(seq "$INVOCATIONS"); do
		invoke pinghops "$n" "$b/pinghops/lca-pinghops" "${eal2[@]}" --
		go_peer pinghops "$n"
	done
}

if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
	usage
	exit 0
fi
# Called back under the lock: one app's timed runs.
if [ "${1:-}" = "--timed" ]; then
	"timed_${2//-/_}"
	exit 0
fi

apps=("$@")
[ ${#apps[@]} -eq 0 ] && read -r -a apps <<<"$ALL_APPS"
for app in "${apps[@]}"; do
	[[ " $ALL_APPS " == *" $app "* ]] || {
		echo "bench-results: unknown app '$app' (one of: $ALL_APPS)" >&2
		exit 2
	}
done
[ -d "$b" ] || { echo "bench-results: no $b (build first: ninja -C $BUILD)" >&2; exit 2; }
mkdir -p "$OUT"
echo "# lcactor $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- . ':(exclude)docs' 2>/dev/null || echo ' with uncommitted changes'), $(date -u '+%F %T') UTC, $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)" |
	tee "$OUT/header.txt"
case " ${apps[*]} " in *" reqresp "* | *" circular "* | *" pinghops "*) go_build ;; esac
for app in "${apps[@]}"; do
	echo "== $app ($(date -u +%T) UTC)" >&2
	wait_quiet "$QUIET_WAIT"
	flock "$LOCK" nice -n "$PRIORITY" "$0" --timed "$app"
done
python3 scripts/bench-results-tables.py "$OUT" "${apps[@]}"
echo "records and outputs in $OUT"
