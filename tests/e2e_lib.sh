# SPDX-License-Identifier: BSD-3-Clause
# What every app's end-to-end test checks the same way; sourced by the
# e2e_*.sh scripts, which set fail=0 first and end with finish.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
skipped=0

check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; return 1; fi; }

# A check that cannot run here: never "ok". It is named with why, and makes
# the whole test SKIP (exit 77) unless another check failed, so meson's
# summary counts it. skip_check NAME WHY
skip_check() { echo "skip - $1: $2"; skipped=$((skipped + 1)); }

# Wait until FILE has a line matching RE (grep -E), at most SECONDS, while
# PID runs; 0 when it has. A signal sent after it lands in a known phase,
# where a sleep only guesses one. wait_for_line FILE RE SECONDS PID
wait_for_line() {
	local file=$1 re=$2 tries=$(( $3 * 20 )) pid=$4
	while [ $tries -gt 0 ]; do
		grep -qE "$re" "$file" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

# The frequency report an app prints says the verdict its record holds:
# one "Clock verdict: stable|UNSTABLE, CAUSE|n/a" line, or "no frequency
# report" where the monitor did not run (apps/common/app_freq_print.c,
# app_series.c). The verdict block's "clock:" line is verdict_checks'.
# clock_checks OUT JSON APP
clock_checks() {
	check "$3: the frequency report's verdict is the record's" "python3 - '$1' '$2' <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
f = json.load(open(sys.argv[2]))['frequency']
v, cause = f['verdict'], f.get('cause')
report = [l for l in lines if l.startswith('Clock verdict: ') or l.startswith('no frequency report')]
assert len(report) == 1, report
want = {'stable': 'Clock verdict: stable ', 'unstable': 'Clock verdict: UNSTABLE, %s ' % cause,
        'no_data': ('Clock verdict: n/a', 'no frequency report')}[v]
assert report[0].startswith(want), (report[0], v, cause)
PY"
}

# The test's exit status: 1 when a check failed, else 77 when one was
# skipped, else 0.
finish() {
	[ "$fail" -eq 0 ] || exit 1
	if [ "$skipped" -gt 0 ]; then
		echo "skip - $skipped check(s) could not run: the test exits 77 (SKIP)"
		exit 77
	fi
	exit 0
}

# The shared harness (apps/common/app_spec.c): help and --version without EAL,
# no "--", and unknown options named.
# harness_checks EXE APP
harness_checks() {
	local exe=$1 app=$2 out rc
	# -l 0-9999 would fail EAL init: exit 0 with the help shows EAL never came up.
	out=$("$exe" -l 0-9999 -- --help 2>&1); rc=$?
	check "$app: -- --help prints the help without EAL" "[ $rc -eq 0 ] && grep -q '^Usage: ' <<<\"\$out\" && ! grep -qE '^EAL: |EAL init failed' <<<\"\$out\""
	out=$("$exe" --help 2>&1); rc=$?
	check "$app: --help without -- prints the help" "[ $rc -eq 0 ] && grep -q '^Usage: ' <<<\"\$out\""
	out=$("$exe" -l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_nosep 2>&1); rc=$?
	check "$app: no -- exits 2 and says so" "[ $rc -eq 2 ] && grep -q \"no '--' on the command line\" <<<\"\$out\""
	out=$("$exe" -l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_json --log-level 'lib.*:error' \
		-- --json /nonexistent-lca/out.json 2>&1); rc=$?
	check "$app: --json where nothing can be written exits 2 before the run" "[ $rc -eq 2 ] && grep -q 'cannot be written' <<<\"\$out\""
	out=$("$exe" -l 0-9999 -- -h 2>&1); rc=$?
	check "$app: -- -h prints the help without EAL" "[ $rc -eq 0 ] && grep -q '^Usage: ' <<<\"\$out\""
	out=$("$exe" -l 0-9999 -- --version 2>&1); rc=$?
	check "$app: --version prints its name and lcactor's version without EAL" \
		"[ $rc -eq 0 ] && grep -qx '$app (lcactor) [0-9][0-9.]*' <<<\"\$out\""
	# In a cluster the unknown -Z is named, not the word before it.
	out=$("$exe" -l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_test_shortopt --log-level 'lib.*:error' \
		-- -Zq 2>&1); rc=$?
	check "$app: an unknown short option exits 2 and is named" "[ $rc -eq 2 ] && grep -q \"unknown option '-Z\" <<<\"\$out\""
}

# The record validates against docs/lcactor-result.schema.json, and
# scripts/lca-plot renders it into a well-formed, non-empty SVG.
# record_checks JSON APP
record_checks() {
	check "$2: JSON record validates against the schema" "/usr/bin/python3 '$here/check_result.py' '$1' '$2'"
	check "$2: lca-plot renders the record as SVG" "/usr/bin/python3 '$here/check_result.py' '$1' '$2' --plot '${1%.json}.svg'"
}

# The output ends with the verdict the record holds, the record's path last
# (apps/common/app_verdict.h, tests/check_verdict.py).
# verdict_checks OUTPUT_FILE JSON APP
verdict_checks() {
	check "$3: ends with the record's verdict, the record's path last" "/usr/bin/python3 '$here/check_verdict.py' '$1' '$2'"
}

# 50 scheduler ticks in ms, the tick read as app_verdict_tick_s() reads it
# (the kernel's CONFIG_HZ, else 250): a window under it is flagged short.
kernel_hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)" 2>/dev/null)
tick50_ms=$((50000 / ${kernel_hz:-250}))
