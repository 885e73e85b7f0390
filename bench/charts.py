#!/usr/bin/env python3
"""Draws the benchmark tables kept in bench/results/ as SVG charts in docs/charts/.

    python3 bench/charts.py            regenerate every chart (paths from the repository root)
    python3 bench/charts.py --check    regenerate into a temporary directory and fail, naming the
                                       file, if a chart in docs/charts/ differs, is missing or is
                                       no longer drawn (CTest runs this: bench_charts)

Inputs, as the benches print them (a first line <!-- ... --> says where and when each was run):
  aclnn_bench.md            aclnn_bench's "Alone" and "Next to PyTorch" tables
  python_vs_torch-2.13.md   bench/python_vs_torch.py's table on torch 2.13

Charts: speed against PyTorch (PyTorch's time / ours, log scale) by size, forward and backward,
from both benches; and our call's share of the bandwidth limit by size and dtype (aclnn_bench
alone). The standard library only: it runs on Debian's /usr/bin/python3 and in any venv. The same
tables give byte-identical files.
"""

import argparse
import math
import os
import re
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
CHARTS = ROOT / "docs" / "charts"

# Okabe-Ito's palette (told apart with most colour-vision deficiencies), each with its own marker.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
MARKERS = ("circle", "square", "triangle", "diamond", "down", "cross", "circle")
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"

OPS = (  # name in aclnn_bench's cases, file stem, title
    ("MseLossBackward", "backward", "aclnnMseLossBackward"),
    ("MseLoss mean", "forward", "aclnnMseLoss (mean)"),
    ("L1LossBackward", "l1_backward", "aclnnL1LossBackward"),
)
LAYOUTS = ("same shape", "scalar dout", "target 1xC", "target Rx1", "self transposed", "out transposed")
BENCH_DTYPES = ("FLOAT", "FLOAT16", "BF16")
PY_DTYPES = ("float32", "float16", "bfloat16")
CASE = re.compile(r"^(.+?) ([0-9]+[KM]) (FLOAT16|FLOAT|BF16) (.+)$")


# ---- reading the tables ----------------------------------------------------------------------

def elements(size):
    """'16K' -> 16384, '1M' -> 1048576."""
    return int(size[:-1]) << (10 if size[-1] == "K" else 20)


def size_label(n):
    return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"


def ratio(text):
    """'1.50x' -> 1.5; '34%' -> 34.0; 'n/a' or '-' -> None."""
    match = re.match(r"^([0-9.]+)[x%]$", text.strip())
    return float(match.group(1)) if match else None


def provenance(lines):
    """The text of a leading <!-- ... --> line: where and when the table was measured."""
    for line in lines:
        match = re.match(r"^<!--\s*(.*?)\s*-->$", line.strip())
        if match:
            return match.group(1)
    return ""


def rows(lines):
    """The cells of every body row of the Markdown tables in lines (header and rule left out)."""
    out = []
    for line in lines:
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] in ("case", "threads"):
            continue
        out.append(cells)
    return out


def read_aclnn_bench(path):
    """{'alone': [...], 'next': [...]} of dicts (op, size, dtype, layout, threads, cells), and its
    provenance."""
    lines = path.read_text(encoding="utf-8").splitlines()
    tables = {"alone": [], "next": []}
    current = None
    for line in lines:
        if line.startswith("### Alone"):
            current = "alone"
        elif line.startswith("### Next to PyTorch"):
            current = "next"
        elif current and line.startswith("|"):
            for cells in rows([line]):
                match = CASE.match(cells[0])
                if not match:
                    continue
                op, size, dtype, layout = match.groups()
                tables[current].append({"op": op, "size": elements(size), "dtype": dtype, "layout": layout,
                                        "threads": int(cells[1]), "cells": cells})
    return tables, provenance(lines)


def read_python_vs_torch(path):
    """Rows of python_vs_torch.py's table as dicts, and the table's provenance and torch version."""
    lines = path.read_text(encoding="utf-8").splitlines()
    version = next((l.strip() for l in lines if l.startswith("aclnn_cpu ")), "")
    # The first table only (the MSE pair); a run of several losses prints one table each.
    first = next((i for i, l in enumerate(lines) if l.startswith("|")), len(lines))
    end = next((i for i in range(first, len(lines)) if not lines[i].startswith("|")), len(lines))
    out = []
    for cells in rows(lines[:end]):
        out.append({"threads": int(cells[0]), "dtype": cells[1], "size": elements(cells[2]),
                    "forward": ratio(cells[5]), "backward": ratio(cells[8])})
    return out, provenance(lines), version


# ---- drawing ---------------------------------------------------------------------------------

def esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def num(value):
    """Coordinates with one decimal, '-0.0' never written: the same input, the same bytes."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def marker(kind, x, y, colour, filled=True):
    fill = colour if filled else "#ffffff"
    style = f'fill="{fill}" stroke="{colour}" stroke-width="1.5"'
    r = 4.0
    if kind == "circle":
        return f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(r)}" {style}/>'
    if kind == "square":
        return f'<rect x="{num(x - r)}" y="{num(y - r)}" width="{num(2 * r)}" height="{num(2 * r)}" {style}/>'
    if kind == "cross":
        return (f'<path d="M{num(x - r)},{num(y - r)}L{num(x + r)},{num(y + r)}M{num(x - r)},{num(y + r)}'
                f'L{num(x + r)},{num(y - r)}" stroke="{colour}" stroke-width="2" fill="none"/>')
    points = {
        "triangle": ((0, -r - 1), (r + 1, r), (-r - 1, r)),
        "down": ((0, r + 1), (r + 1, -r), (-r - 1, -r)),
        "diamond": ((0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)),
    }[kind]
    text = " ".join(f"{num(x + dx)},{num(y + dy)}" for dx, dy in points)
    return f'<polygon points="{text}" {style}/>'


def ratio_label(value):
    return f"{value:g}x"


class Axis:
    """A y axis: log2 for ratios, linear for percentages."""

    def __init__(self, log, low, high, ticks, label):
        self.log, self.low, self.high, self.ticks, self.label = log, low, high, ticks, label

    def position(self, value, top, height):
        if self.log:
            t = (math.log2(value) - math.log2(self.low)) / (math.log2(self.high) - math.log2(self.low))
        else:
            t = (value - self.low) / (self.high - self.low)
        return top + height * (1.0 - t)


def ratio_axis(values, label):
    """A log axis over the powers of two around values, 1.0 always in range."""
    values = [v for v in values if v and v > 0] + [1.0]
    low = 2.0 ** math.floor(math.log2(min(values)))
    high = 2.0 ** math.ceil(math.log2(max(values)))
    if high <= low:
        high = low * 2
    ticks = []
    t = low
    while t <= high * 1.0001:
        ticks.append((t, ratio_label(t)))
        t *= 2
    return Axis(True, low, high, ticks, label)


def chart(title, subtitle, panels, axis, x_label, reference, reference_label, footnote, order, cap=None):
    """One SVG: panels side by side sharing the y axis and one legend.

    panels: [(panel title, [(series label, [(x, y)])])], the same series labels in each panel.
    order: every series label a chart of this kind may have, in order: a label keeps its colour
    and marker from chart to chart. reference: the y of the dashed reference line. cap: values above it are drawn at the top as
    open markers with their value written beside them.
    """
    panel_w, panel_h = 330, 270
    left, gap, top = 78, 46, 86
    present = {label for _, series in panels for label, _ in series}
    legend_labels = [label for label in order if label in present]
    legend_rows = (len(legend_labels) + 1 + 2) // 3  # the series and the reference line
    width = left + len(panels) * panel_w + (len(panels) - 1) * gap + 24
    notes = textwrap.wrap(footnote, width=int((width - left) / 5.9))
    height = top + panel_h + 58 + 22 * legend_rows + 8 + 14 * len(notes)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{left}" y="26" font-size="17" font-weight="bold" fill="#111111">{esc(title)}</text>',
        f'<text x="{left}" y="47" font-size="12.5" fill="#444444">{esc(subtitle)}</text>',
    ]
    all_x = sorted({x for _, series in panels for _, points in series for x, _ in points})
    lx, hx = math.log2(all_x[0]), math.log2(all_x[-1])
    for index, (panel_title, series) in enumerate(panels):
        px = left + index * (panel_w + gap)

        def xpos(x):
            return px + 14 + (panel_w - 28) * ((math.log2(x) - lx) / (hx - lx) if hx > lx else 0.5)

        def ypos(y):
            return axis.position(min(y, cap) if cap else y, top, panel_h)

        out.append(f'<text x="{num(px + panel_w / 2)}" y="{top - 10}" font-size="13" font-weight="bold" '
                   f'text-anchor="middle" fill="#222222">{esc(panel_title)}</text>')
        out.append(f'<rect x="{px}" y="{top}" width="{panel_w}" height="{panel_h}" fill="#fbfbfb" '
                   f'stroke="#999999" stroke-width="1"/>')
        for value, label in axis.ticks:
            y = axis.position(value, top, panel_h)
            out.append(f'<line x1="{px}" y1="{num(y)}" x2="{px + panel_w}" y2="{num(y)}" stroke="#e3e3e3" '
                       f'stroke-width="1"/>')
            if index == 0:
                out.append(f'<text x="{px - 6}" y="{num(y + 4)}" font-size="11.5" text-anchor="end" '
                           f'fill="#333333">{esc(label)}</text>')
        for x in all_x:
            out.append(f'<line x1="{num(xpos(x))}" y1="{top + panel_h}" x2="{num(xpos(x))}" '
                       f'y2="{top + panel_h + 5}" stroke="#666666" stroke-width="1"/>')
            out.append(f'<text x="{num(xpos(x))}" y="{top + panel_h + 19}" font-size="11.5" '
                       f'text-anchor="middle" fill="#333333">{esc(size_label(x))}</text>')
        ry = axis.position(reference, top, panel_h)
        out.append(f'<line x1="{px}" y1="{num(ry)}" x2="{px + panel_w}" y2="{num(ry)}" stroke="#333333" '
                   f'stroke-width="1.3" stroke-dasharray="6,4"/>')
        clipped_at = {}  # x -> labels of values above the cap written there so far
        for label, points in series:
            k = order.index(label)
            colour, kind = COLOURS[k % len(COLOURS)], MARKERS[k % len(MARKERS)]
            points = sorted(points)
            if len(points) > 1:
                path = " ".join(f"{num(xpos(x))},{num(ypos(y))}" for x, y in points)
                out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2" '
                           f'stroke-linejoin="round"/>')
            for x, y in points:
                clipped = cap is not None and y > cap
                out.append(marker(kind, xpos(x), ypos(y), colour, filled=not clipped))
                if clipped:
                    row = clipped_at.setdefault(x, 0)
                    clipped_at[x] = row + 1
                    out.append(f'<text x="{num(xpos(x) + 8)}" y="{num(ypos(y) + 15 + 13 * row)}" '
                               f'font-size="10.5" fill="{colour}">{y:g}%</text>')
    # Axis titles.
    mid_y = top + panel_h / 2
    out.append(f'<text x="18" y="{num(mid_y)}" font-size="12.5" text-anchor="middle" fill="#222222" '
               f'transform="rotate(-90 18 {num(mid_y)})">{esc(axis.label)}</text>')
    span = len(panels) * panel_w + (len(panels) - 1) * gap
    out.append(f'<text x="{num(left + span / 2)}" y="{top + panel_h + 40}" font-size="12.5" '
               f'text-anchor="middle" fill="#222222">{esc(x_label)}</text>')
    # Legend: three entries a row.
    ly = top + panel_h + 64
    for n, label in enumerate(legend_labels):
        k = order.index(label)
        colour, kind = COLOURS[k % len(COLOURS)], MARKERS[k % len(MARKERS)]
        x = left + (n % 3) * 230
        y = ly + (n // 3) * 22
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 28}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
        out.append(marker(kind, x + 14, y, colour))
        out.append(f'<text x="{x + 36}" y="{y + 4}" font-size="12" fill="#222222">{esc(label)}</text>')
    k = len(legend_labels)
    x, y = left + (k % 3) * 230, ly + (k // 3) * 22
    out.append(f'<line x1="{x}" y1="{y}" x2="{x + 28}" y2="{y}" stroke="#333333" stroke-width="1.3" '
               f'stroke-dasharray="6,4"/>')
    out.append(f'<text x="{x + 36}" y="{y + 4}" font-size="12" fill="#222222">{esc(reference_label)}</text>')
    for i, line in enumerate(notes):
        y = height - 10 - 14 * (len(notes) - 1 - i)
        out.append(f'<text x="{left}" y="{y}" font-size="10.5" fill="#666666">{esc(line)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---- the charts ------------------------------------------------------------------------------

def thread_panels(rows_, series_key, series_order, value, label=lambda s: s):
    """[(panel title, [(series label, points)])] for 1 and 2 threads."""
    panels = []
    for threads in sorted({r["threads"] for r in rows_}):
        series = []
        for s in series_order:
            points = [(r["size"], value(r)) for r in rows_
                      if r["threads"] == threads and r[series_key] == s and value(r) is not None]
            if points:
                series.append((label(s), points))
        panels.append((f"{threads} thread" + ("s" if threads > 1 else ""), series))
    return panels


def aclnn_bench_charts(results):
    path = results / "aclnn_bench.md"
    if not path.exists():
        return {}
    tables, where = read_aclnn_bench(path)
    note = f"bench/results/aclnn_bench.md: {where}"
    charts = {}
    for op, stem, title in OPS:
        beside = [r for r in tables["next"] if r["op"] == op]
        if beside:
            panels = thread_panels(beside, "layout", LAYOUTS, lambda r: ratio(r["cells"][4]))
            values = [y for _, series in panels for _, points in series for _, y in points]
            charts[f"aclnn_bench_{stem}_vs_pytorch.svg"] = chart(
                f"{title}: speed against PyTorch, next to it",
                "PyTorch's time / ours, FLOAT (PyTorch's only dtype here), by input layout; above 1x we are faster",
                panels, ratio_axis(values, "PyTorch time / our time (log scale)"),
                "elements (log scale)", 1.0, "1x: as fast as PyTorch", note, LAYOUTS)
        alone = [r for r in tables["alone"] if r["op"] == op and r["layout"] == "same shape"]
        if alone:
            panels = thread_panels(alone, "dtype", BENCH_DTYPES, lambda r: ratio(r["cells"][5]))
            charts[f"aclnn_bench_{stem}_bandwidth.svg"] = chart(
                f"{title}: share of the bandwidth limit, alone",
                "our bytes/s over a plain loop's over the same bytes, same-shape inputs, by dtype "
                "(open markers: above the scale)",
                panels, Axis(False, 0, 125, [(v, f"{v}%") for v in range(0, 126, 25)],
                             "our bytes/s / limit loop's (%)"),
                "elements (log scale)", 100.0, "100%: the limit loop's bytes/s", note, BENCH_DTYPES, cap=125)
    return charts


def python_charts(results):
    path = results / "python_vs_torch-2.13.md"
    if not path.exists():
        return {}
    table, where, version = read_python_vs_torch(path)
    note = f"bench/results/python_vs_torch-2.13.md: {where}; {version}"
    charts = {}
    for direction, name in (("backward", "mse_loss_backward"), ("forward", "mse_loss")):
        panels = thread_panels(table, "dtype", PY_DTYPES, lambda r, d=direction: r[d])
        values = [y for _, series in panels for _, points in series for _, y in points]
        charts[f"python_torch2.13_{direction}.svg"] = chart(
            f"Python: aclnn_cpu.{name} against torch 2.13's own, by dtype",
            "torch's time / ours (mean, CPU tensors, each side allocating its result)",
            panels, ratio_axis(values, "torch time / our time (log scale)"),
            "elements (log scale)", 1.0, "1x: as fast as torch", note, PY_DTYPES)
    return charts


def generate(results):
    charts = {}
    charts.update(aclnn_bench_charts(results))
    charts.update(python_charts(results))
    return charts


def write(charts, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in sorted(charts):
        with open(out_dir / name, "w", encoding="utf-8", newline="\n") as f:
            f.write(charts[name])


def check(charts, charts_dir):
    """0 when every chart in charts_dir is what the tables draw; else 1, each difference named."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        write(charts, Path(tmp))
        for name in sorted(charts):
            committed = charts_dir / name
            if not committed.exists():
                problems.append(f"{committed}: missing (bench/charts.py draws it)")
            elif committed.read_bytes() != (Path(tmp) / name).read_bytes():
                problems.append(f"{committed}: differs from what bench/results/ draws")
    for committed in sorted(charts_dir.glob("*.svg")) if charts_dir.exists() else []:
        if committed.name not in charts:
            problems.append(f"{committed}: not drawn from bench/results/ any more")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print("regenerate with: python3 bench/charts.py", file=sys.stderr)
        return 1
    print(f"{len(charts)} charts in {charts_dir} match bench/results/")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="the tables (default: bench/results)")
    parser.add_argument("--out", type=Path, default=CHARTS, help="the charts (default: docs/charts)")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    charts = generate(args.results)
    if not charts:
        print(f"no tables in {args.results}", file=sys.stderr)
        return 1
    if args.check:
        return check(charts, args.out)
    write(charts, args.out)
    for name in sorted(charts):
        path = (args.out / name).resolve()
        print(path.relative_to(ROOT) if ROOT in path.parents else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
