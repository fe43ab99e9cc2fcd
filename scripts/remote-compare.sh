#!/usr/bin/env bash
# The ethdev transport over memif against the UCX transport over shared
# memory (and over tcp), in the same minute: lca-remote-bench once per
# transport, alternated ROUNDS times, then a table of one-way msg/s and
# round-trip p99 per message size with the ratio memif / UCX shm. Both
# processes of each run get one lcore each (-l 0, --peer-lcores 1).
# Each round also measures the bare memif floor first, where dpdk-testpmd
# is (Debian's dpdk-dev; TESTPMD=path to choose one): testpmd txonly on
# CPU 0 into a memif pair, testpmd --forward-mode=io on CPU 1 out of it,
# one frame per message, nothing of lcactor; lca-remote-bench --remote ucx
# measures its own floor (lca-ucx-floor) in the same invocation.
#
#   scripts/remote-compare.sh [BUILD_DIR] [ROUNDS] [-- extra lca-remote-bench args]
set -euo pipefail
build=${1:-build}
rounds=${2:-2}
shift $(( $# < 2 ? $# : 2 ))
[ "${1:-}" = "--" ] && shift
bench=$build/apps/remote_bench/lca-remote-bench
[ -x "$bench" ] || { echo "remote-compare: no $bench (build first)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() { # label, UCX_TLS, transport, extra args
	local label=$1 tls=$2 transport=$3 f="$out/$1.$r"
	shift 3
	if ! UCX_TLS=$tls timeout 300 "$bench" -l 0 --no-huge --no-pci --in-memory \
		--file-prefix "rcmp$$" --log-level 'lib.*:error' -- --remote "$transport" \
		--msgs 2000000 --pings 20000 "$@" >"$f" 2>&1; then
		echo "remote-compare: $label failed:" >&2
		tail -5 "$f" >&2
		exit 1
	fi
}

testpmd=${TESTPMD:-$(command -v dpdk-testpmd || true)}
sizes=$(sed -nE 's/.*--sizes[ =]([0-9,]+).*/\1/p' <<<"$*")
sizes=${sizes:-16,64,256}
# The frames per second io forwarding took in, per size: the median of
# its last 3 one-second stats (a frame: 42 B of headers + the message).
memif_floor() {
	local sock=/tmp/lca-floor-$$.sock s f
	local eal=(--no-huge -m 256 --no-pci --no-shconf --log-level 'lib.*:error')
	for s in ${sizes//,/ }; do
		f="$out/floor.$r.$s"
		timeout -s INT 9 "$testpmd" -l 0,1 --main-lcore 1 "${eal[@]}" --file-prefix "rcf$$a" \
			--vdev="net_memif0,role=server,socket=$sock" -- --forward-mode=txonly \
			--txpkts=$((42 + s)) --nb-cores=1 --total-num-mbufs=16384 --stats-period 1 >"$f.tx" 2>&1 &
		sleep 1
		timeout -s INT 7 "$testpmd" -l 0,1 --main-lcore 0 "${eal[@]}" --file-prefix "rcf$$b" \
			--vdev="net_memif0,role=client,socket=$sock" -- --forward-mode=io \
			--nb-cores=1 --total-num-mbufs=16384 --stats-period 1 >"$f.io" 2>&1 || true
		wait || true
		rm -f "$sock"
		grep -oE 'Rx-pps: +[0-9]+' "$f.io" | awk '{ print $2 }' | tail -3 | sort -g |
			awk -v s="$s" 'NR == 2 { print s, $1 }' >>"$out/floor.all"
	done
}

echo "# $(date -u '+%F %T') UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$testpmd" ] || echo "# no dpdk-testpmd (Debian's dpdk-dev ships it): no bare memif floor"
for r in $(seq "$rounds"); do
	[ -z "$testpmd" ] || memif_floor
	run memif shm,tcp memif "$@"
	run ucx-shm shm,tcp ucx "$@"
	run ucx-tcp tcp ucx "$@"
done
grep -h '^# TSC' "$out"/memif.1 || true

# One line per transport and size: the median over the rounds.
summary() { # label
	cat "$out/$1".* | awk -v t="$1" '
		/ B: [0-9]+ messages one way/ { s = $1; rate[s] = rate[s] " " $10 }
		/ B: RTT p50/ { s = $1; p99[s] = p99[s] " " $8 }
		END { for (s in rate) print t, s, rate[s], "|", p99[s] }'
}
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-6s | %-22s | %-22s | %-22s | %-14s | %-14s\n' size "memif msg/s (p99 us)" \
	"UCX shm msg/s (p99 us)" "UCX tcp msg/s (p99 us)" "memif/UCX shm" "p99 UCX/memif"
for s in $(summary memif | awk '{ print $2 }' | sort -n); do
	line=""
	for t in memif ucx-shm ucx-tcp; do
		rates=$(summary "$t" | awk -v s="$s" '$2 == s' | sed 's/^[^ ]* [^ ]* //; s/|.*//')
		p99s=$(summary "$t" | awk -v s="$s" '$2 == s' | sed 's/.*|//')
		eval "rate_${t//-/_}=$(med <<<"$rates")"
		eval "p99_${t//-/_}=$(med <<<"$p99s")"
	done
	printf '%-6s | %-22s | %-22s | %-22s | %-14s | %-14s\n' "$s B" \
		"$rate_memif M ($p99_memif)" "$rate_ucx_shm M ($p99_ucx_shm)" \
		"$rate_ucx_tcp M ($p99_ucx_tcp)" \
		"$(awk -v a="$rate_memif" -v b="$rate_ucx_shm" 'BEGIN { printf "%.2fx", a / b }')" \
		"$(awk -v a="$p99_ucx_shm" -v b="$p99_memif" 'BEGIN { printf "%.2fx", a / b }')"
done
echo "(median of $rounds rounds each; every run's sink counted every message, or this script stops)"
for t in ucx-shm ucx-tcp; do
	grep -h -E '^ +[0-9]+ B against the bare UCX floor' "$out/$t".* | sed "s/^/$t: /" || true
done
if [ -n "$testpmd" ]; then
	printf '%-6s | %-26s | %-20s | %s\n' size "bare memif frames/s (testpmd)" "lcactor memif msg/s" \
		"lcactor / floor"
	for s in ${sizes//,/ }; do
		fl=$(awk -v s="$s" '$1 == s { print $2 }' "$out/floor.all" 2>/dev/null | med)
		rate=$(summary memif | awk -v s="$s" '$2 == s' | sed 's/^[^ ]* [^ ]* //; s/|.*//' | med)
		if [ -z "$fl" ] || [ "$fl" = 0 ]; then
			printf '%-6s | %-26s | %-20s | %s\n' "$s B" "none (testpmd failed: see below)" \
				"$rate M" "n/a"
			tail -3 "$out/floor.1.$s.io" 2>/dev/null || true
			continue
		fi
		printf '%-6s | %-26s | %-20s | %s\n' "$s B" "$(awk -v f="$fl" 'BEGIN { printf "%.2f M", f / 1e6 }')" \
			"$rate M" "$(awk -v a="$rate" -v f="$fl" 'BEGIN { printf "%.1f%%", 100 * a * 1e6 / f }')"
	done
	echo "(bare memif floor: one frame per message, median of $rounds rounds, each before its round's runs; lcactor packs many messages into a frame)"
fi
