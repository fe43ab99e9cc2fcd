#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The house rule on the library's sources: every *.c and *.h under eal/,
lcore/, mempool/ and actors/ (and below) has at most 800 lines, and every
function in them at most 80, counted from the line with its name to its
closing brace (the house style: the name at the start of a line, the braces
alone on theirs, as DPDK writes C).

usage: tests/check_house.py SOURCE_ROOT [ALLOWLIST]

ALLOWLIST (default: tests/house_allowlist.txt) names offenders that are
let through for now, one a line: "PATH" (a file's length) or
"PATH:FUNCTION"; '#' starts a comment. An entry that is no longer over its
limit fails too, so that the list only shrinks.

Before the tree, the checker checks itself on a made-up tree with one file
and one function over the limits: a checker that finds nothing there
fails. Exit 0 when the tree keeps the rule, 1 when not, 2 on a bad argument.
"""
import os
import re
import sys
import tempfile

LIB_DIRS = ('eal', 'lcore', 'mempool', 'actors')
FILE_MAX = 800
FUNC_MAX = 80
# The last identifier before the '(' of a definition's first line.
NAME = re.compile(r'([A-Za-z_]\w*)\s*\(')


def functions(lines):
    """(name, length) of each function defined in @lines: a '{' alone at
    the start of a line, after a header whose first line starts at column 0
    and has a '(' (a struct or an initialiser has none)."""
    out = []
    for i, line in enumerate(lines):
        if line.rstrip() != '{':
            continue
        head = i - 1
        while head > 0 and lines[head][:1] in (' ', '\t'):
            head -= 1  # parameters continued on the next lines
        m = NAME.search(lines[head]) if head >= 0 else None
        if not m or lines[head].rstrip().endswith(';'):
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith('}'):
            end += 1
        out.append((m.group(1), end - head + 1))
    return out


def offenders(root):
    """Each (key, why) over a limit: key PATH or PATH:FUNCTION."""
    found = []
    for top in LIB_DIRS:
        for d, _, names in sorted(os.walk(os.path.join(root, top))):
            for n in sorted(names):
                if not n.endswith(('.c', '.h')):
                    continue
                path = os.path.join(d, n)
                rel = os.path.relpath(path, root)
                with open(path, encoding='utf-8', errors='replace') as f:
                    lines = f.read().split('\n')
                if lines and lines[-1] == '':
                    lines.pop()
                if len(lines) > FILE_MAX:
                    found.append((rel, f'{len(lines)} lines (at most {FILE_MAX})'))
                for name, length in functions(lines):
                    if length > FUNC_MAX:
                        found.append((f'{rel}:{name}',
                                      f'{length} lines (at most {FUNC_MAX})'))
    return found


def read_allowlist(path):
    allowed = set()
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                entry = line.split('#', 1)[0].strip()
                if entry:
                    allowed.add(entry)
    return allowed


def self_check():
    """The rule must catch a long file and a long function, and pass a
    function of exactly FUNC_MAX lines."""
    body = ['\tx++;'] * (FUNC_MAX - 3)
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, 'actors', 'sub'))
        with open(os.path.join(root, 'actors', 'sub', 'long.c'), 'w') as f:
            f.write('\n'.join(['static int', 'too_long(int x,', '\t int y)', '{']
                              + body + ['}', 'static int', 'just_fits(int x)', '{']
                              + body + ['}'] + ['/* pad */'] * FILE_MAX) + '\n')
        got = sorted(k for k, _ in offenders(root))
    want = ['actors/sub/long.c', 'actors/sub/long.c:too_long']
    if got != want:
        print(f'not ok - the checker itself: found {got} in its made-up tree, not {want}')
        return False
    print('ok - the checker finds a long file and a long function, and passes one of '
          f'{FUNC_MAX} lines')
    return True


def main(argv):
    if len(argv) not in (2, 3) or not os.path.isdir(argv[1]):
        print(__doc__.strip().split('\n\n')[1], file=sys.stderr)
        return 2
    root = argv[1]
    allow_path = argv[2] if len(argv) == 3 else os.path.join(root, 'tests',
                                                             'house_allowlist.txt')
    if not self_check():
        return 1
    allowed = read_allowlist(allow_path)
    found = offenders(root)
    bad = 0
    for key, why in found:
        if key in allowed:
            print(f'# allowed for now ({os.path.basename(allow_path)}): {key}: {why}')
        else:
            print(f'not ok - {key}: {why}')
            bad += 1
    for key in sorted(allowed - {k for k, _ in found}):
        print(f'not ok - {key}: in {os.path.basename(allow_path)} but within the limits '
              'now (or gone): take it off the list')
        bad += 1
    if bad == 0:
        print(f'ok - library files <= {FILE_MAX} lines, functions <= {FUNC_MAX} lines')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
