#!/usr/bin/env bash
# Session 23, on the GPU machine with .carryz carried (cktune, cktune_gpu_tests, gemm_dev xz-compressed):
#   1. the GEMM and MoE GPU tests (GF overrides the filter), unless SKIP_TESTS=1;
#   2. gemm_dev on the grid's six (N, K) at M = $MS (default 512 1024 4096 8192): the instances matching $FILTER
#      (default "2_m": the grid and persistent kernels with two partial tiles taking turns) and cuBLASLt, each
#      verified; the best own instance per shape against cuBLASLt; unless SKIP_DEV=1;
#   3. MOE=1: scripts/gpu_moe.sh dsv3_tp8 (tune, merge --check, bench against the default);
#   4. AGREE=1: the 48-shape GEMM grid's tune and tune/bench agreement (scripts/gpu_agreement.sh grid; AGREE_SET=both
#      adds the 40-shape ragged set).
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/s23; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -z "${SKIP_TESTS:-}" ]; then
  s=$(date +%s)
  timeout -s KILL 300 .carry/cktune_gpu_tests --gtest_filter="${GF:-GpuBlockscale.*:*GpuPerToken*:GpuMoe*}" > $O/gpu_tests.log 2>&1
  echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed" $O/gpu_tests.log | head -30
fi
if [ -z "${SKIP_DEV:-}" ]; then
  shapes=""
  for nk in ${NKS:-2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048}; do
    for m in ${MS:-512 1024 4096 8192}; do shapes+="$m,$nk;"; done
  done
  s=$(date +%s)
  timeout -s KILL ${GEMM_DEV_S:-240} .carry/gemm_dev --iters ${ITERS:-30} --filter "${FILTER:-2_m}" --shapes "${shapes%;}" \
    > $O/dev.log 2>&1
  echo "gemm_dev rc=$? $(( $(date +%s) - s )) s; wrong: $(grep -ciE 'wrong|fail' $O/dev.log)"
  python3 - $O/dev.log <<'PY'
import re, sys, math
cur = None; t = {}
for line in open(sys.argv[1]):
    m = re.match(r"== M=(\d+) N=(\d+) K=(\d+)", line)
    if m: cur = tuple(map(int, m.groups())); continue
    m = re.match(r"\s+(\S+)\s+([\d.]+) us", line)
    if cur and m and not line.strip().startswith('['):
        name, us = m.group(1), float(m.group(2)); r = t.setdefault(cur, {})
        r[name] = us
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
v = []
for k in sorted(t):
    r = t[k]; bl = min(u for n, u in r.items() if 'blaslt' in n)
    own = sorted((u, n) for n, u in r.items() if 'blaslt' not in n)
    v.append(bl / own[0][0])
    print(f"{str(k):>20} cuBLASLt {bl:8.1f}  " + '  '.join(f"{n} {u:.1f}" for u, n in own[:3]) + f"  own/cuBLASLt {bl/own[0][0]:.3f}")
print(f"geomean own best / cuBLASLt {g(v):.3f} over {len(v)} shapes")
PY
fi
if [ -n "${MOE:-}" ]; then
  SKIP_TESTS=1 OUT=$O/moe timeout 420 bash scripts/gpu_moe.sh dsv3_tp8 > $O/moe.log 2>&1
  echo "moe rc=$?"; tail -40 $O/moe/moe_summary.txt
fi
if [ -n "${AGREE:-}" ]; then
  SKIP_PRELUDE=1 OUT=$O/agree timeout 500 bash scripts/gpu_agreement.sh ${AGREE_SET:-grid} > $O/agree.log 2>&1
  echo "agreement rc=$?"; grep -vE "^\s*$" $O/agree/summary.txt | head -8
fi
(cd /tmp && tar czf "$OUT/s23.tgz" s23)
