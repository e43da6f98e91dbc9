#!/usr/bin/env bash
# Session 22: the register-fed decode kernel (`mmad`). On the GPU machine, with .carryz carried (cktune,
# cktune_gpu_tests and gemm_dev xz-compressed):
#   1. the GEMM GPU tests (every instance of every fp8/int8 table on ragged shapes), unless SKIP_TESTS=1;
#   2. gemm_dev on the grid's six (N,K) at M = $MS: every block-scale instance and cuBLASLt, verified, against
#      one streaming read of the weights; the best instance, the best `mmad`, the best of the rest.
set -u
# GEMM_DEV_ONLY=1: only .carryab/gemm_dev.xz was carried (kernel iterations; no tests).
if [ -n "${GEMM_DEV_ONLY:-}" ]; then mkdir -p .carry; xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev; chmod +x .carry/gemm_dev; SKIP_TESTS=1
else bash scripts/unpack_carry.sh > /dev/null; fi
O=/tmp/s22; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -z "${SKIP_TESTS:-}" ]; then
  s=$(date +%s)
  timeout -s KILL 300 .carry/cktune_gpu_tests --gtest_filter="${GF:-GpuBlockscale.*:*GpuPerToken*}" > $O/gpu_tests.log 2>&1
  echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed" $O/gpu_tests.log | head -30
fi
if [ -z "${SKIP_DEV:-}" ]; then
shapes=""
for nk in ${NKS:-2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048}; do
  for m in ${MS:-1 2 4 8 16}; do shapes+="$m,$nk;"; done
done
s=$(date +%s)
timeout -s KILL ${GEMM_DEV_S:-300} .carry/gemm_dev --iters ${ITERS:-60} --shapes "${shapes%;}" --csv $O/decode.csv > $O/decode.log 2>&1
echo "gemm_dev rc=$? $(( $(date +%s) - s )) s; wrong: $(grep -ciE 'wrong|fail' $O/decode.log)"
python3 - $O/decode.log <<'PY'
import re, sys, math
cur = None; stream = {}; best = {}; bd = {}; bo = {}; bl = {}
for line in open(sys.argv[1]):
    m = re.match(r"== M=(\d+) N=(\d+) K=(\d+)", line)
    if m: cur = tuple(map(int, m.groups())); continue
    if cur is None: continue
    m = re.search(r"stream-read weights once\s+([\d.]+) us", line)
    if m: stream[cur] = float(m.group(1)); continue
    m = re.match(r"\s+(\S+)\s+([\d.]+) us", line)
    if m and not line.strip().startswith('['):
        name, us = m.group(1), float(m.group(2))
        if 'blaslt' in name: bl[cur] = min(bl.get(cur, 1e9), us); continue
        for d, ok in ((best, True), (bd, name.startswith('mmad')), (bo, not name.startswith('mmad'))):
            if ok and us < d.get(cur, (1e9, ''))[0]: d[cur] = (us, name)
print(f"{'shape':>20} {'stream':>7} {'best':>7} {'/stream':>7} {'mmad':>7} {'others':>7} {'cuBLASLt':>8}  best mmad / best other")
per_m = {}
for k in sorted(stream):
    b, d, o = best.get(k, (0, '?')), bd.get(k, (0, '-')), bo.get(k, (0, '-'))
    print(f"{str(k):>20} {stream[k]:7.2f} {b[0]:7.2f} {b[0] / stream[k]:7.3f} {d[0]:7.2f} {o[0]:7.2f} {bl.get(k, 0):8.2f}  {d[1]} / {o[1]}")
    per_m.setdefault(k[0], []).append((b[0] / stream[k], o[0] / stream[k], o[0] / b[0], bl.get(k, 0) / b[0]))
for m, v in sorted(per_m.items()):
    g = lambda i: math.exp(sum(math.log(x[i]) for x in v) / len(v))
    print(f"M={m:3}: best/stream {g(0):.3f} (max {max(x[0] for x in v):.3f}); without mmad {g(1):.3f}; gain {g(2):.3f}x; vs cuBLASLt {g(3):.3f}x")
PY
(cd /tmp && tar czf "$OUT/s22.tgz" s22)
fi
# AGREE=1: the 48-shape grid's tune (time, first result) and tune/bench agreement with cuBLASLt in the same
# run (scripts/gpu_agreement.sh grid, its own GPU-test prelude skipped: the tests ran above).
if [ -n "${AGREE:-}" ]; then
  SKIP_PRELUDE=1 OUT=$O/agree timeout 330 bash scripts/gpu_agreement.sh grid > $O/agree.log 2>&1
  echo "agreement rc=$?"; grep -vE "^\s*$" $O/agree/summary.txt | tail -25
  mkdir -p $O/ag && tar xzf $O/agree/agreement.tgz -C $O/ag
  python3 -c "import json; j = json.load(open('$O/ag/tune_grid.json')); print('grid tune', j['seconds'], 's, first result', j['first_timing_s'], 's,', j['candidate_results'], 'candidate results')"
  (cd /tmp && tar czf "$OUT/s22.tgz" s22)
fi
