#!/usr/bin/env bash
# Session 36: the wgmma kernels with their warpgroup index made warp-uniform (`warp_uniform`, so that the operand
# addresses and descriptors can stay in uniform registers) against the committed kernels, in gemm_dev
# (scripts/gpu_dev_build.sh, both builds carried as .carryab/gemm_dev_{base,new}.xz): the new build verified on ragged
# shapes, then base and new in turn for $ROUNDS rounds on the grid's M = 4096 and 8192 shapes (the persistent `wgmmap2`
# rows, cuBLASLt in the first round), and on the decode shapes M = 8, 16 with the swapped-operand rows (`wgmmas`).
# Tables by session 35's gab35.py. Usage: [PREFILL_FILTER=substring] [PREFILL_MS="..."] [DECODE=0] [ROUNDS=n] gab36.sh
set -u
O=/tmp/gab; mkdir -p $O .carry
for v in base new; do xz -dc .carryab/gemm_dev_$v.xz > .carry/gemm_dev_$v; chmod +x .carry/gemm_dev_$v; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
timeout -s KILL 120 .carry/gemm_dev_new --iters 10 --filter wgmma --no-blaslt \
  --shapes "333,2112,512;1000,7168,2048;130,4096,7168;4100,7000,7168;2048,576,7168;777,24576,1536;5,2000,7040;13,4100,2944" \
  --csv $O/verify.csv > $O/verify.log 2>&1
echo "verify rc=$? timed: $(grep -cE ' us ' $O/verify.log) wrong: $(grep -ciE 'wrong|fail' $O/verify.log)"
run_ab() {  # label filter ms
  local l=$1 f=$2 shapes=""
  for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
    for m in $3; do shapes+="$m,$nk;"; done
  done
  mkdir -p $O/$l
  for r in $(seq 1 ${ROUNDS:-3}); do
    for v in base new; do
      s=$(date +%s)
      timeout -s KILL 150 .carry/gemm_dev_$v --iters ${ITERS:-30} --filter $f $([ $r = 1 ] || echo --no-blaslt) \
        --shapes "${shapes%;}" --csv $O/$l/${v}_$r.csv > $O/$l/${v}_$r.log 2>&1
      echo "$l $v round $r rc=$? $(( $(date +%s) - s )) s wrong: $(grep -ciE 'wrong' $O/$l/${v}_$r.log)"
    done
  done
  python3 docs/perf/data/gemm_2026-11-29_s35/gab35.py $O/$l | tee $O/$l/gab.txt
}
# (Call 3 ran the defaults. PREFILL_FILTER picks other rows, e.g. wgmmap2m for the multicast pairs; DECODE=0 skips
# the decode part.)
run_ab prefill "${PREFILL_FILTER:-wgmmap2_}" "${PREFILL_MS:-4096 8192}"
[ "${DECODE:-1}" = 1 ] && run_ab decode wgmmas "8 16"
(cd /tmp && tar czf "$OUT/gab.tgz" gab)
