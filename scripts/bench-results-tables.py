#!/usr/bin/env python3
"""The tables of docs/benchmarks.md from the outputs of scripts/bench-results.sh.

Usage: bench-results-tables.py OUT APP...

For each app, one markdown table: every configuration its verdict judged,
the median over the invocations of its score and of its ratio to its floor
(measured in the same run), the clock verdict of each invocation, and,
where the Go version ran in the same lock hold, its median and lcactor's
ratio to it (higher is better for lcactor, whatever the unit).
"""
import glob
import json
import os
import re
import statistics
import sys

if len(sys.argv) < 3:
    print('usage: bench-results-tables.py OUT APP... (OUT: the folder of scripts/bench-results.sh)',
          file=sys.stderr)
    sys.exit(2)
out = sys.argv[1]
apps = sys.argv[2:]
if not os.path.isdir(out):
    print('bench-results-tables: no folder %s' % out, file=sys.stderr)
    sys.exit(2)
# Each app's records, by the label bench-results.sh gives its invocations.
LABELS = {
    'pipeline': ['pipeline-mock', 'pipeline-port'],
    'remote-bench': ['remote-memif'],
    'freq': ['freq'],
    'lifecycle': ['lifecycle', 'lifecycle-feeders'],
    'reqresp': ['reqresp'],
    'microbench': ['microbench'],
    'circular': ['circular'],
    'pinghops': ['pinghops'],
}


def num(v):
    """A figure as the apps print it: never e-notation."""
    a = abs(v)
    return '%.*f' % (0 if a >= 100 else 1 if a >= 10 else 2 if a >= 1 else 3, v)


def records(label):
    found = []
    for path in sorted(glob.glob(os.path.join(out, label + '-i*.json'))):
        try:
            with open(path, encoding='utf-8') as f:
                found.append(json.load(f))
        except (OSError, ValueError):
            print('(%s: no readable record: the run failed, see its .txt)' % path)
    return found


ORDER = ['PREEMPTED', 'STOLEN', 'IRQ', 'CLOCK', 'STABLE']
# Runs whose lcores share their CPUs with the app's own threads by design.
OWN_PREEMPTION = ('lifecycle-feeders',)


def worst_clock(rec):
    """The worst cause over a record's lcores: the record's own "cause" is
    only its first unstable lcore's."""
    f = rec.get('frequency') or {}
    causes = [lc.get('cause') for lc in f.get('lcores', [])] + [f.get('cause')]
    found = [c for c in ORDER if c in causes]
    return found[0] if found else (f.get('verdict') or 'n/a')


def go_figures(name):
    """The Go program's RESULT figures per invocation: {key: [values]}."""
    figs = {}
    for path in sorted(glob.glob(os.path.join(out, 'go-%s-i*.txt' % name))):
        with open(path, encoding='utf-8') as f:
            for line in f:
                if not line.startswith('RESULT'):
                    continue
                kv = dict(w.split('=', 1) for w in line.split()[3:] if '=' in w)
                if name == 'reqresp':
                    figs.setdefault('rate', []).append(float(kv['mean_Mmsgs']) * 1e6)
                elif name == 'pinghops':
                    figs.setdefault('time', []).append(float(kv['mean_ms']))
                elif name == 'circular':
                    figs.setdefault(kv['actors'],
                                    []).append(float(kv['median_us_per_1000_hops']))
    return {k: statistics.median(v) for k, v in figs.items()}


def go_for(app, row, go):
    """The Go figure that row compares with, in the row's unit, and lcactor's
    ratio to it (> 1: lcactor ahead)."""
    if not go:
        return None
    unit = row['unit']
    if app == 'reqresp' and 'rate' in go and row['config'] != 'inline':
        # inline calls the work directly: no message to compare with Go's.
        scale = 1e6 if unit.startswith('M') else 1.0
        g = go['rate'] / scale
        return g, row['score'] / g
    if app == 'pinghops' and 'time' in go and unit == 'ms':
        return go['time'], go['time'] / row['score']
    m = re.match(r'(\d+) actors?', row['config'])
    if app == 'circular' and m and m.group(1) in go:
        g = go[m.group(1)]
        if unit in ('ns', 'ns/round'):
            g *= 1000
        return g, g / row['score']
    return None


def table(app):
    go = go_figures(app) if app in ('reqresp', 'circular', 'pinghops') else {}
    for label in LABELS[app]:
        recs = records(label)
        if not recs:
            print('(%s: no records)' % label)
            continue
        clocks = [worst_clock(r) for r in recs]
        # A run whose lcores lost their CPUs measured the machine's other
        # work: it is named, not counted.
        kept = [r for r, c in zip(recs, clocks)
                if label in OWN_PREEMPTION or c not in ('PREEMPTED', 'STOLEN')]
        rows = {}
        for r in kept:
            for row in (r.get('verdict') or {}).get('rows', []):
                rows.setdefault(row['config'], []).append(row)
        print('`%s`: %d of %d invocations kept; clock: %s.' % (
            label, len(kept), len(recs),
            ', '.join(c + (' (not counted)' if c in ('PREEMPTED', 'STOLEN') and
                           label not in OWN_PREEMPTION else '') for c in clocks)))
        print()
        if not kept:
            print()
            continue
        head = '| configuration | score | its floor | ratio to its floor |'
        if go:
            head += " Go | lcactor's speed ÷ Go's |"
        print(head)
        print('|' + ' --- |' * (head.count('|') - 1))
        for config, each in rows.items():
            score = statistics.median(x['score'] for x in each)
            ratios = [x['ratio_median'] for x in each if x.get('ratio_median') is not None]
            kind = each[0].get('kind')
            if ratios:
                med = statistics.median(ratios)
                ratio = ('%.2f×' % med if kind == 'time' else '%.1f %%' % (100 * med))
                if len(ratios) > 1:
                    ratio += ' (%s)' % ', '.join(
                        '%.2f×' % x if kind == 'time' else '%.1f' % (100 * x) for x in ratios)
            else:
                why = (each[0].get('no_floor_why') or '?').split(':')[0]
                ratio = why if why.startswith('none') else 'none: ' + why
            scores = ', '.join(num(x['score']) for x in each)
            line = '| %s | %s %s (%s) | %s | %s |' % (config, num(score), each[0]['unit'], scores,
                                                     re.split(r':| \(', each[0].get('floor') or '—')[0],
                                                     ratio)
            if go:
                g = go_for(app, dict(each[0], score=score), go)
                line += ' %s | %s |' % (('%s %s' % (num(g[0]), each[0]['unit']), '%.2f' % g[1])
                                        if g else ('—', '—'))
            print(line)
        print()
        if app == 'freq':
            freq_lcores(recs[-1])


def freq_lcores(rec):
    """lca-freq's figures: each lcore's clock under load, as its report gives it."""
    f = rec.get('frequency') or {}
    print('TSC %s MHz.' % num((f.get('tsc_hz') or 0) / 1e6))
    print()
    print('| lcore (CPU) | mean MHz (min–max) | cv | steal | run-queue wait | verdict |')
    print('| --- | --- | --- | --- | --- | --- |')
    for lc in f.get('lcores', []):
        print('| %d (%d) | %s (%s–%s) | %.2f %% | %.2f %% | %.2f %% | %s |' % (
            lc['lcore'], lc['cpu'], num(lc['mean_mhz']), num(lc['min_mhz']), num(lc['max_mhz']),
            lc['cv_pct'], lc['steal_pct'], lc['rq_wait_pct'], lc.get('cause') or lc['verdict']))
    print()


def httpd():
    path = os.path.join(out, 'httpd.txt')
    if not os.path.exists(path):
        print('(httpd: no output)')
        return
    with open(path, encoding='utf-8') as f:
        lines = f.read().splitlines()
    bullet = False
    for line in lines:
        # Each run's own line is in the output file; the table needs the
        # cells' medians and the ratios the script stood by, as markdown.
        if re.match(r'  (sat|rate)-\S+ rep \d+ ', line) or line.startswith('# servers') \
                or line.startswith('# http-compare:'):
            continue
        m = re.match(r'^== (\S+): (.*)$', line)
        r = re.match(r'^(sat|rate)-\S+: (.*)$', line)
        if bullet and not r:
            print()
            bullet = False
        if m:
            print('**%s**: %s' % (m.group(1), m.group(2)))
        elif r:
            if not bullet:
                print()
            print('- ' + r.group(2))
            bullet = True
        elif line.startswith('# answers: '):
            print('Answers: ' + line[len('# answers: '):] + '.')
            print()
        elif line.startswith('# load average at the end'):
            print('Load average at the end: %s.' % line.split(';')[0].split()[-1])
        else:
            print(line)
    print()


def load():
    wrk, lca = [], []
    for path in sorted(glob.glob(os.path.join(out, 'load-wrk-i*.txt'))):
        with open(path, encoding='utf-8') as f:
            m = re.search(r'Requests/sec:\s+([0-9.]+)', f.read())
            if m:
                wrk.append(float(m.group(1)))
    for path in sorted(glob.glob(os.path.join(out, 'load-lca-i*.json'))):
        try:
            with open(path, encoding='utf-8') as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        rate = (r.get('result') or {}).get('achieved_rps')
        if rate is not None:
            lca.append(float(rate))
    if not wrk or not lca:
        print('(load: wrk %s, lca-load %s: a run failed, see %s/load-*.txt)' % (wrk, lca, out))
        return
    print('| closed loop, 100 connections, 2 threads, on lca-httpd-floor | req/s, median (each) |')
    print('| --- | --- |')
    print('| wrk -t2 -c100 | %s (%s) |' % (num(statistics.median(wrk)),
                                          ', '.join(num(x) for x in wrk)))
    print('| lca-load --closed -t 2 -c 100 | %s (%s) |' % (num(statistics.median(lca)),
                                                          ', '.join(num(x) for x in lca)))
    print('| lca-load ÷ wrk | %.2f |' % (statistics.median(lca) / statistics.median(wrk)))
    print()


def run_line(app):
    """When and at which commit the app's invocations ran, from the
    script's header.txt and commands.txt."""
    prefix = {'remote-bench': 'remote'}.get(app, app)
    try:
        with open(os.path.join(out, 'header.txt'), encoding='utf-8') as f:
            words = f.read().split()
        with open(os.path.join(out, 'commands.txt'), encoding='utf-8') as f:
            times = [l.split()[1][:5] for l in f if len(l.split()) > 2 and
                     l.split()[2].startswith(prefix)]
    except OSError:
        return
    if not times or len(words) < 4:
        return
    date = next((w for w in words if re.match(r'\d{4}-\d\d-\d\d$', w)), '?')
    span = ('from %s UTC' % times[0] if times[0] == times[-1] else
            '%s-%s UTC (the first and last invocation started)' % (times[0], times[-1]))
    print('Run %s, %s, built from `%s`, on the machine of [Where and when](#where-and-when).'
          % (date, span, words[2].rstrip(',')))
    print()


known = sorted(LABELS) + ['httpd', 'load']
for app in apps:
    if app not in known:
        print("bench-results-tables: unknown app '%s' (one of: %s)" % (app, ' '.join(known)),
              file=sys.stderr)
        sys.exit(2)
for app in apps:
    print('### lca-%s' % app)
    print()
    run_line(app)
    if app == 'httpd':
        httpd()
    elif app == 'load':
        load()
    else:
        table(app)
