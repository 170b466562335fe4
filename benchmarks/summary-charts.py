#!/usr/bin/env python3
"""Draws benchmarks/README.md's summary charts as SVG (standard library only).

Usage: python3 benchmarks/summary-charts.py benchmarks/charts/summary.tsv benchmarks/charts

Input: lines "@ID<TAB>title<TAB>unit" open a chart; lines "ID<TAB>label<TAB>value<TAB>annotation" are its
bars, in order; '#' lines are comments. One horizontal bar chart per ID is written as ID.svg. Bars of
pgrepl are drawn in one colour, the others in grey, so a reader sees at once which is which.
"""
import sys
from xml.sax.saxutils import escape


def load(path):
    charts, order = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if parts[0].startswith("@"):
                cid = parts[0][1:]
                charts[cid] = {"title": parts[1], "unit": parts[2], "bars": []}
                order.append(cid)
            else:
                charts[parts[0]]["bars"].append((parts[1], float(parts[2]), parts[3]))
    return [(c, charts[c]) for c in order]


def svg(chart):
    bars = chart["bars"]
    label_w, bar_w, row_h, top = 300, 380, 26, 44
    width = label_w + bar_w + 110
    height = top + row_h * len(bars) + 16
    vmax = max(v for _, v, _ in bars) or 1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="13">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="10" y="22" font-size="14" font-weight="bold">{escape(chart["title"])}</text>']
    for i, (label, value, note) in enumerate(bars):
        y = top + i * row_h
        w = max(1, bar_w * value / vmax)
        colour = "#2f6db5" if label.startswith("pgrepl") else "#9a9a9a"
        out.append(f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end">{escape(label)}</text>')
        out.append(f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row_h - 8}" fill="{colour}"/>')
        out.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 15}">{escape(note)} {escape(chart["unit"]) if not chart["unit"].startswith("rows") else ""}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    for cid, chart in load(src):
        with open(f"{outdir}/{cid}.svg", "w", encoding="utf-8") as f:
            f.write(svg(chart))
        print(f"{outdir}/{cid}.svg")


if __name__ == "__main__":
    main()
