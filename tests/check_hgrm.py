#!/usr/bin/env python3
"""Read an HdrHistogram percentile-distribution file (.hgrm) as the format
defines it, and fail on anything a reader of the format would trip on.

The format is what HdrHistogram's outputPercentileDistribution() prints
(and HdrHistogram_c's hdr_percentiles_print(), which wrk2 --u_latency
uses): a header "Value Percentile TotalCount 1/(1-Percentile)", a blank
line, one line per step of the percentile iterator (Value, Percentile
0..1, TotalCount, 1/(1-Percentile); the 100 % line without the last, or
with "inf"), then the footer
  #[Mean    = M, StdDeviation   = S]
  #[Max     = X, Total count    = N]
  #[Buckets = B, SubBuckets     = K]

Checked: the header; every line's fields and types; Value, Percentile and
TotalCount never decreasing; 1/(1-Percentile) what the Percentile gives;
each step's TotalCount covering its percentile of the total; the last step
at 100 %, at the Max, with TotalCount equal to the footer's Total count;
the footer's three lines; SubBuckets a power of two. With --ticks T, the
percentiles are the iterator's levels at T ticks per half distance to
100 %. With --count N, the Total count is N.

Usage: check_hgrm.py FILE [--ticks T] [--count N]
Exit 0 when the file is well formed, 1 (with the reason) when not.
"""
import argparse
import math
import re
import sys

HEADER = re.compile(r'^\s*Value\s+Percentile\s+TotalCount\s+1/\(1-Percentile\)\s*$')
NUM = r'([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)'
FOOTER = [
    re.compile(r'^#\[Mean    = +' + NUM + r', StdDeviation   = +' + NUM + r'\]$'),
    re.compile(r'^#\[Max     = +' + NUM + r', Total count    = +(\d+)\]$'),
    re.compile(r'^#\[Buckets = +(\d+), SubBuckets     = +(\d+)\]$'),
]


class Bad(Exception):
    pass


def levels(ticks):
    """The percentile iterator's levels (0..100) below 100, in order."""
    p = 0.0
    while p < 100.0:
        yield p
        halving = 2 ** (int(math.log(100.0 / (100.0 - p)) / math.log(2)) + 1)
        p += 100.0 / (ticks * halving)


def parse_step(text, n):
    f = text.split()
    if len(f) not in (3, 4):
        raise Bad('line %d: %d fields, want Value Percentile TotalCount [1/(1-Percentile)]: %r'
                  % (n, len(f), text))
    try:
        value, pct, count = float(f[0]), float(f[1]), int(f[2])
    except ValueError:
        raise Bad('line %d: not numbers: %r' % (n, text))
    inv = None
    if len(f) == 4:
        inv = math.inf if f[3].lower() in ('inf', 'infinity') else float(f[3])
    if not (math.isfinite(value) and value >= 0):
        raise Bad('line %d: Value %r is not a finite value >= 0' % (n, f[0]))
    if not 0.0 <= pct <= 1.0:
        raise Bad('line %d: Percentile %r outside 0..1' % (n, f[1]))
    if count < 1:
        raise Bad('line %d: TotalCount %d < 1' % (n, count))
    if inv is None and pct != 1.0:
        raise Bad('line %d: only the 100%% line may leave out 1/(1-Percentile)' % n)
    if inv is not None and pct < 1.0:
        want = 1.0 / (1.0 - pct)
        if abs(inv - want) > 0.006 + 1e-6 * want:
            raise Bad('line %d: 1/(1-Percentile) %s, the Percentile gives %.2f'
                      % (n, f[3], want))
    return value, pct, count


def read(path):
    with open(path) as f:
        lines = [l.rstrip('\n') for l in f]
    if not lines or not HEADER.match(lines[0]):
        raise Bad('line 1: not the header "Value Percentile TotalCount 1/(1-Percentile)": %r'
                  % (lines[0] if lines else ''))
    steps, footer, n = [], [], 1
    for text in lines[1:]:
        n += 1
        if footer or text.startswith('#'):
            footer.append((n, text))
        elif text.strip():
            steps.append(parse_step(text, n))
    if len(footer) != 3:
        raise Bad('the footer has %d lines after the steps, want 3 (#[Mean, #[Max, #[Buckets)'
                  % len(footer))
    got = []
    for (n, text), pat in zip(footer, FOOTER):
        m = pat.match(text)
        if m is None:
            raise Bad('line %d: not the footer line %s: %r' % (n, pat.pattern, text))
        got.extend(m.groups())
    foot = dict(mean=float(got[0]), stdev=float(got[1]), max=float(got[2]),
                total=int(got[3]), buckets=int(got[4]), sub_buckets=int(got[5]))
    return steps, foot


def check(steps, foot, ticks, count):
    if foot['sub_buckets'] < 2 or foot['sub_buckets'] & (foot['sub_buckets'] - 1):
        raise Bad('SubBuckets %d is not a power of two' % foot['sub_buckets'])
    if foot['buckets'] < 1 or foot['stdev'] < 0 or foot['mean'] < 0:
        raise Bad('footer: Buckets, Mean and StdDeviation must be positive: %r' % foot)
    if count is not None and foot['total'] != count:
        raise Bad('Total count %d, want %d' % (foot['total'], count))
    if foot['total'] == 0:
        if steps:
            raise Bad('Total count 0 but %d steps' % len(steps))
        return
    if not steps:
        raise Bad('Total count %d but no steps' % foot['total'])
    for k in range(1, len(steps)):
        for i, what in enumerate(('Value', 'Percentile', 'TotalCount')):
            if steps[k][i] < steps[k - 1][i]:
                raise Bad('step %d: %s %s after %s: it decreases'
                          % (k + 1, what, steps[k][i], steps[k - 1][i]))
    for k, (value, pct, c) in enumerate(steps):
        if c > foot['total']:
            raise Bad('step %d: TotalCount %d above the Total count %d' % (k + 1, c, foot['total']))
        if c < pct * foot['total'] * (1 - 1e-9):
            raise Bad('step %d: TotalCount %d does not reach %.6f of %d'
                      % (k + 1, c, pct, foot['total']))
    last = steps[-1]
    if last[1] != 1.0 or last[2] != foot['total']:
        raise Bad('the last step is at %s with TotalCount %d, want 1.0 with the Total count %d'
                  % (last[1], last[2], foot['total']))
    if abs(last[0] - foot['max']) > 1e-9 * max(1.0, foot['max']) + 0.0011:
        raise Bad('the 100%% step is at Value %s, the Max is %s' % (last[0], foot['max']))
    if not steps[0][0] * 0.99 - 0.0011 <= foot['mean'] <= foot['max'] * 1.01 + 0.0011:
        raise Bad('Mean %s outside the values, %s .. %s' % (foot['mean'], steps[0][0], foot['max']))
    if ticks is not None:
        below = [s[1] for s in steps if s[1] < 1.0]
        want = []
        for p in levels(ticks):
            if len(want) == len(below):
                break
            want.append(p / 100.0)
        for k, (a, b) in enumerate(zip(below, want)):
            if abs(a - b) > 5e-12:
                raise Bad('step %d: Percentile %.12f, the iterator at %d ticks gives %.12f'
                          % (k + 1, a, ticks, b))
        if len(want) < len(below):
            raise Bad('%d steps below 100%%, more than the %d levels' % (len(below), len(want)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('file')
    ap.add_argument('--ticks', type=int, help='percentile ticks per half distance')
    ap.add_argument('--count', type=int, help='the Total count it must have')
    a = ap.parse_args()
    try:
        steps, foot = read(a.file)
        check(steps, foot, a.ticks, a.count)
    except (Bad, OSError) as e:
        print('check_hgrm: %s: %s' % (a.file, e), file=sys.stderr)
        return 1
    print('check_hgrm: %s: %d steps, Total count %d, Max %s' % (a.file, len(steps), foot['total'],
                                                                 foot['max']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
