#!/usr/bin/env python3
"""Where a JVM's compiler time goes in a JFR recording: compilations (count, time, by tier and by
method), deoptimizations (by method, reason, action) and a per-second timeline of compile time and
of the execution samples whose top frame was interpreted.

Usage: python3 benchmarks/jfr-jit.py FILE.jfr [TOP_N] [THREAD_REGEX]
Record with a settings file that keeps every jdk.Compilation (threshold 0 ms) and jdk.Deoptimization,
e.g. the JDK's profile.jfc with those two changed. Needs the JDK's `jfr` tool on PATH.
THREAD_REGEX keeps only execution samples of threads whose Java name matches it (e.g. 'pgrepl-io').
"""
import collections
import json
import re
import subprocess
import sys
from datetime import datetime

f = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
threads = re.compile(sys.argv[3]) if len(sys.argv) > 3 else None


def events(name):
    out = subprocess.run(['jfr', 'print', '--json', '--events', name, f], capture_output=True, text=True).stdout
    return json.loads(out)['recording']['events']


def ts(v):
    return datetime.fromisoformat(v['startTime'].replace('Z', '+00:00')[:26] + '+00:00').timestamp()


def secs(d):
    # JFR prints durations as ISO-8601 ("PT0.012345S")
    m = re.match(r'PT(?:(\d+)M)?([\d.]+)S', d or 'PT0S')
    return (int(m.group(1) or 0) * 60 + float(m.group(2))) if m else 0.0


def mname(m):
    return m['type']['name'].split('/')[-1] + '.' + m['name']


comps = events('jdk.Compilation')
deopts = events('jdk.Deoptimization')
samples = events('jdk.ExecutionSample')
t0 = min(ts(e['values']) for e in comps) if comps else 0

by_tier = collections.defaultdict(lambda: [0, 0.0])
by_method = collections.defaultdict(lambda: [0, 0.0, 0])
timeline = collections.defaultdict(lambda: [0.0, 0, 0])  # compile s, samples, interpreted samples
for e in comps:
    v = e['values']
    d = secs(v.get('duration'))
    tier = 'C2' if v.get('compileLevel') == 4 else 'C1'
    by_tier[tier][0] += 1
    by_tier[tier][1] += d
    k = mname(v['method']) + ('' if tier == 'C2' else ' [C1]')
    by_method[k][0] += 1
    by_method[k][1] += d
    by_method[k][2] = max(by_method[k][2], v.get('inlinedBytes') or 0)
    timeline[int(ts(v) - t0)][0] += d
for e in samples:
    v = e['values']
    if threads and not threads.match((v.get('sampledThread') or {}).get('javaName') or ''):
        continue
    fr = (v.get('stackTrace') or {}).get('frames') or []
    if not fr:
        continue
    s = int(ts(v) - t0)
    timeline[s][1] += 1
    if fr[0].get('type') == 'Interpreted':
        timeline[s][2] += 1

print('compilations: %d, %.2f s' % (len(comps), sum(x[1] for x in by_tier.values())))
for t, (n, d) in sorted(by_tier.items()):
    print('  %s: %d, %.2f s' % (t, n, d))
print('top %d by compile time (count, seconds, largest inlined bytes):' % top)
for k, (n, d, b) in sorted(by_method.items(), key=lambda x: -x[1][1])[:top]:
    print('  %6.3f s  x%-2d %6d B  %s' % (d, n, b, k))
c = collections.Counter()
for e in deopts:
    v = e['values']
    c[(mname(v['method']), v['reason'], v['action'])] += 1
print('deoptimizations: %d' % len(deopts))
for (m, r, a), n in c.most_common(top):
    print('  %3d  %s  %s/%s' % (n, m, r, a))
print('second  compile-s  samples  interpreted')
for s in sorted(timeline):
    cs, n, i = timeline[s]
    print('%6d  %9.3f  %7d  %11d' % (s, cs, n, i))
