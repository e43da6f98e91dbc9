# From a tune profile (-o2 CSV): per shape with M >= 256, the best row whose name starts with PREFIX against the best
# other own row, and the shapes where a PREFIX row is the best own instance.
# Usage: python3 rows_rank.py profile.csv PREFIX   (PREFIX e.g. wgmmap2m for the multicast rows, wgmmap2t_ for the
# split tail)
import csv, sys, math
rows = list(csv.DictReader(open(sys.argv[1])))
prefix = sys.argv[2]
best = {}
for r in rows:
    if r['role'] != 'candidate' or r['verdict'] != 'passed' or not r['us'] or r['kernelName'].startswith('blaslt'):
        continue
    k = (int(r['M']), int(r['N']), int(r['K']))
    if k[0] < 256: continue
    kind = 'these' if r['kernelName'].startswith(prefix) else 'own'
    us = float(r['us'])
    d = best.setdefault(k, {})
    if us < d.get(kind, (1e18, ''))[0]: d[kind] = (us, r['kernelName'])
rat = []; wins = []
for k in sorted(best):
    d = best[k]
    if 'these' not in d or 'own' not in d: continue
    rat.append(d['these'][0] / d['own'][0])
    if d['these'][0] < d['own'][0]: wins.append((k, d['these'], d['own']))
g = math.exp(sum(map(math.log, rat)) / len(rat)) if rat else float('nan')
print(f"{prefix}* best / other own best: geomean {g:.3f} over {len(rat)} shapes (min {min(rat):.3f}, max {max(rat):.3f}); "
      f"the best own instance on {len(wins)}")
for k, m, o in wins: print(f"  {k}: {m[1]} {m[0]:.1f} us against {o[1]} {o[0]:.1f} us")
