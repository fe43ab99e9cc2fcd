#!/usr/bin/env python3
"""scripts/bench-results-tables.py, the tables of docs/benchmarks.md, on
made-up records: a run with any lcore PREEMPTED is named and left out of
the medians, even when the record's own cause (its first unstable lcore's)
is CLOCK; a run that lost no CPU is counted; the Go figure is set beside
the row it measures; a bad argument is an error, not a crash.

Usage: check_bench_results.py SOURCE_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
script = os.path.join(root, 'scripts', 'bench-results-tables.py')
failures = []


def check(ok, what):
    print(('ok - ' if ok else 'not ok - ') + what)
    if not ok:
        failures.append(what)


def record(score, causes):
    """A circular record: one 2-actor row at @score ns/hop, lcores with @causes."""
    first = next((c for c in causes if c != 'STABLE'), 'STABLE')
    return {
        'frequency': {'verdict': 'unstable', 'cause': first,
                      'lcores': [{'lcore': i, 'cause': c} for i, c in enumerate(causes)]},
        'verdict': {'rows': [{'config': '2 actors round-robin', 'kind': 'time', 'score': score,
                              'unit': 'ns/hop', 'floor': 'one line bounced between lcores 0 and 1',
                              'ratio_median': score / 200.0}]},
    }


def tables(out, *apps):
    return subprocess.run([sys.executable, script, out] + list(apps),
                          capture_output=True, text=True, check=False)


with tempfile.TemporaryDirectory() as out:
    # Lcore 0's CLOCK comes first, so the record's cause hides lcore 1's
    # PREEMPTED: the worst lcore decides.
    runs = [record(300.0, ['CLOCK', 'CLOCK']), record(900.0, ['CLOCK', 'PREEMPTED']),
            record(400.0, ['STABLE', 'CLOCK'])]
    for i, r in enumerate(runs, 1):
        with open(os.path.join(out, 'circular-i%d.json' % i), 'w', encoding='utf-8') as f:
            json.dump(r, f)
    with open(os.path.join(out, 'go-circular-i1.txt'), 'w', encoding='utf-8') as f:
        f.write('RESULT circular go actors=2 median_us_per_1000_hops=350.0 p99_us=400.0\n')
    res = tables(out, 'circular')
    text = res.stdout
    print(text, end='')
    check(res.returncode == 0, 'the tables are printed (exit 0)')
    check('2 of 3 invocations kept' in text, 'the PREEMPTED run is not counted')
    check('CLOCK, PREEMPTED (not counted), CLOCK' in text, 'and it is named on the clock line')
    check('| 350 ns/hop (300, 400) |' in text, 'the median is of the kept runs only')
    check('| 350 ns/hop | 1.00 |' in text, "Go's figure and lcactor's ratio to it")

    res = tables(out, 'no-such-app')
    check(res.returncode == 2 and 'unknown app' in res.stderr, 'an unknown app: exit 2, named')
    res = tables(os.path.join(out, 'missing'), 'circular')
    check(res.returncode == 2 and 'no folder' in res.stderr, 'a missing folder: exit 2, named')

sys.exit(1 if failures else 0)
