#!/usr/bin/env bash
# Session 40, call 6 (NEXT.md item 1): every kernel's own duration while the tune times the 16384-token DeepSeek-V3
# pipeline, from an nsys trace (launches not serialised, unlike ncu), to set beside ncu's single launches (call 5:
# stage 1 1.08 ms, stage 2 0.88-0.90 ms) and the tune's part times (stage 1 + re-quantisation 1262-1303 us, stage 2
# 964-969 us). .carryz: cktune.xz (35257ba).
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/nsys40; mkdir -p $O
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}"
[ -n "$NSYS" ] || exit 2
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
t=16384
{ head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
K='cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$'
timeout 200 $NSYS profile -t cuda --force-overwrite true -o $O/r .carry/cktune tune -i $O/moe_$t.csv --family moe_2stages \
  -o $O/t.csv -o2 $O/p.csv --device gpu --no-progress --kernels "$K" > $O/nsys.log 2>&1
echo "nsys rc=$?"
$NSYS stats -r cuda_gpu_trace -f csv -o $O/trace $O/r.nsys-rep > $O/stats.log 2>&1
echo "stats rc=$?"; ls $O
python3 - $O <<'PY'
import csv, glob, sys, statistics as st, re
O = sys.argv[1]
fs = glob.glob(f"{O}/trace*.csv")
rows = list(csv.DictReader(open(fs[0])))
dk = [k for k in rows[0] if k.startswith("Duration")][0]; sk = [k for k in rows[0] if k.startswith("Start")][0]
seq = []
for r in rows:
    n = r.get("Name", "")
    if "memcpy" in n.lower() or "memset" in n.lower(): continue
    short = ("s1" if "wg_stage_kernel<WgCfg<128, 4, 0, 128, 1>, 1" in n else "s2" if "wg_stage_kernel" in n else
             "quant" if "quantize_a" in n else re.sub(r"[<(].*", "", n)[-30:])
    seq.append((float(r[sk]), float(r[dk]) / 1000.0, short))
seq.sort()
from collections import defaultdict
d = defaultdict(list)
for _, us, k in seq: d[k].append(us)
for k, v in sorted(d.items(), key=lambda kv: -sum(kv[1])):
    v2 = sorted(v)
    print(f"{k:32s} n={len(v):5d} median {st.median(v):9.2f} us  p10 {v2[len(v2)//10]:9.2f}  p90 {v2[9*len(v2)//10]:9.2f}  min {v2[0]:9.2f}")
# runs of the same kernel back to back (the tune's part timing): medians of the last 60 of the longest run
best = {}
i = 0
while i < len(seq):
    j = i
    while j + 1 < len(seq) and seq[j + 1][2] == seq[i][2]: j += 1
    if j - i + 1 > len(best.get(seq[i][2], [])): best[seq[i][2]] = [x[1] for x in seq[i:j + 1]]
    i = j + 1
for k, v in best.items():
    if len(v) >= 20: print(f"longest back-to-back run of {k}: {len(v)} launches, median of the last 60 {st.median(v[-60:]):.2f} us, first 5 {[round(x,1) for x in v[:5]]}")
PY
gzip -f $O/trace*.csv; rm -f $O/r.nsys-rep $O/r.sqlite
tar czf $OUT/nsys40.tgz -C /tmp nsys40
