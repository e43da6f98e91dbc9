#!/usr/bin/env bash
# Session 23: A/B of two gemm_dev builds on the prefill shapes. On the GPU machine, with .carryab carried:
# .carryab/gemm_dev_base.xz (before) and .carryab/gemm_dev.xz (after). Runs base, new, base, new
# (alternating, so drift shows as spread), each every instance matching $FILTER plus cuBLASLt, verified
# and timed; prints per shape the best time of each binary and the ratios.
set -u
mkdir -p .carry /tmp/ab
# BASE, NEW: the two builds (default .carryab/gemm_dev_base.xz and .carryab/gemm_dev.xz).
xz -dc ${BASE:-.carryab/gemm_dev_base.xz} > .carry/gemm_dev_base; xz -dc ${NEW:-.carryab/gemm_dev.xz} > .carry/gemm_dev_new
chmod +x .carry/gemm_dev_base .carry/gemm_dev_new
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
shapes=""
for nk in ${NKS:-2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048}; do
  for m in ${MS:-512 1024 4096 8192}; do shapes+="$m,$nk;"; done
done
shapes+="${EXTRA:-}"
for r in ${ROUNDS:-1 2}; do for b in base new; do
  s=$(date +%s)
  timeout -s KILL ${GEMM_DEV_S:-240} .carry/gemm_dev_$b --iters ${ITERS:-30} --filter "${FILTER:-2_m}" \
    --shapes "${shapes%;}" > /tmp/ab/$b.$r.log 2>&1
  echo "$b round $r rc=$? $(( $(date +%s) - s )) s; wrong: $(grep -ciE 'wrong|fail|error' /tmp/ab/$b.$r.log)"
done; done
if [ -n "${SASS:-}" ]; then
  for b in base new; do
    cuobjdump -sass -fun "${SASS}" .carry/gemm_dev_$b > /tmp/ab/sass_$b.txt 2>&1
    echo "$b sass: $(wc -l < /tmp/ab/sass_$b.txt) lines, WGMMA $(grep -c 'HGMMA' /tmp/ab/sass_$b.txt), WARPGROUP.DEPBAR $(grep -c 'WARPGROUP.DEPBAR' /tmp/ab/sass_$b.txt), WARPGROUP.ARRIVE $(grep -c 'WARPGROUP.ARRIVE' /tmp/ab/sass_$b.txt)"
  done
fi
python3 - /tmp/ab <<'PY'
import re, sys, glob, math, os
d = sys.argv[1]
res = {}  # (bin, round) -> shape -> (best own, name, blaslt)
for f in sorted(glob.glob(d + '/*.log')):
    b, r = os.path.basename(f).split('.')[:2]
    cur = None; t = res.setdefault((b, r), {})
    for line in open(f):
        m = re.match(r"== M=(\d+) N=(\d+) K=(\d+)", line)
        if m: cur = tuple(map(int, m.groups())); continue
        if cur is None: continue
        m = re.match(r"\s+(\S+)\s+([\d.]+) us", line)
        if m and not line.strip().startswith('['):
            name, us = m.group(1), float(m.group(2))
            own, nm, bl = t.get(cur, (1e9, '', 1e9))
            if 'blaslt' in name: bl = min(bl, us)
            elif us < own: own, nm = us, name
            t[cur] = (own, nm, bl)
keys = sorted(res)
shapes = sorted(set(k for v in res.values() for k in v))
print(f"{'shape':>20} " + ' '.join(f"{b+r:>9}" for b, r in keys) + "  new/base  own/cuBLASLt(new)  names")
rat = []; vs = []
for s in shapes:
    row = [res[k].get(s, (float('nan'), '', 0)) for k in keys]
    base = min(x[0] for (b, r), x in zip(keys, row) if b == 'base')
    new = min(x[0] for (b, r), x in zip(keys, row) if b == 'new')
    bl = min(x[2] for x in row)
    rat.append(base / new); vs.append(bl / new)
    names = ' / '.join(sorted(set(x[1] for x in row)))
    print(f"{str(s):>20} " + ' '.join(f"{x[0]:9.1f}" for x in row) + f"  {base/new:8.3f}  {bl/new:8.3f}  {names}")
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
print(f"geomean: new faster by {g(rat):.3f}x; new own / cuBLASLt {g(vs):.3f}x over {len(rat)} shapes")
PY
(cd /tmp && tar czf "${OUT:-/tmp}/ab.tgz" ab)
