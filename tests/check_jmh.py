#!/usr/bin/env python3
"""Read a JMH result file (`java -jar benchmarks.jar -rf json`) as JMH's
JSONResultFormat defines it, and fail on what JMH's readers would trip on.

Checked for every entry of the top-level array: each field JMH writes,
with its type (jmhVersion, benchmark, mode, threads, forks, jvm, jvmArgs,
jdkVersion, vmName, vmVersion, warmupIterations, warmupTime,
warmupBatchSize, measurementIterations, measurementTime,
measurementBatchSize, params with string values, primaryMetric,
secondaryMetrics); mode one of JMH's (thrpt, avgt, sample, ss); and the
primary metric against its own rawData: one array per fork, each with
measurementIterations numbers; score their mean; scoreError the
half-width of Student's t interval at 99.9 % (stdev / sqrt(n) times the
t quantile), "NaN" with 2 values or fewer; scoreConfidence score -/+
scoreError; scorePercentiles JMH's ten keys, in order, 0.0 the smallest
and 100.0 the largest, never decreasing, each as commons-math's estimator
gives it. With --unit U every scoreUnit is U; --entries N wants N
entries; --param NAME=VALUE wants an entry with those params.

Usage: check_jmh.py FILE [--unit U] [--entries N] [--param NAME=V,NAME=V]...
Exit 0 when the file is well formed, 1 (with the reason) when not.
"""
import argparse
import json
import math
import sys

MODES = ('thrpt', 'avgt', 'sample', 'ss')
PCT_KEYS = ['0.0', '50.0', '90.0', '95.0', '99.0', '99.9', '99.99', '99.999', '99.9999', '100.0']
FIELDS = [('jmhVersion', str), ('benchmark', str), ('mode', str), ('threads', int),
          ('forks', int), ('jvm', str), ('jvmArgs', list), ('jdkVersion', str),
          ('vmName', str), ('vmVersion', str), ('warmupIterations', int), ('warmupTime', str),
          ('warmupBatchSize', int), ('measurementIterations', int), ('measurementTime', str),
          ('measurementBatchSize', int), ('params', dict), ('primaryMetric', dict),
          ('secondaryMetrics', dict)]


class Bad(Exception):
    pass


def t_quantile(p, df):
    """Student's t quantile by bisection on its CDF (regularised beta by a
    continued fraction), so that no SciPy is needed."""
    def betacf(a, b, x):
        qab, qap, qam = a + b, a + 1, a - 1
        c, d = 1.0, 1 - qab * x / qap
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        h = d
        for m in range(1, 300):
            m2 = 2 * m
            aa = m * (b - m) * x / ((qam + m2) * (a + m2))
            d = 1 + aa * d
            d = 1 / (d if abs(d) > 1e-300 else 1e-300)
            c = 1 + aa / c
            h *= d * c
            aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
            d = 1 + aa * d
            d = 1 / (d if abs(d) > 1e-300 else 1e-300)
            c = 1 + aa / c
            h *= d * c
        return h

    def ibeta(a, b, x):
        if x <= 0 or x >= 1:
            return 0.0 if x <= 0 else 1.0
        lb = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
        front = math.exp(lb + a * math.log(x) + b * math.log(1 - x))
        if x < (a + 1) / (a + b + 2):
            return front * betacf(a, b, x) / a
        return 1 - front * betacf(b, a, 1 - x) / b

    def cdf(t):
        x = df / (df + t * t)
        tail = 0.5 * ibeta(df / 2, 0.5, x)
        return 1 - tail if t > 0 else tail

    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def percentile(sorted_values, p):
    """commons-math's Percentile (the legacy estimator JMH's statistics use)."""
    n = len(sorted_values)
    pos = p * (n + 1) / 100
    if p == 0 or pos < 1:
        return sorted_values[0]
    if pos >= n:
        return sorted_values[-1]
    k = int(math.floor(pos))
    return sorted_values[k - 1] + (pos - k) * (sorted_values[k] - sorted_values[k - 1])


def number(v, what, nan_ok=False):
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise Bad('%s: %r is not a number' % (what, v))
    if isinstance(v, str):
        if v == 'NaN' and nan_ok:
            return math.nan
        raise Bad('%s: %r is not a number%s' % (what, v, ' (nor "NaN")' if nan_ok else ''))
    return float(v)


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def check_metric(m, iterations, where):
    for key in ('score', 'scoreError', 'scoreConfidence', 'scorePercentiles', 'scoreUnit',
                'rawData'):
        if key not in m:
            raise Bad('%s: primaryMetric has no %s' % (where, key))
    raw = m['rawData']
    if not isinstance(raw, list) or not raw or not all(isinstance(f, list) for f in raw):
        raise Bad('%s: rawData is not a list of forks (lists)' % where)
    values = []
    for k, fork in enumerate(raw):
        if len(fork) != iterations:
            raise Bad('%s: fork %d has %d values, measurementIterations is %d'
                      % (where, k, len(fork), iterations))
        values += [number(v, '%s rawData[%d]' % (where, k)) for v in fork]
    n = len(values)
    mean = sum(values) / n
    score = number(m['score'], where + ' score')
    if not close(score, mean):
        raise Bad('%s: score %r is not the mean of rawData, %r' % (where, score, mean))
    error = number(m['scoreError'], where + ' scoreError', nan_ok=True)
    if n <= 2:
        if not math.isnan(error):
            raise Bad('%s: scoreError %r with %d values: JMH writes "NaN"' % (where, error, n))
    else:
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
        want = t_quantile(1 - 0.001 / 2, n - 1) * sd / math.sqrt(n)
        if not close(error, want, 1e-6) and not (want == 0 and error == 0):
            raise Bad('%s: scoreError %r, the 99.9%% t interval of rawData gives %r'
                      % (where, error, want))
    conf = m['scoreConfidence']
    if not isinstance(conf, list) or len(conf) != 2:
        raise Bad('%s: scoreConfidence is not [low, high]' % where)
    lo, hi = (number(c, where + ' scoreConfidence', nan_ok=True) for c in conf)
    if math.isnan(error):
        if not (math.isnan(lo) and math.isnan(hi)):
            raise Bad('%s: scoreConfidence %r without a scoreError' % (where, conf))
    elif not (close(lo, score - error, 1e-9) or abs(lo - (score - error)) < 1e-6) or \
            not (close(hi, score + error, 1e-9) or abs(hi - (score + error)) < 1e-6):
        raise Bad('%s: scoreConfidence %r is not score -/+ scoreError' % (where, conf))
    pcts = m['scorePercentiles']
    if not isinstance(pcts, dict) or list(pcts) != PCT_KEYS:
        raise Bad('%s: scorePercentiles keys %r, want %r' % (where, list(pcts), PCT_KEYS))
    s = sorted(values)
    prev = -math.inf
    for key in PCT_KEYS:
        v = number(pcts[key], '%s scorePercentiles[%s]' % (where, key))
        if v < prev:
            raise Bad('%s: scorePercentiles[%s] %r below the one before' % (where, key, v))
        if not close(v, percentile(s, float(key))):
            raise Bad('%s: scorePercentiles[%s] %r, rawData gives %r'
                      % (where, key, v, percentile(s, float(key))))
        prev = v
    if not close(pcts['0.0'], s[0]) or not close(pcts['100.0'], s[-1]):
        raise Bad('%s: scorePercentiles 0.0 and 100.0 are not rawData\'s min and max' % where)
    if not isinstance(m['scoreUnit'], str) or not m['scoreUnit']:
        raise Bad('%s: scoreUnit %r' % (where, m['scoreUnit']))


def check_entry(e, k):
    where = 'entry %d' % k
    if not isinstance(e, dict):
        raise Bad('%s is not an object' % where)
    for name, kind in FIELDS:
        if name not in e:
            raise Bad('%s has no %s' % (where, name))
        v = e[name]
        if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
            raise Bad('%s: %s is %r, want a %s' % (where, name, v, kind.__name__))
    where = 'entry %d (%s %s)' % (k, e['benchmark'], e['params'])
    if e['mode'] not in MODES:
        raise Bad('%s: mode %r is none of %s' % (where, e['mode'], MODES))
    if e['threads'] < 1 or e['forks'] < 0 or e['measurementIterations'] < 1:
        raise Bad('%s: threads, forks or measurementIterations out of range' % where)
    for name, v in e['params'].items():
        if not isinstance(v, str):
            raise Bad('%s: param %s is %r: JMH writes params as strings' % (where, name, v))
    if not all(isinstance(a, str) for a in e['jvmArgs']):
        raise Bad('%s: jvmArgs are not strings' % where)
    if len(e['primaryMetric']['rawData']) != max(e['forks'], 1):
        raise Bad('%s: %d forks in rawData, forks is %d'
                  % (where, len(e['primaryMetric']['rawData']), e['forks']))
    check_metric(e['primaryMetric'], e['measurementIterations'], where)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('file')
    ap.add_argument('--unit')
    ap.add_argument('--entries', type=int)
    ap.add_argument('--param', action='append', default=[],
                    help='NAME=VALUE[,NAME=VALUE]: an entry with these params must be there')
    a = ap.parse_args()
    try:
        with open(a.file) as f:
            doc = json.load(f)
        if not isinstance(doc, list) or not doc:
            raise Bad('the top level is not a non-empty array of benchmark entries')
        if a.entries is not None and len(doc) != a.entries:
            raise Bad('%d entries, want %d' % (len(doc), a.entries))
        for k, e in enumerate(doc):
            check_entry(e, k)
            if a.unit is not None and e['primaryMetric']['scoreUnit'] != a.unit:
                raise Bad('entry %d: scoreUnit %r, want %r'
                          % (k, e['primaryMetric']['scoreUnit'], a.unit))
        for want in a.param:
            kv = dict(p.split('=', 1) for p in want.split(','))
            if not any(all(e['params'].get(n) == v for n, v in kv.items()) for e in doc):
                raise Bad('no entry with params %s' % kv)
    except (Bad, OSError, ValueError) as e:
        print('check_jmh: %s: %s' % (a.file, e), file=sys.stderr)
        return 1
    print('check_jmh: %s: %d entries, each consistent with its rawData' % (a.file, len(doc)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
