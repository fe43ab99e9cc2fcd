#!/usr/bin/env python3
"""Facts docs/architecture.md states, checked against the tree they describe
(issue 24 item 6), so that a change to one without the other fails a test.

Usage: check_docs.py SOURCE_ROOT

- The runtime parts: the folders whose meson.build adds a library to
  lca_parts (reached from the top meson.build's subdir() calls), against
  the folders the "Parts and layering" diagram lists above apps/, and the
  count the text gives them ("The six runtime parts").
- The apps: the folders of apps/ against the diagram's "one app per folder"
  list.
- lca_app_main(): the apps whose main.c does not call it, against the ones
  the text names as exceptions.
- The run queue: what lcore/lca_lcore.c's run queue is, against what the
  text says it is.
- Telemetry: the commands the tree registers, against docs/usage.md's table.
"""
import os
import re
import sys

NUMBERS = {2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven', 8: 'eight',
           9: 'nine', 10: 'ten', 11: 'eleven', 12: 'twelve'}

root = sys.argv[1]
failures = []


def read(rel):
    with open(os.path.join(root, rel), encoding='utf-8') as f:
        return f.read()


def fail(what):
    failures.append(what)
    print('not ok - ' + what)


def meson_parts(folder=''):
    """Folders under @folder (top: '') whose meson.build joins lca_parts."""
    text = read(os.path.join(folder, 'meson.build'))
    if folder == '':
        # Only the subdir() calls between "lca_parts = []" and its use.
        start = text.index('lca_parts = []')
        text = text[start:text.index('foreach part : lca_parts', start)]
    found = [folder] if folder and re.search(r'^lca_parts \+=', text, re.M) else []
    for sub in re.findall(r"^\s*subdir\('([^']+)'\)", text, re.M):
        found += meson_parts(os.path.join(folder, sub))
    return found


arch = read('docs/architecture.md')
section = arch[arch.index('## Parts and layering'):]
section = section[:section.index('\n## ', 3)]
diagram = section[section.index('```') + 3:]
diagram = diagram[:diagram.index('```')]

# 1. The parts.
parts = meson_parts()
listed = []
for line in diagram.splitlines():
    m = re.match(r'^([a-z]+(?:/[a-z]+)*)/\s', line)
    if m is None:
        continue
    if m.group(1).startswith('apps') or m.group(1) == 'tests':
        break
    listed.append(m.group(1))
if sorted(parts) != sorted(listed):
    fail('the diagram lists the parts meson builds: meson %s, docs %s' % (parts, listed))
m = re.search(r'The (\w+) runtime parts build into `liblcactor`', section)
if m is None or m.group(1) != NUMBERS.get(len(parts)):
    fail('the text counts %d runtime parts ("%s")' % (len(parts), m.group(1) if m else None))

# 2. The apps.
apps = sorted(d for d in os.listdir(os.path.join(root, 'apps'))
              if d != 'common' and os.path.isfile(os.path.join(root, 'apps', d, 'meson.build')))
item = r'[a-z_]+(?: \([a-z-]+\))?'
m = re.search(r'one app per folder:\s+((?:%s,\s+)*%s)' % (item, item), diagram)
named = sorted(re.findall(r'([a-z_]+)(?: \([a-z-]+\))?', m.group(1))) if m else []
if named != apps:
    fail('the diagram names every app folder: apps/ has %s, docs %s' % (apps, named))

# 3. lca_app_main() and the apps that are not on it (lca_pair_app_main()
# is lca_app_main() for the apps that can run as a pair).
off_main = sorted('lca-' + a.replace('_', '-') for a in apps
                  if not re.search(r'lca_(pair_)?app_main\(', read(os.path.join('apps', a, 'main.c'))))
m = re.search(r'every app except ([^.]*?) runs through\s+`lca_app_main\(\)`', section, re.S)
except_named = sorted(re.findall(r'`(lca-[a-z-]+)`', m.group(1))) if m else []
if except_named != off_main:
    fail('the apps said to be off lca_app_main() are %s: docs say %s' % (off_main, except_named))

# 4. The run queue.
lcore = read('lcore/lca_lcore.c')
runq_is_ring = re.search(r'struct rte_ring\s*\*\s*runq', lcore) is not None
says_ring = re.search(r'run queue \(`rte_ring`', arch) is not None
says_fifo = re.search(r'run queue \(a plain FIFO', arch) is not None
if runq_is_ring != says_ring or runq_is_ring == says_fifo:
    fail('the run queue is %s in lcore/lca_lcore.c; the docs say %s' %
         ('an rte_ring' if runq_is_ring else 'a plain FIFO',
          'rte_ring' if says_ring else 'FIFO' if says_fifo else 'nothing'))

# 5. Telemetry: every command the tree registers is a row of docs/usage.md's
# table, and the table lists no command the tree lacks.
registered = set()
for top in ('actors', 'apps'):
    for d, _, files in os.walk(os.path.join(root, top)):
        for fn in files:
            if fn.endswith('.c'):
                with open(os.path.join(d, fn), encoding='utf-8') as f:
                    registered |= set(re.findall(r'rte_telemetry_register_cmd\(\s*"([^"]+)"',
                                                 f.read()))
usage = read('docs/usage.md')
tel = usage[usage.index('## Telemetry'):]
tel = tel[:tel.index('\n## ', 3)]
documented = {re.sub(r'[,\[].*', '', c) for c in re.findall(r'^\| `(/[^`]+)` \|', tel, re.M)}
if registered != documented:
    fail('the telemetry table of docs/usage.md lists %s; the tree registers %s' %
         (sorted(documented), sorted(registered)))

if not failures:
    print('ok - docs/architecture.md: %d parts, %d apps, %d off lca_app_main(), the run '
          'queue; docs/usage.md: %d telemetry commands' % (len(parts), len(apps), len(off_main),
                                                           len(registered)))
sys.exit(1 if failures else 0)
