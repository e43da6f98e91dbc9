#!/usr/bin/env python3
# Session 50 (copied for session 51): per-instance and per-shape comparison of gemm_dev logs, base runs (comma-separated) against new runs.
# Usage: abab.py base.1.log,base.2.log new.1.log,new.2.log [instance regex]; each side takes its runs' minimum.
import re,sys,math,collections
def parse(f):
    d={}; shape=None
    for l in open(f):
        m=re.match(r'== M=(\d+) N=(\d+) K=(\d+)',l)
        if m: shape=m.groups(); continue
        m=re.match(r'\s+(\w+)\s+([\d.]+) us\s+[\d.]+ TF/s',l)
        if m and shape and not m.group(1).startswith('['): d[(shape,m.group(1))]=float(m.group(2))
    return d
A=[parse(f) for f in sys.argv[1].split(',')]; B=[parse(f) for f in sys.argv[2].split(',')]
keys=set(A[0])
for x in A+B: keys&=set(x)
fam=collections.defaultdict(list); best=collections.defaultdict(lambda:[1e9,1e9,'',''])
for k in sorted(keys):
    a=min(x[k] for x in A); b=min(x[k] for x in B)
    f=re.sub(r'_m\d+.*','',k[1]); sk=re.search(r'sk(\d+)',k[1]).group(1)
    fam[(f,'split' if sk!='1' else 'nosplit')].append(b/a)
    s=k[0]
    if a<best[s][0]: best[s][0]=a; best[s][2]=k[1]
    if b<best[s][1]: best[s][1]=b; best[s][3]=k[1]
gm=lambda v: math.exp(sum(map(math.log,v))/len(v))
for f,v in sorted(fam.items()): print(f"{f[0]:10s} {f[1]:8s} n={len(v):4d} geomean new/old {gm(v):.3f} min {min(v):.3f} max {max(v):.3f}")
r=[]
for s,(a,b,na,nb) in sorted(best.items(),key=lambda x:(int(x[0][1]),int(x[0][2]),int(x[0][0]))):
    r.append(b/a); print(f"{'x'.join(s):18s} best old {a:7.2f} ({na}) new {b:7.2f} ({nb}) {b/a:.3f}")
print("best geomean",gm(r))
if len(sys.argv)>3:
    pat=sys.argv[3]
    for k in sorted(keys, key=lambda k:(k[1],int(k[0][1]),int(k[0][2]),int(k[0][0]))):
        if re.search(pat,k[1]):
            a=[x[k] for x in A]; b=[x[k] for x in B]
            print(f"{k[1]:40s} {'x'.join(k[0]):16s} old {' '.join('%6.2f'%v for v in a)} new {' '.join('%6.2f'%v for v in b)} {min(b)/min(a):.3f}")
