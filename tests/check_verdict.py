#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that an app's output ends with the verdict its record holds
(apps/common/app_verdict.h): a "== verdict ==" block with one line per row
of record["verdict"]["rows"], in order, each with its ratio to its floor or
why none applies; the clock verdict of record["frequency"]; and, last, the
record's path.

Usage: check_verdict.py OUTPUT.txt RECORD.json
Exits 1, naming the first problem, when a check fails.
"""
import json
import math
import re
import sys


def fail(msg):
    sys.exit(f"verdict: {msg}")


def clock_word(freq):
    verdict = freq.get("verdict")
    if verdict == "stable":
        return "stable"
    if verdict == "unstable":
        return freq.get("cause") or "UNSTABLE"
    return "n/a"


def plain(v):
    """A figure as the verdict prints it (apps/common/app_verdict.c, plain())."""
    a = abs(v)
    decimals = 0 if a >= 100 else 1 if a >= 10 else 2 if a >= 1 else 3 if a >= 0.01 else 6
    return f"{v:.{decimals}f}"


def check_row(line, row):
    prefix = row["config"] + ": "
    if not line.startswith(prefix):
        fail(f"row {row['config']!r}: the line is {line!r}")
    # The ± is the record's ci_half of the score it follows (the median's own
    # interval where the score is a median: app_stats' p50_error), and no ±
    # where the record has none.
    score, ci = row.get("score"), row.get("ci_half")
    if isinstance(score, (int, float)):
        want = plain(score) + (f" ± {plain(ci)}" if isinstance(ci, (int, float)) else "") + " "
        if not line.startswith(prefix + want):
            fail(f"row {row['config']!r}: wants {prefix + want!r}, line {line!r}")
    if row["floor"] is None:
        if not row["no_floor_why"] or "no floor: " + row["no_floor_why"] not in line:
            fail(f"row {row['config']!r} has no floor and does not say why: {line!r}")
        return
    med = row["ratio_median"]
    if med is None or not math.isfinite(med) or med <= 0:
        fail(f"row {row['config']!r}: floor {row['floor']!r} but no ratio ({med!r})")
    want = f"{med:.2f}× its floor" if row["kind"] == "time" else f"{100 * med:.1f} % of its floor"
    if want not in line or "floor: " + row["floor"] not in line:
        fail(f"row {row['config']!r}: wants {want!r} and its floor named, line {line!r}")


def main():
    text = open(sys.argv[1]).read().rstrip("\n").split("\n")
    record_path = sys.argv[2]
    with open(record_path) as f:
        record = json.load(f)
    rows = record.get("verdict", {}).get("rows", [])
    if not rows:
        fail("the record has no verdict rows")
    if text[-1] != "record: " + record_path:
        fail(f"the last line is {text[-1]!r}, not the record's path")
    if "== verdict ==" not in text:
        fail("no '== verdict ==' block")
    block = text[len(text) - 1 - text[::-1].index("== verdict =="):]
    lines = [l for l in block[1:-2] if not l.startswith("  ")]
    if len(lines) != len(rows):
        fail(f"{len(rows)} rows in the record, {len(lines)} in the block: {lines!r}")
    for line, row in zip(lines, rows):
        check_row(line, row)
    clock = block[-2]
    word = clock_word(record["frequency"])
    if not re.match(r"clock: " + re.escape(word) + r" \(.+\)$", clock):
        fail(f"the clock line is {clock!r}, the record says {word!r}")


if __name__ == "__main__":
    main()
