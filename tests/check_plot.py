#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check that scripts/lca-plot draws the headline of a record: the SVG parses,
and holds one score series per configuration the record judges, a floor and
a ratio series for each that has a floor, the configurations' names, the
steal panel's resolution, and no offset or exponent on an axis; and that the
picture is legible: every text on the canvas, no two texts of the headline
over each other.

Usage: check_plot.py RECORD.json [B.json] SVG   render and check one picture
       check_plot.py --synthetic DIR            the same on made-up records:
                                                a verdict record, an A-vs-B
                                                overlay, an old reqresp record,
                                                lca-load's record
Exits 1, naming the first problem; 77 when matplotlib is missing.
"""
import copy
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, "..", "scripts", "lca-plot")
SVG_NS = "{http://www.w3.org/2000/svg}"
# What matplotlib writes for an offset or an exponent: "1e8", "+1.234e3", "x10^8"
OFFSET = re.compile(r"^[-+]?\d*\.?\d*e[-+]?\d+$|\\times|10\^|×10|^1e\d+$")


def expected(record):
    """(configurations, how many have a floor, exact) the headline must show,
    read from the record itself, not from lca-plot's code."""
    if record.get("schema") == "lca-load/1":
        # lca-load's own shape: its rate and its median latency, no floor.
        return ([c for c in ("answers, " + ("open loop at %s req/s" % record["conf"]["rate"]
                                              if record["conf"]["mode"] == "open"
                                              else "closed loop"), "latency median")], 0, True)
    v = record.get("verdict")
    if isinstance(v, dict) and v.get("rows"):
        rows = v["rows"]
        return ([r["config"] for r in rows],
                sum(1 for r in rows if r.get("ratio_median") is not None), True)
    res = record.get("results", [])
    if any(r.get("dispatcher") == "floor" for r in res):
        # reqresp: every runtime row, each against the floor of its
        # throughput; the inline ceiling is no configuration judged.
        floors = {r.get("throughput_per_turn") for r in res if r.get("dispatcher") == "floor"}
        runtime = [r for r in res if r.get("dispatcher") not in ("inline", "floor")
                   and r.get("throughput")]
        return ([r["name"] for r in runtime],
                sum(1 for r in runtime if r.get("throughput_per_turn") in floors), True)
    # Other records without verdict rows: at least one result in the headline.
    return ([], 0, False)


def ids(root, prefix):
    return [e.get("id") for e in root.iter() if (e.get("id") or "").startswith(prefix)]


def texts(root):
    return ["".join(e.itertext()) for e in root.iter(SVG_NS + "text")]


def check_svg(svg, records):
    """None when the picture holds each record's headline, else the problem."""
    if os.path.getsize(svg) == 0:
        return f"{svg}: empty"
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        return f"{svg}: not XML: {e}"
    if root.tag != SVG_NS + "svg":
        return f"{svg}: the root element is {root.tag}, not svg"
    words = texts(root)
    alltext = "\n".join(words)
    for tag, record in zip("ab", records):
        configs, n_floor, exact = expected(record)
        scores = ids(root, f"headline-{tag}-score-")
        floors = ids(root, f"headline-{tag}-floor-")
        ratios = ids(root, f"headline-{tag}-ratio-")
        if not exact:
            n_res = sum(1 for r in record.get("results", []) if r.get("throughput") or r.get("time"))
            if n_res and not 1 <= len(scores) <= n_res:
                return f"{svg}: {len(scores)} headline score series for {n_res} results ({tag})"
            continue
        if len(scores) != len(configs):
            return f"{svg}: {len(scores)} headline score series, not {len(configs)} ({tag})"
        if len(floors) != n_floor or len(ratios) != n_floor:
            return (f"{svg}: {len(floors)} floor and {len(ratios)} ratio series, "
                    f"not {n_floor} each ({tag})")
        for c in configs:
            if c not in words:
                return f"{svg}: the configuration {c!r} is not named"
    bad = [w for w in words if OFFSET.search(w.strip())]
    if bad:
        return f"{svg}: an axis has an offset or exponent: {bad[0]!r}"
    has_series = any(lc.get("series", {}).get("t_s")
                     for rec in records for res in rec.get("results", [])
                     for lc in (res.get("frequency") or {}).get("lcores", []))
    if has_series and "jiff" not in alltext:
        return f"{svg}: the steal panel does not say its resolution in jiffies"
    return None


def lca_plot_module():
    """scripts/lca-plot as a module (it has no .py), to measure its figure."""
    from importlib.machinery import SourceFileLoader
    import importlib.util
    loader = SourceFileLoader("lca_plot", PLOT)
    spec = importlib.util.spec_from_loader("lca_plot", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def overlap(a, b):
    """Whether two window boxes share more than a pixel each way."""
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > 1 and
            min(a.y1, b.y1) - max(a.y0, b.y0) > 1)


def shown_texts(ax):
    """The texts that panel @p ax draws: its own, its axis labels and titles,
    its legend's, and the labels of the ticks inside its view (matplotlib
    keeps labels of ticks outside it, undrawn)."""
    out = list(ax.texts) + [ax.xaxis.label, ax.yaxis.label, ax.title,
                            ax._left_title, ax._right_title]
    if ax.get_legend() is not None:
        out += list(ax.get_legend().get_texts())
    for axis in (ax.xaxis, ax.yaxis):
        lo, hi = sorted(axis.get_view_interval())
        span = (hi - lo) * 1e-9
        for tick in axis.get_major_ticks():
            if lo - span <= tick.get_loc() <= hi + span:
                out += [tick.label1, tick.label2]
    return out


def check_layout(paths, records, svg):
    """None when every text of the picture lies on the canvas and no two
    texts of the headline overlap (a label over another, or over the panel
    beside it), else the problem: what a reader of the SVG would see. Writes
    the picture to @p svg as lca-plot does."""
    from matplotlib.text import Text
    mod = lca_plot_module()
    fig = mod.picture(records, paths)
    fig.savefig(svg)  # what lca-plot writes, measured in the same drawing
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    head = []
    drawn = [(None, t) for t in fig.texts + ([fig._suptitle] if fig._suptitle else [])]
    for ax in fig.axes:
        drawn += [(ax, t) for t in shown_texts(ax)]
    for ax, t in drawn:
        if not t.get_visible() or not t.get_text().strip():
            continue
        box = t.get_window_extent(renderer)
        if (box.x0 < canvas.x0 - 1 or box.x1 > canvas.x1 + 1 or
                box.y0 < canvas.y0 - 1 or box.y1 > canvas.y1 + 1):
            return f"the text {t.get_text()!r} runs off the canvas ({box} of {canvas})"
        if ax is not None and ax.get_label() == "headline":
            head.append((t.get_text(), box))
    for i, (ta, ba) in enumerate(head):
        for tb, bb in head[i + 1:]:
            if overlap(ba, bb):
                return f"headline texts overlap: {ta!r} and {tb!r}"
    mod.plt.close(fig)
    return None


def render(paths, svg):
    subprocess.run([PLOT, *paths, "-o", svg], check=True, stdout=subprocess.DEVNULL)


def check(paths, svg):
    records = []
    for p in paths:
        with open(p) as f:
            records.append(json.load(f))
    # One drawing, measured and written (drawing is most of the test's time);
    # the command itself is run once, by --synthetic.
    return check_layout(paths, records, svg) or check_svg(svg, records)


# ---- made-up records --------------------------------------------------------

def series(n, steal_at=None):
    """A lcore's series of n points 0.11 s apart, one jiffy of steal at steal_at."""
    t = [round(0.11 * (i + 1), 3) for i in range(n)]
    steal = [100.0 / 11 if i == steal_at else 0.0 for i in range(n)]
    return {"t_s": t, "mhz": [4000.0 + i for i in range(n)], "probe_mhz": [4000.0] * n,
            "busy_pct": [100.0] * n, "steal_pct": steal}


def measure(values, unit):
    m = sum(values) / len(values)
    return {"unit": unit, "values": values, "n": len(values), "mean": m, "min": min(values),
            "max": max(values), "p50": m, "p99": max(values), "ci_low": m * 0.9,
            "ci_high": m * 1.1, "confidence": 0.999}


def lcores(steal_at=None):
    return {"verdict": "stable", "lcores": [
        {"lcore": i, "cpu": i, "mean_mhz": 4000.0, "min_mhz": 3990.0, "max_mhz": 4010.0,
         "steal_pct": 0.2, "irq_pct": 0.0, "series": series(20, steal_at if i == 0 else None)}
        for i in (0, 1)]}


def verdict_row(config, kind, score, unit, ratios, flags=()):
    srt = sorted(ratios)
    return {"config": config, "kind": kind, "score": score, "ci_half": score * 0.05,
            "unit": unit, "floor": "bare queues" if ratios else None,
            "no_floor_why": None if ratios else "nothing bare does this",
            "ratios": ratios, "ratio_median": srt[len(srt) // 2] if srt else None,
            "ratio_min": srt[0] if srt else None, "ratio_max": srt[-1] if srt else None,
            "floor_moved_pct": None, "moved": False, "window_s": 1.0, "flags": list(flags)}


def synthetic_a():
    """A record with verdict rows of both kinds, one without a floor, and
    large raw rates (1e8 ops/s) that must not get an offset axis."""
    return {"schema": "lcactor-result/1", "app": "lca-synthetic", "date": "2026-12-01T00:00:00Z",
            "machine": {"cpu_model": "made up", "lcores": 2},
            "frequency": {"verdict": "stable", "lcores": []},
            "results": [{"name": "run one", "throughput": measure([1.2e8, 1.25e8, 1.3e8], "ops/s"),
                         "frequency": lcores(steal_at=5)}],
            "verdict": {"rows": [
                verdict_row("affinity tp=1", "rate", 120.5, "M ops/s", [0.81, 0.84, 0.9]),
                verdict_row("shared tp=1", "rate", 100.25, "M ops/s", [0.7, 0.75], ["unreliable"]),
                verdict_row("spawn", "rate", 3.5, "M ops/s", []),
                verdict_row("inline ceiling", "rate", 4300.0, "M ops/s", []),
                verdict_row("tokens around the ring", "rate", 640064.0, "messages handled", []),
                verdict_row("ring of 2", "time", 188000.0, "ns", [3.1, 3.6, 4.0],
                            ["moved", "short-window", "unreliable"])]}}


def synthetic_b(a):
    """B: A's configurations, other figures, and one configuration more."""
    b = copy.deepcopy(a)
    b["date"] = "2026-12-01T01:00:00Z"
    for r in b["verdict"]["rows"]:
        r["score"] *= 1.1
    b["verdict"]["rows"].append(verdict_row("pack tp=1", "rate", 140.0, "M ops/s", [1.1]))
    return b


def synthetic_reqresp():
    """An older reqresp record: no verdict rows, floor rows, an inline ceiling
    43x the rest that must stay out of the headline."""
    def res(disp, tp, m):
        return {"name": f"{disp} mp throughPut {tp}", "dispatcher": disp, "mailbox": "mp",
                "throughput_per_turn": tp, "throughput": measure([m, m * 1.02], "ops/s"),
                "frequency": lcores()}
    return {"schema": "lcactor-result/1", "app": "lca-reqresp", "date": "2026-12-01T02:00:00Z",
            "machine": {"cpu_model": "made up", "lcores": 2},
            "frequency": {"verdict": "stable", "lcores": []},
            "results": [res("inline", 1, 4.3e7), res("floor", 1, 1.2e6), res("floor", 4, 2.0e6),
                        res("affinity", 1, 0.9e6), res("shared", 1, 3.4e6),
                        res("affinity", 4, 1.8e6), res("affinity", 16, 1.9e6)]}


def synthetic_load():
    """lca-load's record (lca-load/1): no verdict, no lcores, a latency
    spectrum; lca-plot reads it as the README says it reads every app's."""
    pcts = {"50": 140.0, "75": 160.0, "90": 190.0, "99": 1400.0, "99.9": 4400.0,
            "99.99": 5800.0, "99.999": 6400.0, "100": 6400.0}
    spectrum = [[100.0 + 60 * i, 100 - 100 / 2 ** (i / 5), i * 100] for i in range(40)]
    spectrum.append([6400.0, 100.0, 16000])
    return {"schema": "lca-load/1", "app": "lca-load", "version": "0.1.0",
            "date": "2026-12-01T03:00:00Z",
            "machine": {"cpu_model": "made up", "cpus_online": 2},
            "conf": {"mode": "open", "rate": 2000, "connections": 100},
            "result": {"requests": 16000, "achieved_rps": 2000.0,
                       "latency": {"unit": "us", "percentiles": pcts}, "spectrum": spectrum},
            "ok": True}


def synthetic(d):
    os.makedirs(d, exist_ok=True)
    a, rr, ld = synthetic_a(), synthetic_reqresp(), synthetic_load()
    b = synthetic_b(a)
    paths = {}
    for name, rec in (("a", a), ("b", b), ("rr", rr), ("load", ld)):
        paths[name] = os.path.join(d, f"plot-{name}.json")
        with open(paths[name], "w") as f:
            json.dump(rec, f)
    failed = 0
    cli_svg = os.path.join(d, "plot-cli.svg")
    render([paths["rr"]], cli_svg)
    ok = os.path.getsize(cli_svg) > 0
    print(("ok - " if ok else "not ok - ") + "lca-plot writes the picture it is asked for")
    failed += not ok
    for what, ps, svg in (("verdict record", [paths["a"]], "plot-a.svg"),
                          ("A vs B overlay", [paths["a"], paths["b"]], "plot-ab.svg"),
                          ("reqresp record without verdict", [paths["rr"]], "plot-rr.svg"),
                          ("lca-load's record", [paths["load"]], "plot-load.svg")):
        problem = check(ps, os.path.join(d, svg))
        print(("not ok - " if problem else "ok - ") + what + (": " + problem if problem else ""))
        failed += problem is not None
    return 1 if failed else 0


def main():
    try:
        import matplotlib  # noqa: F401  (lca-plot's one dependency)
    except ImportError:
        print("# SKIP: python3-matplotlib is not installed")
        sys.exit(77)
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--synthetic":
        sys.exit(synthetic(args[1]))
    if len(args) not in (2, 3):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    problem = check(args[:-1], args[-1])
    if problem:
        sys.exit(problem)


if __name__ == "__main__":
    main()
