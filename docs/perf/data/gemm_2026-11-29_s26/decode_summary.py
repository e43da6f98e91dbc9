#!/usr/bin/env python3
"""gemm_dev's decode log -> per shape: one streaming read of the weights, the best instance, the best instance whose
name starts with PREFIX, the best other one, cuBLASLt; per M the geometric means. Usage: decode_summary.py LOG PREFIX"""
import math, re, sys

log, prefix = sys.argv[1], sys.argv[2]
cur = None; stream = {}; best = {}; bp = {}; bo = {}; bl = {}
for line in open(log):
    m = re.match(r"== M=(\d+) N=(\d+) K=(\d+)", line)
    if m: cur = tuple(map(int, m.groups())); continue
    if cur is None: continue
    m = re.search(r"stream-read weights once\s+([\d.]+) us", line)
    if m: stream[cur] = float(m.group(1)); continue
    m = re.match(r"\s+(\S+)\s+([\d.]+) us", line)
    if m and not line.strip().startswith('['):
        name, us = m.group(1), float(m.group(2))
        if 'blaslt' in name: bl[cur] = min(bl.get(cur, 1e9), us); continue
        for d, ok in ((best, True), (bp, name.startswith(prefix)), (bo, not name.startswith(prefix))):
            if ok and us < d.get(cur, (1e9, ''))[0]: d[cur] = (us, name)
print(f"{'shape':>20} {'stream':>7} {'best':>7} {'/stream':>7} {prefix:>7} {'others':>7} {'cuBLASLt':>8}  best {prefix} / best other")
per_m = {}
for k in sorted(stream):
    b, d, o = best.get(k, (0, '?')), bp.get(k, (0, '-')), bo.get(k, (0, '-'))
    print(f"{str(k):>20} {stream[k]:7.2f} {b[0]:7.2f} {b[0] / stream[k]:7.3f} {d[0]:7.2f} {o[0]:7.2f} {bl.get(k, 0):8.2f}  {d[1]} / {o[1]}")
    if b[0] > 0 and o[0] > 0:  # both kinds ran (a filtered run may have none of the others)
        per_m.setdefault(k[0], []).append((b[0] / stream[k], o[0] / stream[k], o[0] / b[0], bl.get(k, 0) / b[0]))
for m, v in sorted(per_m.items()):
    g = lambda i: math.exp(sum(math.log(x[i]) for x in v) / len(v))
    print(f"M={m:3}: best/stream {g(0):.3f} (max {max(x[0] for x in v):.3f}); without {prefix} {g(1):.3f}; "
          f"gain {g(2):.3f}x; vs cuBLASLt {g(3):.3f}x")
