# From a tune profile (-o2 CSV): per shape with M >= 256, the best multicast row (wgmmap2mw / wgmmap2mx) against the
# best own row without multicast, and the shapes where a multicast row is the best own instance.
# Usage: python3 mc_rank.py profile.csv
import csv, sys, math
rows = list(csv.DictReader(open(sys.argv[1])))
best = {}
for r in rows:
    if r['role'] != 'candidate' or r['verdict'] != 'passed' or not r['us'] or r['kernelName'].startswith('blaslt'):
        continue
    k = (int(r['M']), int(r['N']), int(r['K']))
    if k[0] < 256: continue
    kind = 'mc' if r['kernelName'].startswith('wgmmap2m') else 'own'
    us = float(r['us'])
    d = best.setdefault(k, {})
    if us < d.get(kind, (1e18, ''))[0]: d[kind] = (us, r['kernelName'])
rat = []; wins = []
for k in sorted(best):
    d = best[k]
    if 'mc' not in d or 'own' not in d: continue
    rat.append(d['mc'][0] / d['own'][0])
    if d['mc'][0] < d['own'][0]: wins.append((k, d['mc'], d['own']))
g = math.exp(sum(map(math.log, rat)) / len(rat)) if rat else float('nan')
print(f"multicast best / other own best: geomean {g:.3f} over {len(rat)} shapes (min {min(rat):.3f}, max {max(rat):.3f}); "
      f"multicast the best own instance on {len(wins)}")
for k, m, o in wins: print(f"  {k}: {m[1]} {m[0]:.1f} us against {o[1]} {o[0]:.1f} us")
