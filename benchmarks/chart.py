#!/usr/bin/env python3
"""Draws the drain harness's results as an SVG (standard library only; matplotlib is not installed).

Usage: python3 benchmarks/chart.py benchmarks/results/drain-1m.tsv benchmarks/results/drain-1m.svg

Input: the TSV DrainHarness writes with --out (one line per client run). Two panels, medians over
rounds of the "drain" phase: rows/s (process start to exit) and CPU (user+sys) per row in
microseconds, one bar per client.
"""
import statistics
import sys
from xml.sax.saxutils import escape


def load(path):
    meta, runs = {}, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                parts = line[1:].strip().split("\t")
                meta.update(zip(parts[0::2], parts[1::2]))
            elif line.startswith("client\t") or not line:
                continue
            else:
                c, phase, rnd, rows, wall, user, sys_, rss = line.split("\t")
                runs.append(dict(client=c, phase=phase, rows=int(rows), wall=float(wall),
                                 cpu=float(user) + float(sys_), rss=int(rss)))
    return meta, runs


def medians(runs):
    by = {}
    for r in runs:
        if r["phase"] == "drain":
            by.setdefault(r["client"], []).append(r)
    out = []
    for c, rs in by.items():
        # As DrainReport prints them: rows over the median wall time, the median CPU over rows.
        rows = rs[0]["rows"]
        out.append((c, rows / statistics.median(r["wall"] for r in rs),
                    statistics.median(r["cpu"] for r in rs) / rows * 1e6))
    return out


def panel(x0, y0, width, title, unit, values, colour):
    bar_h, gap, label_w = 22, 8, 150
    top = max(v for _, v in values) or 1
    parts = [f'<text x="{x0}" y="{y0}" font-size="15" font-weight="bold">{escape(title)}</text>']
    for i, (name, v) in enumerate(values):
        y = y0 + 14 + i * (bar_h + gap)
        w = (width - label_w - 90) * v / top
        parts.append(f'<text x="{x0}" y="{y + 16}" font-size="13">{escape(name)}</text>')
        parts.append(f'<rect x="{x0 + label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{colour}"/>')
        parts.append(f'<text x="{x0 + label_w + w + 6:.1f}" y="{y + 16}" font-size="13">{v:,.2f} {escape(unit)}</text>')
    return parts, 14 + len(values) * (bar_h + gap)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    meta, runs = load(src)
    m = medians(runs)
    width = 760
    title = f"Drain of {int(meta.get('rows', 0)):,} rows, PostgreSQL {meta.get('server', '?')} (medians; loaded 2-core machine)"
    parts = [f'<text x="20" y="28" font-size="16">{escape(title)}</text>']
    p1, h1 = panel(20, 60, width, "throughput, rows/s (higher is better)", "k rows/s",
                   [(c, t / 1000) for c, t, _ in m], "#4a7ebb")
    p2, h2 = panel(20, 60 + h1 + 40, width, "CPU per row, user+sys (lower is better)", "µs/row",
                   [(c, u) for c, _, u in m], "#d0743c")
    height = 60 + h1 + 40 + h2 + 20
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>'] + parts + p1 + p2 + ["</svg>"]
    with open(dst, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
