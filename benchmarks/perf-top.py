#!/usr/bin/env python3
"""Per-thread CPU profile of one process from a system-wide `perf record -g` (see benchmarks/RESULTS.md,
"Profiling tools"). JFR sees only Java frames of Java threads; perf also sees the kernel (socket reads,
epoll, ACKs) and the JIT compiler threads, which is where a drain's CPU went.

Usage: perf script -i perf.data -F pid,tid,comm,ip,sym,dso > perf.txt
       python3 benchmarks/perf-top.py perf.txt PID [N] [THREAD]
Prints samples per thread (share in the kernel), then the top N self and inclusive frames, of all
threads or of THREAD (its name without the trailing number, e.g. pgrepl-io). Java frames are named
when the JVM ran with -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer.
"""
import sys, re, collections
f, pid = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 30
tf = sys.argv[4] if len(sys.argv) > 4 else None
hdr = re.compile(r"^(.*?)\s+(\d+)/(\d+)\s*$")
samples = []
cur = None
for line in open(f, errors="replace"):
    if not line.strip():
        if cur: samples.append(cur); cur = None
        continue
    if not line.startswith("\t") and not line.startswith(" "):
        m = hdr.match(line.rstrip("\n"))
        cur = (m.group(1).strip(), m.group(2), m.group(3), []) if m else None
        continue
    if cur is None: continue
    parts = line.strip().split(" ", 1)
    rest = parts[1] if len(parts) > 1 else "?"
    sym, _, dso = rest.rpartition(" (")
    cur[3].append((sym or rest, dso.rstrip(")")))
if cur: samples.append(cur)
mine = [s for s in samples if s[1] == pid]
def thread_name(c):
    return re.sub(r"[-\d]+$", "", c)
per = collections.Counter(); kern = collections.Counter()
for c, p, t, fr in mine:
    per[thread_name(c)] += 1
    if fr and "kernel" in fr[0][1]: kern[thread_name(c)] += 1
tot = len(mine)
print(f"pid {pid}: {tot} samples")
for k, v in per.most_common(): print(f"  {k:24s} {v:6d} {100*v/tot:5.1f}%  kernel {100*kern[k]/max(v,1):4.0f}%")
sel = [s for s in mine if tf is None or thread_name(s[0]) == tf]
st = len(sel)
selfc = collections.Counter(); inc = collections.Counter()
for c, p, t, fr in sel:
    if not fr: continue
    selfc[fr[0][0]] += 1
    for s in set(x[0] for x in fr): inc[s] += 1
print(f"== self ({tf or 'all threads'}, {st} samples)")
for k, v in selfc.most_common(n): print(f"  {100*v/st:5.1f}% {k[:150]}")
print("== inclusive")
for k, v in inc.most_common(n): print(f"  {100*v/st:5.1f}% {k[:150]}")
