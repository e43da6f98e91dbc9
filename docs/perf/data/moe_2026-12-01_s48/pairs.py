#!/usr/bin/env python3
"""Session 48: per token count and round, each pipeline whose stage 2 ends in one of SUFFIXES (argv[2], comma-separated;
default _cw: stage 2 waiting for stage 1's tile count; or `from>to`: the twin has `to` where the variant has `from`)
against its twin without the suffix, both timed in the same tune
(profile_<name>_<round>.csv in <dir>), and the best pipeline of each tune."""
import csv, glob, gzip, os, re, sys
from collections import defaultdict

d = sys.argv[1]
suffixes = (sys.argv[2] if len(sys.argv) > 2 else '_cw').split(',')
us = defaultdict(dict)  # (token, round) -> pipeline -> us
for p in sorted(glob.glob(os.path.join(d, 'profile_*_*.csv*'))):
    rnd = re.findall(r'_(\d+)\.csv(?:\.gz)?$', p)[0]
    for row in csv.DictReader(gzip.open(p, 'rt') if p.endswith('.gz') else open(p)):
        if row['verdict'] == 'passed' and row['role'] == 'candidate':
            us[(int(row['token']), rnd)][row['kernelName'].replace('cktune_moe_', '')] = (float(row['us']), row['parts'])
print('| tokens | round | pipeline (stage 1 + stage 2) | variant | twin, us | variant, us | variant / twin |')
print('|---|---|---|---|---|---|---|')
for (t, rnd) in sorted(us):
    runs = us[(t, rnd)]
    for name, (u, _) in sorted(runs.items()):
        for sfx in suffixes:
            if '>' in sfx:  # a variant named inside the pipeline: its twin has `to` where it has `frm`
                frm, to = sfx.split('>')
                base = name.replace(frm, to) if frm in name else None
            else:
                base = name[:-len(sfx)] if name.endswith(sfx) else None
            if base and runs.get(base):
                twin = runs[base]
                print(f'| {t} | {rnd} | {base} | {sfx} | {twin[0]:.2f} | {u:.2f} | {u / twin[0]:.3f} |')
print()
for (t, rnd) in sorted(us):
    best = min(us[(t, rnd)].items(), key=lambda kv: kv[1][0])
    print(f'  {t} round {rnd}: best {best[1][0]:.2f} {best[0]} {best[1][1]}')
