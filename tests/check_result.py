#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check an app's --json record against docs/lcactor-result.schema.json and,
with --plot SVG, that scripts/lca-plot renders it into an SVG that holds its
headline (tests/check_plot.py: each configuration judged, with its floor).

Usage: check_result.py RECORD.json APP [--plot SVG]
Exits 1, naming the first problem, when a check fails.
"""
import json
import os
import sys

import jsonschema

import check_plot

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "docs", "lcactor-result.schema.json")


def main():
    record_path, app = sys.argv[1], sys.argv[2]
    with open(SCHEMA) as f:
        schema = json.load(f)
    with open(record_path) as f:
        record = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(record), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        sys.exit(f"{record_path}: {e.json_path}: {e.message[:300]} ({len(errors)} errors)")
    if record["app"] != app:
        sys.exit(f"{record_path}: app is {record['app']!r}, not {app!r}")
    if "--plot" in sys.argv:
        svg = sys.argv[sys.argv.index("--plot") + 1]
        problem = check_plot.check([record_path], svg)
        if problem:
            sys.exit(problem)


if __name__ == "__main__":
    main()
