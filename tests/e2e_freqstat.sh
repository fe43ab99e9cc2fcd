#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lca-freq end to end: CSV header and rows, the table, --load with --json,
# and every bad argument (exit 2, with a message that names it).
set -u
exe=$1
eal=(-l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_freqstat --log-level 'lib.*:error')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/e2e_lib.sh"

"$exe" "${eal[@]}" -- --count 2 --interval 0.2 --csv >"$tmp/out.csv" 2>"$tmp/err"; rc=$?
check "--count 2 --csv exits 0" "[ $rc -eq 0 ]"
check "CSV header" "[ \"\$(head -n1 \"$tmp/out.csv\")\" = 'interval,time_s,lcore,cpu,source,mhz,min_mhz,max_mhz,probe_mhz,busy_pct,steal_pct,irq_pct' ]"
check "2 intervals x 2 lcores = 4 rows, nothing else on stdout" "[ \$(wc -l <\"$tmp/out.csv\") -eq 5 ]"
# interval, time, lcore, cpu, source, then MHz figures that must be present.
row='^[01],[0-9]+\.[0-9]+,[01],[01],(msr|perf|cpufreq|probe),[0-9]+\.[0-9],[0-9]+\.[0-9],[0-9]+\.[0-9],[0-9]+\.[0-9],'
check "every row well formed" "[ \$(grep -cE '$row' \"$tmp/out.csv\") -eq 4 ]"
check "both lcores in each interval" "[ \$(cut -d, -f1,3 \"$tmp/out.csv\" | sort -u | grep -c '^[01],[01]$') -eq 4 ]"
# What each row promises: its mean lies within the lowest and highest
# samples so far, and a probe row's mean is the probe's; what the table
# promises: cv = stdev / mean, and min <= mean <= max. (0.2x-5x of the TSC
# is only a clock no x86-64 or Arm64 core runs outside of: a sanity bound.)
check "every row: 0 < min <= MHz <= max, a probe row's MHz is the probe's, within 0.2x..5x of the TSC" "awk -F, -v hz=\$(grep -o 'TSC [0-9.]*' \"$tmp/err\" | head -n1 | cut -d' ' -f2) 'NR > 1 && !(\$7 > 0 && \$7 <= \$6 && \$6 <= \$8 && (\$5 != \"probe\" || \$6 == \$9) && \$6 > 0.2 * hz && \$6 < 5 * hz) { bad = 1 } END { exit bad || NR != 5 }' \"$tmp/out.csv\""
check "the table: min <= mean <= max, cv% = 100 x stdev / mean" "awk '/^lcore +cpu +source +samples +min MHz mean MHz +max MHz +stdev +cv%/ { t = 1; next }
	t && \$1 ~ /^[01]\$/ { n++; if (!(\$5 <= \$6 && \$6 <= \$7 && \$6 > 0)) bad = 1
		cv = 100 * \$8 / \$6; if (cv - \$9 > 0.011 || \$9 - cv > 0.011) bad = 1 }
	END { exit bad || n != 2 }' \"$tmp/err\""
check "probe cost reported on stderr" "grep -qE '^probe cost: [0-9]+\.[0-9]+ us/sample$' \"$tmp/err\""
check "report with verdict on stderr" "grep -qE '^Clock verdict: (stable|UNSTABLE|n/a)' \"$tmp/err\""

out=$("$exe" "${eal[@]}" -- --count 1 --interval 0.1 2>&1); rc=$?
check "table mode exits 0" "[ $rc -eq 0 ]"
check "table header" "grep -qE '^ *time_s +lcore +cpu +source +MHz' <<<\"\$out\""
check "table has probe cost and report" "grep -q '^probe cost: ' <<<\"\$out\" && grep -q '^Clock verdict: ' <<<\"\$out\""

"$exe" "${eal[@]}" -- --count 2 --interval 0.2 --load --json "$tmp/f.json" >"$tmp/load.out" 2>&1; rc=$?
check "--load --json exits 0" "[ $rc -eq 0 ]"
check "--load samples many times per interval" "awk '/^ *lcore +cpu +source +samples/ { t = 1; next } t && \$1 ~ /^[01]$/ && \$4 >= 10 { n++ } END { exit n != 2 }' \"$tmp/load.out\""
check "JSON: 2 intervals, 2 lcores, probe cost, verdict" "python3 - '$tmp/f.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
intervals = [r for r in d['results'] if r['name'].startswith('interval ')]
assert len(intervals) == 2 and len(d['frequency']['lcores']) == 2
assert all(len(r['frequency']['lcores']) == 2 for r in intervals)
assert isinstance(d['results'][0]['probe_cost_us'], (int, float))
assert d['frequency']['verdict'] in ('stable', 'unstable', 'no_data') and d['conf']['load'] is True
PY"
record_checks "$tmp/f.json" lca-freq
verdict_checks "$tmp/load.out" "$tmp/f.json" lca-freq
harness_checks "$exe" lca-freq

out=$("$exe" "${eal[@]}" -- --help 2>&1); rc=$?
check "--help exits 0 with usage" "[ $rc -eq 0 ] && grep -q '^Usage: ' <<<\"\$out\""

bad() { # name, expected message, args...
	local name=$1 msg=$2
	shift 2
	out=$("$exe" "${eal[@]}" -- "$@" 2>&1); rc=$?
	check "$name exits 2" "[ $rc -eq 2 ]"
	check "$name is named" "grep -qF -- \"$msg\" <<<\"\$out\""
}
bad "--interval 0" "bad value '0' for --interval" --interval 0
bad "--interval abc" "bad value 'abc' for --interval" --interval abc
bad "--interval -1" "bad value '-1' for --interval" --interval -1
bad "--interval 1e9" "bad value '1e9' for --interval" --interval 1e9
bad "--count -1" "bad value '-1' for --count" --count -1
bad "--count 2x" "bad value '2x' for --count" --count 2x
bad "--count without value" "option '--count' needs a value" --count
bad "unknown option" "unknown option '--bogus'" --bogus
bad "stray argument" "unexpected argument 'extra'" --count 1 extra
finish
