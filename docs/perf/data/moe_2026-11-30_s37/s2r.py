#!/usr/bin/env python3
"""Session 37: per token count, each stage-2 row's best passed pipeline (any stage 1 of its block_m) and its stage-2
part, over the tune profiles given; then each resident row (`_r<R>`) against the same row without it, per profile.
Usage: s2r.py profile.csv ..."""
import csv, os, re, sys
from collections import defaultdict

for p in sys.argv[1:]:
    best = defaultdict(dict)  # token -> stage-2 name -> (us, stage2 part, stage 1)
    for r in csv.DictReader(open(p)):
        if r['verdict'] != 'passed' or r['role'] != 'candidate' or '+' not in r['kernelName']:
            continue
        s1, s2 = (x.replace('cktune_moe_', '') for x in r['kernelName'].split('+'))
        t, us = int(r['token']), float(r['us'])
        part = dict(x.split('=') for x in r['parts'].split(';')).get('stage2') if r['parts'] else None
        if s2 not in best[t] or us < best[t][s2][0]:
            best[t][s2] = (us, float(part) if part else float('nan'), s1)
    print(f'== {os.path.basename(p)}')
    for t in sorted(best):
        print(f'  {t}:')
        for n, (us, part, s1) in sorted(best[t].items(), key=lambda kv: kv[1][0]):
            m = re.match(r'(.*)_r\d+$', n)
            ref = best[t].get(m.group(1)) if m else None
            rel = f'  total {us / ref[0]:.3f}, stage 2 {part / ref[1]:.3f} of {m.group(1)}' if ref else ''
            print(f'    {n:40s} {us:9.1f} (s2 {part:8.1f}; {s1}){rel}')
