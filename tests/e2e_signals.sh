#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# SIGINT, SIGTERM and SIGHUP in the middle of a run, for every app given
# (issue 13, item 7): each must exit within 1 s of the signal with its documented status
# (an interrupted run: "APP: interrupted" and exit 1; lca-freq and lca-httpd,
# which run until stopped: exit 0; others, such as lca-remote-bench: 0 or 1,
# not killed) and leave nothing behind: no runtime folder
# /var/run/dpdk/PREFIX (so no stale telemetry socket), nothing of the prefix in
# /dev/shm. Apps with an idle policy are stopped under each (spin and sleep;
# httpd: spin and epoll); SIGHUP under the first. lca-httpd is not stopped
# by SIGHUP or SIGUSR1: it reopens its access log and serves on.
#
# usage: e2e_signals.sh APP...   (every lca-* binary; an app this script does
# not know runs with no arguments and may exit 0 or 1)
set -u
fail=0
. "$(dirname "$0")/e2e_lib.sh"
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# EAL's runtime folder for a prefix: root's under /var/run, others' under
# XDG_RUNTIME_DIR or /tmp (eal_get_runtime_dir).
if [ "$(id -u)" -eq 0 ]; then run_base=/var/run/dpdk; else run_base=${XDG_RUNTIME_DIR:-/tmp}/dpdk; fi

# Arguments that keep an app busy far longer than the test waits, per idle
# policy; and the exit status of a run a signal stopped.
app_args() { # APP POLICY
	case $1 in
	lca-hello) echo "--tokens 64 --hops 2000000000 --timeout 600" ;;
	lca-reqresp) echo "--idle $2 -wi 0 -i 1 -r 600 --users 10000 -p dispatcher=affinity" ;;
	lca-circular) echo "--actors 2 --samples 1000000 --warmup 0 --hops 1000000" ;;
	lca-pinghops) echo "--pings 100000 --hops 100000 --runs 1" ;;
	lca-microbench) echo "--scenario cross-lcore --messages 4000000000 --runs 1 --timeout 600" ;;
	lca-freq) echo "--interval 0.2" ;;
	lca-pipeline) echo "--messages 4000000000 --warmup-messages 1000 --timeout 600" ;;
	lca-httpd) echo "--port 0 --idle $2" ;;
	lca-lifecycle) echo "--idle $2 --bench restart --messages 2000000000" ;;
	lca-remote-bench) echo "--remote ring --sizes 16 --msgs 2000000000 --timeout 600" ;;
	*) echo "" ;;
	esac
}
app_policies() {
	case $1 in
	lca-reqresp|lca-lifecycle) echo "spin sleep" ;;
	lca-httpd) echo "spin epoll" ;;
	*) echo "-" ;;
	esac
}
# The status a signal's stop must give; "any" for an app not known here.
app_status() {
	case $1 in
	lca-freq|lca-httpd) echo 0 ;;
	lca-hello|lca-reqresp|lca-circular|lca-pinghops|lca-microbench|lca-pipeline|lca-lifecycle) echo 1 ;;
	*) echo any ;;
	esac
}

# The line that says an app is about to run: app_main() prints the lcores'
# isolation just before; remote-bench says its link is up (stderr: stdout is
# buffered into a file); an app that does not go through either, any line.
app_ready() {
	case $1 in
	lca-remote-bench) echo 'remote: node [0-9]* up' ;;
	lca-load) echo . ;;
	*) echo '^# isolation: CPU' ;;
	esac
}


n=0
one_run() { # EXE SIGNAL POLICY
	local exe=$1 sig=$2 policy=$3 app what prefix out pid alive rc want args
	app=$(basename "$exe")
	n=$((n + 1))
	prefix=lca_sig_${app#lca-}_$n
	what="$app${policy:+ --idle $policy}: SIG$sig"
	[ "$policy" = - ] && what="$app: SIG$sig"
	out=$tmp/$prefix.out
	args=$(app_args "$app" "$policy")
	# shellcheck disable=SC2086 # the arguments are words
	"$exe" -l 0-1 --no-huge --no-pci --in-memory --file-prefix "$prefix" \
		--log-level 'lib.*:error' -- $args >"$out" 2>&1 &
	pid=$!
	pids+=("$pid")
	# The harness prints the lcores' isolation just before the run. The stop
	# handler is up from before EAL's init, so a signal from here on must be
	# taken at any point of the run: a fifth of a second in, mid-phase.
	if ! wait_for_line "$out" "$(app_ready "$app")" 20 "$pid"; then
		check "$what: the app started its run" false
		sed 's/^/# /' "$out" | tail -n 5
		kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
		return
	fi
	sleep 0.2
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid"; rc=$?
		check "$what: still running when the signal comes (exit $rc before it)" false
		sed 's/^/# /' "$out" | tail -n 5
		return
	fi
	kill -"$sig" "$pid"
	# Every 50 ms, up to 1 s.
	alive=1
	for _ in $(seq 20); do
		sleep 0.05
		if ! kill -0 "$pid" 2>/dev/null || grep -q '^State:.*zombie' /proc/"$pid"/status 2>/dev/null; then
			alive=0
			break
		fi
	done
	check "$what: exits within 1 s" "[ $alive -eq 0 ]"
	if [ $alive -eq 1 ]; then
		# Give it 5 s more, then kill it, so the other runs are not disturbed.
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid"; rc=$?
	want=$(app_status "$app")
	if [ "$want" = any ]; then
		check "$what: exit status 0 or 1, not killed (got $rc)" "[ $rc -le 1 ]"
	else
		check "$what: exit status $want (got $rc)" "[ $rc -eq $want ]"
	fi
	if [ "$want" = 1 ]; then
		# (not at a line's start: stdout may be mid-line when it is said)
		check "$what: says it was interrupted" "grep -q '$app: interrupted' '$out'"
	fi
	check "$what: no runtime folder left ($run_base/$prefix)" "[ ! -e '$run_base/$prefix' ]"
	check "$what: nothing of the prefix in /dev/shm" "! ls /dev/shm 2>/dev/null | grep -q '$prefix'"
	if [ "$rc" -gt 1 ] || [ $alive -eq 1 ]; then
		sed 's/^/# /' "$out" | tail -n 8
		rm -rf "${run_base:?}/$prefix"
	fi
}

# One GET / to lca-httpd on PORT: prints the status.
get_root() {
	python3 - "$1" <<'PY'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
c.request("GET", "/")
print(c.getresponse().status)
PY
}

# lca-httpd takes SIGHUP and SIGUSR1 to reopen its access log (a rotation:
# the file is moved away, then the signal), and serves on: each request's
# line is in the file that was at the path when it was answered, none lost.
httpd_reopen_run() { # EXE
	local exe=$1 prefix=lca_sig_httpd_reopen_$$ out=$tmp/reopen.out log=$tmp/access.log
	local pid port rc sig
	"$exe" -l 0-1 --no-huge --no-pci --in-memory --file-prefix "$prefix" \
		--log-level 'lib.*:error' -- --port 0 --access-log "$log" --json "$tmp/reopen.json" \
		>"$out" 2>&1 &
	pid=$!
	pids+=("$pid")
	if ! wait_for_line "$out" 'ready on port [0-9]+' 20 "$pid"; then
		check "lca-httpd --access-log: the server came up" false
		sed 's/^/# /' "$out" | tail -n 5
		return
	fi
	port=$(grep -oE 'ready on port [0-9]+' "$out" | awk '{print $4}')
	for sig in HUP USR1; do
		check "lca-httpd: a request before SIG$sig is served" "[ \"\$(get_root $port)\" = 200 ]"
		mv "$log" "$log.$sig"
		kill -"$sig" "$pid"
		for _ in $(seq 100); do [ -e "$log" ] && break; sleep 0.05; done
		check "lca-httpd: SIG$sig does not stop it, and reopens the access log at its path" "kill -0 $pid 2>/dev/null && [ -e '$log' ]"
	done
	check "lca-httpd: serves on after SIGHUP and SIGUSR1" "[ \"\$(get_root $port)\" = 200 ]"
	kill -TERM "$pid"
	wait "$pid"; rc=$?
	check "lca-httpd: then SIGTERM stops it, exit 0 (got $rc)" "[ $rc -eq 0 ]"
	check "lca-httpd: no runtime folder left ($run_base/$prefix)" "[ ! -e '$run_base/$prefix' ]"
	check "lca-httpd: one line in each rotated log and in the new one: none lost, none misplaced" "[ \$(wc -l <'$log.HUP') -eq 1 ] && [ \$(wc -l <'$log.USR1') -eq 1 ] && [ \$(wc -l <'$log') -eq 1 ]"
	check "lca-httpd: the exit report and the record count 2 reopens" "grep -q 'reopened 2 times' '$out' && python3 -c \"import json,sys; sys.exit(0 if json.load(open('$tmp/reopen.json'))['results'][0]['access_log_reopened'] == 2 else 1)\""
	if [ "$rc" -ne 0 ]; then
		sed 's/^/# /' "$out" | tail -n 8
		rm -rf "${run_base:?}/$prefix"
	fi
}

[ $# -gt 0 ] || { echo "usage: $0 APP..." >&2; exit 2; }
for exe in "$@"; do
	app=$(basename "$exe")
	for policy in $(app_policies "$app"); do
		one_run "$exe" INT "$policy"
		one_run "$exe" TERM "$policy"
	done
	# SIGHUP (a closed terminal, an operator's reload): a clean stop, as
	# SIGINT, under the first idle policy; lca-httpd reopens its log instead.
	if [ "$app" = lca-httpd ]; then
		httpd_reopen_run "$exe"
	else
		one_run "$exe" HUP "$(app_policies "$app" | cut -d' ' -f1)"
	fi
done
finish
