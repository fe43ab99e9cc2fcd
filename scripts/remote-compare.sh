#!/usr/bin/env bash
# The ethdev transport over memif against the UCX transport over shared
# memory (and over tcp), in the same minute: lca-remote-bench once per
# transport, alternated ROUNDS times, then a table of one-way msg/s and
# round-trip p99 per message size with the ratio memif / UCX shm. Both
# processes of each run get one lcore each (-l 0, --peer-lcores 1).
# Each run measures its transport's bare floor in the same invocation
# (lca-memif-floor: DPDK's memif PMD with frames packed as lcactor's;
# lca-ucx-floor: UCP active messages), a round before and one after, and
# the script prints each run's ratios to it.
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

echo "# $(date -u '+%F %T') UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
	run memif shm,tcp memif "$@"
	run ucx-shm shm,tcp ucx "$@"
	run ucx-tcp tcp ucx "$@"
done
grep -h '^# TSC' "$out"/memif.1 || true

# One line per transport and size: the median over the rounds.
summary() { # label
	cat "$out/$1".* | awk -v t="$1" '
		/^floor\|/ { next }
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
for t in memif ucx-shm ucx-tcp; do
	grep -h -E '^ +[0-9]+ B against the bare (UCX|memif) floor' "$out/$t".* | sed "s/^/$t: /" || true
done
