#!/usr/bin/env python3
"""Top frames of a JFR recording, self and inclusive, by sample count (execution) or by weight (allocation).

Usage: python3 benchmarks/jfr-top.py FILE.jfr [jdk.ExecutionSample|jdk.ObjectAllocationSample] [SELF_N] [INCL_N] [THREAD_REGEX]
Needs the JDK's `jfr` tool on PATH. Recordings come from the drain harness's --jfr DIR. THREAD_REGEX keeps only
samples of threads whose Java name it matches from the start (e.g. 'task-thread-st0_pgrepl|pgrepl-io').
"""
import collections
import json
import re
import subprocess
import sys
f=sys.argv[1]; ev=sys.argv[2] if len(sys.argv)>2 else 'jdk.ExecutionSample'
out=subprocess.run(['jfr','print','--json','--events',ev,f],capture_output=True,text=True).stdout
d=json.loads(out)
evs=d['recording']['events']
selfc=collections.Counter(); incl=collections.Counter(); n=0
for e in evs:
    if len(sys.argv)>5:
        th=(e['values'].get('sampledThread') or e['values'].get('eventThread') or {}).get('javaName') or ''
        if not re.match(sys.argv[5],th): continue
    st=e['values'].get('stackTrace')
    if not st: continue
    fr=st['frames']
    if not fr: continue
    w=1
    if ev=='jdk.ObjectAllocationSample': w=e['values']['weight']
    n+=w
    def name(x): 
        m=x['method']; return m['type']['name'].split('.')[-1]+'.'+m['name']
    selfc[name(fr[0])]+=w
    seen=set()
    for x in fr:
        k=name(x)
        if k not in seen: incl[k]+=w; seen.add(k)
print(f, ev, 'samples/weight', n)
print('-- self'); 
for k,v in selfc.most_common(int(sys.argv[3]) if len(sys.argv)>3 else 15): print(f'{100*v/n:5.1f}% {k}')
print('-- inclusive')
for k,v in incl.most_common(int(sys.argv[4]) if len(sys.argv)>4 else 25): print(f'{100*v/n:5.1f}% {k}')
