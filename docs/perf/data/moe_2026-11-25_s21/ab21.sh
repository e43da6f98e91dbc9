#!/usr/bin/env bash
# Session 21: A/B of the committed binary (gpu-in/cktune_base.xz) against this tree's, alternating, REPS
# times: a tune of the DeepSeek-V3 token counts TOKS restricted to KRE; per token count each pipeline's
# median per binary.
set -u
bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/ab; xz -dc ${BASE_XZ:-gpu-in/cktune_base.xz} > /tmp/ab/base; chmod +x /tmp/ab/base
f=configs/grids/moe_2stages_untuned_fmoe_${MODEL:-dsv3_tp8}.csv
{ head -1 $f; for t in ${TOKS:-8 16 64 512 1024 4096}; do grep "^$t," $f; done; } > /tmp/ab/u.csv
k=${KRE:-'s1wg_bm(64|128)_n128_st4\+cktune_moe_s2wg_bm(64|128)_n128_st4_(so_)?acc_g1'}
for r in $(seq ${REPS:-3}); do
  for b in new base; do
    exe=.carry/cktune; [ $b = base ] && exe=/tmp/ab/base
    timeout 300 $exe tune -i /tmp/ab/u.csv -o /tmp/ab/t_${b}_$r.csv --device gpu --profile-file /tmp/ab/p_${b}_$r.csv \
      --kernels "$k" > /tmp/ab/log_${b}_$r.txt 2>&1; echo "rep $r $b rc=$?"
  done
done
python3 - <<'PY'
import csv, glob, statistics as st, collections
d = collections.defaultdict(list)
for fn in glob.glob('/tmp/ab/p_*_*.csv'):
    b = fn.split('/')[-1].split('_')[1]
    for x in csv.DictReader(open(fn)):
        if x['verdict'] == 'passed': d[(int(x['token']), x['kernelName'], b)].append(float(x['us']))
keys = sorted(set((t, k) for t, k, b in d))
for t, k in keys:
    n, o = d.get((t, k, 'new'), []), d.get((t, k, 'base'), [])
    if n and o:
        print(f"{t:6d} new {st.median(n):9.2f} base {st.median(o):9.2f} ratio {st.median(o)/st.median(n):.3f}  n={[round(v,1) for v in n]} b={[round(v,1) for v in o]}  {k[-60:]}")
PY
cd /tmp && tar czf "$OUT/ab.tgz" ab/p_* ab/log_* ab/t_*
