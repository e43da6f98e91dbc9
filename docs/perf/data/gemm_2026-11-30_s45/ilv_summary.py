#!/usr/bin/env python3
"""gemm_dev's decode log with --rounds -> per shape the stream read, the best instance and cuBLASLt, from the first pass
and from the interleaved rounds ([ilv] lines; a shape's stream read and instances re-timed there); per M the
geometric means of best / stream read both ways. Usage: ilv_summary.py LOG"""
import math, re, sys

cur = None
first, ilv, stream0, stream1 = {}, {}, {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"== M=(\d+) N=(\d+) K=(\d+)", line)
    if m:
        cur = tuple(map(int, m.groups())); first[cur] = {}; ilv[cur] = {}; continue
    if cur is None: continue
    m = re.match(r"\s+\[ilv\] (.+?)\s+([\d.]+) us", line)
    if m:
        name, us = m.group(1).strip(), float(m.group(2))
        if 'stream-read' in name: stream1[cur] = us
        else: ilv[cur][name] = us
        continue
    m = re.search(r"\[calib\] stream-read weights once\s+([\d.]+) us", line)
    if m: stream0[cur] = float(m.group(1)); continue
    m = re.match(r"\s+(\S+)\s+([\d.]+) us", line)
    if m and not line.strip().startswith('['): first[cur][m.group(1)] = float(m.group(2))
per_m = {}
print(f"{'shape':>18} {'stream':>7} {'best':>7} {'/str':>6} | {'stream':>7} {'best':>7} {'/str':>6}  best (first pass) / best (rounds)")
for k in sorted(stream0):
    own0 = {n: u for n, u in first[k].items() if 'blaslt' not in n}
    b0 = min(own0.items(), key=lambda x: x[1])
    merged = dict(own0); merged.update({n: u for n, u in ilv[k].items() if 'blaslt' not in n})
    b1 = min(merged.items(), key=lambda x: x[1])
    s1 = stream1.get(k, stream0[k])
    print(f"{str(k):>18} {stream0[k]:7.2f} {b0[1]:7.2f} {b0[1] / stream0[k]:6.3f} | {s1:7.2f} {b1[1]:7.2f} {b1[1] / s1:6.3f}  {b0[0]} / {b1[0]}")
    per_m.setdefault(k[0], []).append((b0[1] / stream0[k], b1[1] / s1))
for m, v in sorted(per_m.items()):
    g = lambda i: math.exp(sum(math.log(x[i]) for x in v) / len(v))
    print(f"M={m:3}: best/stream first pass {g(0):.3f} (max {max(x[0] for x in v):.3f}); interleaved rounds {g(1):.3f} (max {max(x[1] for x in v):.3f})")
