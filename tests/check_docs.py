#!/usr/bin/env python3
"""Facts docs/architecture.md states, checked against the tree they describe
(issue 24 item 6), so that a change to one without the other fails a test.

Usage: check_docs.py SOURCE_ROOT [BUILD_ROOT]

- The runtime parts: the folders whose meson.build adds a library to
  lca_parts (reached from the top meson.build's subdir() calls), against
  the folders the "Parts and layering" diagram lists above apps/, and the
  count the text gives them ("The six runtime parts").
- The apps: the folders of apps/ against the diagram's "one app per folder"
  list.
- app_main(): the apps whose main.c does not call it, against the ones
  the text names as exceptions.
- The run queue: what lcore/lca_lcore.c's run queue is, against what the
  text says it is.

And what README.md shows a stranger:
- The first actor: the README's C block is examples/first_actor/main.c's
  code, lines for lines, from its "#define HELLO" to its end.
- Words of the project's own notebook, which a stranger cannot look up:
  "seed" for a published benchmark ("seed 001", "the seed's"), "issue N",
  "the Go peer" (and "peer" for any benchmark implementation compared
  with), in README.md, docs/*.md (but benchmarks.md and docs/history/, the
  record of the runs) and every app's --help (with BUILD_ROOT: each
  apps/*/lca-* run with --help). A random seed ("--seed N", "random seed",
  "seed 1") and a peer at the other end of a link are fine.
- Telemetry: the commands the tree registers, against docs/usage.md's table.
"""
import glob
import os
import re
import subprocess
import sys

NUMBERS = {2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven', 8: 'eight',
           9: 'nine', 10: 'ten', 11: 'eleven', 12: 'twelve'}

root = sys.argv[1]
build = sys.argv[2] if len(sys.argv) > 2 else None
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

# 3. app_main() and the apps that are not on it (app_pair_main()
# is app_main() for the apps that can run as a pair).
off_main = sorted('lca-' + a.replace('_', '-') for a in apps
                  if not re.search(r'app_(pair_)?main\(', read(os.path.join('apps', a, 'main.c'))))
m = re.search(r'every app except ([^.]*?) runs through\s+`app_main\(\)`', section, re.S)
except_named = sorted(re.findall(r'`(lca-[a-z-]+)`', m.group(1))) if m else []
if except_named != off_main:
    fail('the apps said to be off app_main() are %s: docs say %s' % (off_main, except_named))

# 4. The run queue.
lcore = read('lcore/lca_lcore.c')
runq_is_ring = re.search(r'struct rte_ring\s*\*\s*runq', lcore) is not None
says_ring = re.search(r'run queue \(`rte_ring`', arch) is not None
says_fifo = re.search(r'run queue \(a plain FIFO', arch) is not None
if runq_is_ring != says_ring or runq_is_ring == says_fifo:
    fail('the run queue is %s in lcore/lca_lcore.c; the docs say %s' %
         ('an rte_ring' if runq_is_ring else 'a plain FIFO',
          'rte_ring' if says_ring else 'FIFO' if says_fifo else 'nothing'))

# 5. README.md's first actor is examples/first_actor's code.
readme = read('README.md')
example = read('examples/first_actor/main.c')
blocks = re.findall(r'^```c\n(.*?)^```', readme, re.M | re.S)
body = example[example.find('#define HELLO'):] if '#define HELLO' in example else None
if body is None:
    fail('examples/first_actor/main.c has no "#define HELLO" for README.md to start at')
elif not any(b.rstrip('\n') == body.rstrip('\n') for b in blocks):
    near = max(blocks, key=lambda b: len(set(b.splitlines()) & set(body.splitlines())),
               default='')
    diff = [l for l in body.splitlines() if l not in near.splitlines()][:3]
    fail('README.md shows examples/first_actor/main.c from "#define HELLO" to its end, '
         'as it is (lines of the file not in the README\'s block: %s)' % diff)

# 6. The notebook's words. Each pattern names a use a stranger cannot look
# up; a random seed or a peer at the far end of a link matches none.
INTERNAL = [
    (r'\bseeds?\s+0\d\d\b', 'a published benchmark by its number ("seed 001")'),
    (r"\bthe seed(?:'s)?\b(?! of\b)|\bseed's\b|\bseeds/|\bseed (?:experiment|benchmark)s?\b",
     'a published benchmark as "the seed": name it'),
    (r'\bissues?\s+#?\d+|\b(?:the|this|that|an?) issue(?:\'s)?\b|\bissue-\d+',
     'an issue of the project\'s tracker'),
    (r'\bGo peers?\b|\bpeers/|\bpeers? (?:experiment|implementation|benchmark|figure|run)s?\b'
     r'|\bthe peer the\b', 'a compared implementation as a "peer"'),
]


def internal_words(name, text):
    for n, line in enumerate(text.splitlines(), 1):
        for pattern, what in INTERNAL:
            m = re.search(pattern, line, re.I)
            if m:
                fail('%s:%d: "%s": %s (%s)' % (name, n, m.group(0), what, line.strip()[:100]))


docs = ['README.md'] + sorted(
    os.path.relpath(f, root) for f in glob.glob(os.path.join(root, 'docs', '*.md'))
    if os.path.basename(f) != 'benchmarks.md')
for doc in docs:
    internal_words(doc, read(doc))
helps = 0
if build is not None:
    for exe in sorted(glob.glob(os.path.join(build, 'apps', '*', 'lca-*'))):
        if not os.access(exe, os.X_OK) or os.path.isdir(exe):
            continue
        try:
            r = subprocess.run([exe, '--help'], capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as e:
            fail('%s --help did not run: %s' % (os.path.basename(exe), e))
            continue
        internal_words(os.path.basename(exe) + ' --help', r.stdout + r.stderr)
        helps += 1
    if helps == 0:
        fail('no app under %s/apps to run with --help' % build)

# 7. Telemetry: every command the tree registers is a row of docs/usage.md's
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
    print('ok - docs/architecture.md: %d parts, %d apps, %d off app_main(), the run '
          'queue; docs/usage.md: %d telemetry commands' % (len(parts), len(apps), len(off_main),
                                                           len(registered)))
    print('ok - README.md\'s first actor is examples/first_actor\'s code')
    print('ok - no published benchmark by number, no issue, no "peer" implementation in %d '
          'docs and %d apps\' --help' % (len(docs), helps))
sys.exit(1 if failures else 0)
