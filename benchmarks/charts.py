#!/usr/bin/env python3
"""Draws every chart of benchmarks/README.md from the raw results under benchmarks/results/
(standard library only; matplotlib is not installed on the benchmark machines).

    python3 benchmarks/charts.py                      # all charts into benchmarks/charts/
    python3 benchmarks/charts.py --drain RUN.tsv OUT.svg  # one drain run's rows/s and CPU per row

Each chart names the data file it was drawn from and the RESULTS.md section that explains it. Where
a figure was measured in several rounds, the bar is the median and a whisker spans the lowest and
the highest round; the label gives that range, so no single round is picked out of it.
"""
import os
import statistics
import sys
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(ROOT, "results")
CHARTS = os.path.join(ROOT, "charts")

DRAIN = "drain/1m-pg18-2026-12-03-all-clients.tsv"
CONNECT = "connect/1m-pg17-2026-12-01-{}.tsv"
SNAPSHOT = "snapshot/2m-pg18-2026-12-01.tsv"
DECODE = "decode-paths/narrow-update-pg17-2026-12-01-quiet.tsv"

PGREPL = "#2f6db5"
OTHER = "#9a9a9a"


def rows(path):
    """The lines of a TSV file as dicts keyed by its header; '#' lines are comments."""
    with open(os.path.join(RESULTS, path), encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


def fmt(v, decimals):
    return f"{v:,.{decimals}f}"


def spread(values, decimals):
    """(median, low, high, label): the label is the range, or the one value when all agree."""
    lo, hi, med = min(values), max(values), statistics.median(values)
    label = fmt(lo, decimals) if fmt(lo, decimals) == fmt(hi, decimals) else f"{fmt(lo, decimals)}–{fmt(hi, decimals)}"
    return med, lo, hi, label


def bar_chart(title, unit, bars, source, note=None):
    """Horizontal bars with min-max whiskers. bars: (label, median, low, high, text, is_pgrepl)."""
    # Helvetica at 13 px averages under 7.2 px a character: size the columns to the longest texts.
    label_w = 20 + int(7.2 * max(len(b[0]) for b in bars))
    bar_w, row_h, top = 360, 26, 46
    width = max(label_w + bar_w + 20 + int(7.2 * max(len(b[4] + unit) for b in bars)),
                20 + int(6.2 * max(len(source), len(note or ""))), 20 + int(8.2 * len(title)))
    foot = 2 if note else 1
    height = top + row_h * len(bars) + 18 + 16 * foot
    vmax = max(max(b[1], b[3]) for b in bars) or 1
    scale = bar_w / vmax
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="13">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="10" y="22" font-size="14" font-weight="bold">{escape(title)}</text>']
    for i, (label, med, lo, hi, text, ours) in enumerate(bars):
        y = top + i * row_h
        w = max(1.0, med * scale)
        colour = PGREPL if ours else OTHER
        out.append(f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end">{escape(label)}</text>')
        out.append(f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row_h - 8}" fill="{colour}"/>')
        if hi > lo:
            x1, x2, ym = label_w + lo * scale, label_w + hi * scale, y + row_h / 2 - 1
            out.append(f'<line x1="{x1:.1f}" y1="{ym:.1f}" x2="{x2:.1f}" y2="{ym:.1f}" stroke="#222" stroke-width="1.5"/>')
            for x in (x1, x2):
                out.append(f'<line x1="{x:.1f}" y1="{ym - 5:.1f}" x2="{x:.1f}" y2="{ym + 5:.1f}" stroke="#222" stroke-width="1.5"/>')
        end = label_w + max(w, hi * scale)
        out.append(f'<text x="{end + 6:.1f}" y="{y + 15}">{escape(text)}{escape(unit)}</text>')
    y = top + row_h * len(bars) + 14
    if note:
        out.append(f'<text x="10" y="{y}" font-size="11" fill="#555">{escape(note)}</text>')
        y += 16
    out.append(f'<text x="10" y="{y}" font-size="11" fill="#555">{escape(source)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def drain_charts():
    """CPU per row relative to pgjdbc and rows/s relative to pg_recvlogical, each taken within a round."""
    runs = [r for r in rows(DRAIN) if r["phase"] == "drain"]
    by = {}
    for r in runs:
        by.setdefault(int(r["round"]), {})[r["client"]] = r
    cpu = lambda r: float(r["user_s"]) + float(r["sys_s"])
    clients = [("recvlogical", "pg_recvlogical (C, no decoding)", False),
               ("pgjdbc", "pgjdbc PGReplicationStream, raw bytes", False),
               ("handler", "pgrepl handler face (decoded)", True),
               ("cli", "pgrepl stream, typed JSON", True),
               ("flow", "pgrepl Flow face, request(1), delivery thread", True),
               ("flow_direct", "pgrepl Flow face, request(1), event loop", True),
               ("reactor_direct", "pgrepl Flow face via Reactor, event loop", True)]
    rounds = sorted(by)
    source = f"Data: benchmarks/results/{DRAIN}, {len(rounds)} rounds (RESULTS.md, \"Drain: every client\")"
    note = "Bar: median over the rounds; whisker: lowest to highest round. PostgreSQL 18.1, 1M inserts, 2026-12-03."
    cpu_bars, rate_bars = [], []
    for key, label, ours in clients:
        c = [cpu(by[n][key]) / cpu(by[n]["pgjdbc"]) for n in rounds]
        w = [float(by[n]["recvlogical"]["wall_s"]) / float(by[n][key]["wall_s"]) for n in rounds]
        med, lo, hi, text = spread(c, 2)
        cpu_bars.append((label, med, lo, hi, f"{text}× (median {fmt(med, 2)}×)" if hi > lo else f"{text}×", ours))
        med, lo, hi, text = spread(w, 2)
        rate_bars.append((label, med, lo, hi, f"{text}× (median {fmt(med, 2)}×)" if hi > lo else f"{text}×", ours))
    yield "drain-cpu.svg", bar_chart("Drain of 1M inserts: client CPU per row, relative to pgjdbc (lower is better)",
                                     "", cpu_bars, source, note)
    yield "drain-rate.svg", bar_chart("Drain of 1M inserts: rows/s, relative to pg_recvlogical (higher is better)",
                                      "", rate_bars, source, note)


CONNECT_RUNS = [("A-stock", "worker defaults, stock converters"),
                ("B-pgrepl-cached", "pgrepl on CachedSchemaJsonConverter"),
                ("D-cached-tuned", "pgrepl's converter, 256 KB batches for both"),
                ("E-both-cached-tuned", "both on the converter, 256 KB batches"),
                ("F-cached-tuned-lz4", "pgrepl's converter, batches + lz4 for both"),
                ("G-both-cached-tuned-lz4", "both on the converter, batches + lz4")]


def connect_charts():
    """Rows/s into Kafka for the like-for-like runs; connector CPU per row, pgrepl ÷ Debezium per round."""
    source = ("Data: benchmarks/results/connect/1m-pg17-2026-12-01-RUN.tsv, 2 rounds each "
              "(RESULTS.md, \"Kafka Connect against Debezium\")")
    note = "Bar: median of the 2 rounds; whisker: the two rounds. PostgreSQL 17.6, 1M rows, Debezium 3.6.1, 2026-12-01."
    rate_bars = []
    for run, label in [CONNECT_RUNS[0], CONNECT_RUNS[3], CONNECT_RUNS[5]]:
        stream = [r for r in rows(CONNECT.format(run)) if r["phase"] == "stream"]
        for conn, name, ours in [("debezium", "Debezium 3.6.1", False), ("pgrepl", "pgrepl", True)]:
            v = [float(r["rows_per_s"]) for r in stream if r["connector"] == conn]
            med, lo, hi, text = spread(v, 0)
            rate_bars.append((f"{name}, {label}", med, lo, hi, text, ours))
    yield "connect.svg", bar_chart("Kafka Connect, same worker and workload: rows/s into Kafka (higher is better)",
                                   " rows/s", rate_bars, source, note)
    cpu_bars = []
    for run, label in CONNECT_RUNS:
        stream = [r for r in rows(CONNECT.format(run)) if r["phase"] == "stream"]
        per_round = {}
        for r in stream:
            per_round.setdefault(r["round"], {})[r["connector"]] = float(r["cpu_connector_s"])
        v = [c["pgrepl"] / c["debezium"] for c in per_round.values()]
        med, lo, hi, text = spread(v, 2)
        cpu_bars.append((f"{run[0]}: {label}", med, lo, hi, text, True))
    yield "connect-cpu.svg", bar_chart(
        "Kafka Connect: pgrepl's connector CPU per row ÷ Debezium's, each round (lower is better)",
        "×", cpu_bars, source, note)


def snapshot_chart():
    """Wall time of the initial copy: the median of three runs, the whisker down to the best."""
    bars = []
    for r in rows(SNAPSHOT):
        best, med = float(r["best_wall_s"]), float(r["median_wall_s"])
        text = f"median {fmt(med, 2)}, best {fmt(best, 2)}"
        bars.append((r["variant"], med, best, med, text, r["variant"].startswith("pgrepl")))
    yield "snapshot.svg", bar_chart(
        "Initial copy of 2M rows (269 MB), PostgreSQL 18: wall seconds (lower is better)", " s", bars,
        f"Data: benchmarks/results/{SNAPSHOT} (RESULTS.md, \"Initial snapshot\")",
        "Bar: median of 3 runs; whisker: best run to median. 2026-12-01, a shared 2-core machine (load 21-24).")


def decode_chart():
    """Batches of 1,002 messages decoded per second, by path and input (one JMH trial each)."""
    names = {"scan": "memory scan (floor)", "views": "pgrepl views", "records": "pgrepl records",
             "debezium": "Debezium 3.6.1 decoder"}
    bars = []
    for r in rows(DECODE):
        v = float(r["after_batches_per_s"])
        label = f"{r['input']}: {names[r['path']]}"
        bars.append((label, v, v, v, fmt(v, 0), r["path"] in ("views", "records")))
    yield "decode.svg", bar_chart(
        "pgoutput decoding (JMH, no I/O): batches of 1,002 messages per second (higher is better)", "", bars,
        f"Data: benchmarks/results/{DECODE} (RESULTS.md, \"Decode paths (JMH)\")",
        "One JMH trial per bar, 5 iterations within 5% of each other. PostgreSQL 17.6 captures, 2026-12-01.")


def drain_run_chart(src, dst):
    """One drain run (DrainHarness --out): medians over rounds of rows/s and CPU per row, whiskers over rounds."""
    meta = {}
    with open(src, encoding="utf-8") as f:
        first = f.readline()
    if first.startswith("#"):
        parts = first[1:].strip().split("\t")
        meta = dict(zip(parts[0::2], parts[1::2]))
    with open(src, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    head = lines[0].split("\t")
    runs = [dict(zip(head, l.split("\t"))) for l in lines[1:]]
    by = {}
    for r in runs:
        if r["phase"] == "drain":
            by.setdefault(r["client"], []).append(r)
    rate, cpu = [], []
    for client, rs in by.items():
        n = int(rs[0]["rows"])
        med, lo, hi, text = spread([n / float(r["wall_s"]) / 1000 for r in rs], 1)
        rate.append((client, med, lo, hi, text, client not in ("pgjdbc", "recvlogical")))
        med, lo, hi, text = spread([(float(r["user_s"]) + float(r["sys_s"])) / n * 1e6 for r in rs], 2)
        cpu.append((client, med, lo, hi, text, client not in ("pgjdbc", "recvlogical")))
    label = f"{int(meta.get('rows', 0)):,} rows, PostgreSQL {meta.get('server', '?')}"
    with open(dst, "w", encoding="utf-8") as f:
        f.write(bar_chart(f"Drain of {label}: rows/s (higher is better)", " k rows/s", rate, f"Data: {src}"))
    base, ext = os.path.splitext(dst)
    with open(base + "-cpu" + ext, "w", encoding="utf-8") as f:
        f.write(bar_chart(f"Drain of {label}: CPU per row, user+sys (lower is better)", " µs/row", cpu, f"Data: {src}"))
    print(dst)
    print(base + "-cpu" + ext)


def main(argv):
    if argv[:1] == ["--drain"] and len(argv) == 3:
        drain_run_chart(argv[1], argv[2])
        return
    if argv:
        sys.exit(__doc__)
    for make in (drain_charts, connect_charts, snapshot_chart, decode_chart):
        for name, svg in make():
            path = os.path.join(CHARTS, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(svg)
            print(os.path.relpath(path))


if __name__ == "__main__":
    main(sys.argv[1:])
