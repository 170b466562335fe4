#!/usr/bin/env python3
"""Tables for RESULTS.md from a DecodePathsBenchmark run: JMH's JSON (-rf json) and its console log
(the [setup] lines give each input's measured messages and bytes). One JMH operation = one batch.

usage: decode-table.py decode.json decode.log
"""
import json
import re
import sys

runs = json.load(open(sys.argv[1]))
sizes = {}
for line in open(sys.argv[2]):
    m = re.search(r"\[setup\] input (\w+): (\d+) measured messages, (\d+) bytes", line)
    if m:
        sizes[m.group(1)] = (int(m.group(2)), int(m.group(3)))

score = {}
for r in runs:
    path = r["benchmark"].rsplit(".", 1)[1]
    inp = r["params"]["input"]
    pm = r["primaryMetric"]
    norm = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
    score[(inp, path)] = (pm["score"], pm["scoreError"], pm["rawData"][0], norm)

paths = ["scan", "views", "records", "debezium", "debezium_values"]
print("| input | msgs/batch | bytes/batch | path | batches/s (iterations) | M msgs/s | MB/s | B/batch | B/msg |")
print("|---|---|---|---|---|---|---|---|---|")
for inp in ["narrow", "wide", "update_old_key", "binary", "streamed"]:
    if inp not in sizes:
        continue
    n, b = sizes[inp]
    for p in paths:
        if (inp, p) not in score:
            print(f"| {inp} | {n} | {b} | {p} | n/a | | | | |")
            continue
        s, err, raw, norm = score[(inp, p)]
        its = ", ".join(f"{x:,.0f}" for x in raw)
        normtxt = "" if norm is None else f"{norm:.3f}"
        permsg = "" if norm is None else f"{norm / n:.4f}"
        print(f"| {inp} | {n} | {b} | {p} | {s:,.0f} ({its}) | {s * n / 1e6:.2f} | {s * b / 1e6:,.0f} | {normtxt} | {permsg} |")

print()
print("| input | views / scan (MB/s) | views / debezium | records / debezium | views / debezium_values | records / debezium_values |")
print("|---|---|---|---|---|---|")
for inp in ["narrow", "wide", "update_old_key", "binary", "streamed"]:
    if inp not in sizes:
        continue
    g = lambda p: score.get((inp, p), (None,))[0]
    f = lambda a, c: "n/a" if g(a) is None or g(c) is None else f"{g(a) / g(c):.2f}x"
    print(f"| {inp} | {f('views', 'scan')} | {f('views', 'debezium')} | {f('records', 'debezium')} | {f('views', 'debezium_values')} | {f('records', 'debezium_values')} |")
