#!/usr/bin/env bash
# Session 40, call 9: is the block-scale GEMM's prefill power-bound too, and does the cap treat our kernel and
# cuBLASLt alike (issue #13)? Four M >= 4096 shapes of the DeepSeek-V3 grid, the own wgmma prefill rows and cuBLASLt,
# tuned with only the first launches timed after a pause (--warmup 0 --iters 3 --settle-ms 0, twice) and with the
# defaults, nvidia-smi every 20 ms beside it. .carryz: cktune.xz (35257ba; the GEMM kernels as at 7238d8f).
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/gpw40; mkdir -p $O
printf 'M,N,K\n8192,7168,16384\n4096,7168,16384\n8192,24576,1536\n8192,4096,7168\n' > $O/g.csv
K='wgmmap2_m128_n128_k128_st4_w12_sk1|wgmmap2_m128_n256|wgmma_m128_n256|blaslt'
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,noheader -lms 20 > $O/smi.csv 2>&1 &
smi=$!
run() {
  sleep 3
  echo "$1 start $(date +%H:%M:%S.%N)" >> $O/marks.txt
  .carry/cktune tune -i $O/g.csv -o $O/t_$1.csv -o2 $O/p_$1.csv --device gpu --no-progress --kernels "$K" $2 > $O/$1.log 2>&1
  echo "$1 rc=$? end $(date +%H:%M:%S.%N)" >> $O/marks.txt
}
run few1 "--warmup 0 --iters 3 --settle-ms 0"
run few2 "--warmup 0 --iters 3 --settle-ms 0"
run default ""
kill $smi
python3 - $O <<'PY'
import csv, sys, math
O = sys.argv[1]
for run in ("few1", "few2", "default"):
    best = {}
    for r in csv.DictReader(open(f"{O}/p_{run}.csv")):
        if r.get("verdict") != "passed": continue
        key = (r["M"], r["N"], r["K"]); lib = "blaslt" if r["libtype"] == "blaslt" else "own"
        us = float(r["us"])
        if us > 0 and ((key, lib) not in best or us < best[(key, lib)][0]): best[(key, lib)] = (us, r["kernelName"])
    for key in sorted({k for k, _ in best}):
        o, b = best.get((key, "own")), best.get((key, "blaslt"))
        if o and b:
            m, n, k = map(int, key); pf = 2 * m * n * k / o[0] / 1e9
            print(f"{run:8s} {'x'.join(key):18s} own {o[0]:9.1f} us ({pf:.3f} PFLOP/s, {o[1]})  cuBLASLt {b[0]:9.1f}  own/cuBLASLt speed {b[0]/o[0]:.3f}")
PY
tar czf $OUT/gpw40.tgz -C /tmp gpw40
