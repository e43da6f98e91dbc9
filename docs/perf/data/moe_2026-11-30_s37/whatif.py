#!/usr/bin/env python3
"""Session 37, call 3: per token count and build, stage 2's metrics (the second wg_stage_kernel launch ncu profiled),
from ncu's details pages <dir>/<build>_<tokens>.txt, side by side. Usage: whatif.py dir"""
import glob, os, re, sys

d = sys.argv[1]
def kernels(path):
    out, cur = [], None
    for line in open(path, errors='replace'):
        if 'wg_stage_kernel' in line and ('Context' in line or 'Device' in line):
            cur = {'_name': line.strip()[:60]}
            out.append(cur)
            continue
        m = re.match(r'^\s+([a-z][\w.:]+)\s+(\S+\s+)?([\d,]+(\.\d+)?)\s*$', line)
        if cur is not None and m:
            cur[m.group(1)] = float(m.group(3).replace(',', ''))
    return out
for t in (4096, 16384):
    cols = []
    for v in ('cktune', 'cktune_st', 'cktune_none'):
        p = os.path.join(d, f'{v}_{t}.txt')
        ks = kernels(p) if os.path.exists(p) else []
        cols.append((v, ks[1] if len(ks) > 1 else {}, ks[0] if ks else {}))
    names = []
    for _, k, _ in cols:
        names += [n for n in k if n not in names and not n.startswith('_')]
    print(f'== {t} tokens: stage 2 (stage 1 duration for reference)')
    print('metric'.ljust(70) + ''.join(v.rjust(16) for v, _, _ in cols))
    for n in names:
        print(n[:70].ljust(70) + ''.join((f'{k[n]:16.2f}' if n in k else ' ' * 16) for _, k, _ in cols))
    print('stage 1 gpu__time_duration.sum'.ljust(70) +
          ''.join((f"{k1.get('gpu__time_duration.sum', float('nan')):16.2f}") for _, _, k1 in cols))
