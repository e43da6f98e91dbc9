#!/usr/bin/env bash
# Session 19: the swapped-operand decode kernel (wgmmas). GPU tests of the GEMM tables, then per-token tunes
# (every candidate) of a few M values for chosen model/TP pairs, with each shape's fastest candidates, the
# fastest wgmmas one and the fastest that is neither wgmmas nor cuBLASLt, and cuBLASLt's, from the profile.
# Env: SKIP_TESTS, GF (test filter), MS, PAIRS (as scripts/gpu_ptpc.sh), FAMILY (a8w8).
set -u
root=$PWD; bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/s19
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ -z "${SKIP_TESTS:-}" ]; then
  s=$(date +%s); timeout "${TT:-300}" .carry/cktune_gpu_tests --gtest_filter="${GF:-GpuPerToken.*:GpuBlockscale.*}" > /tmp/s19/gt.txt 2>&1
  echo "gtests rc=$? $(( $(date +%s) - s )) s"
  grep -E "PASSED|FAILED|OK \]|seed|instance runs" /tmp/s19/gt.txt | tail -20
  grep -E "Failure|error|Expected|Which is|never ran" /tmp/s19/gt.txt | head -30
fi
if [ -n "${MS:-}" ]; then
  OUT=/tmp/s19/ptpc MS="$MS" PAIRS="${PAIRS:-deepseek-r1@8 llama-4-scout@4}" TUNE_TIMEOUT=${TUNE_TIMEOUT:-400} \
    bash scripts/gpu_ptpc.sh "${FAMILY:-a8w8}" > /tmp/s19/ptpc.log 2>&1
  echo "ptpc rc=$?"
  grep -E "tune rc|first result|bench rc|geomean|^\| |check:" /tmp/s19/ptpc/ptpc_*summary.txt | head -40
  mkdir -p /tmp/s19/x && tar xzf /tmp/s19/ptpc/ptpc_*.tgz -C /tmp/s19/x
  python3 - /tmp/s19/x/*_profile*.csv <<'PY'
import csv, sys, math, collections
rows = list(csv.DictReader(open(sys.argv[1])))
by = collections.defaultdict(list)
for r in rows:
    if r['verdict'] == 'passed' and r['us']: by[(int(r['M']), int(r['N']), int(r['K']))].append(r)
gain = []
for k in sorted(by):
    rs = sorted(by[k], key=lambda r: float(r['us']))
    sw = [r for r in rs if 'wgmmas' in r['kernelName']]
    old = [r for r in rs if 'wgmmas' not in r['kernelName'] and 'blaslt' not in r['kernelName']]
    bl = [r for r in rs if 'blaslt' in r['kernelName']]
    f = lambda l: f"{float(l[0]['us']):7.2f} {l[0]['kernelName'][:34]:34s}" if l else " " * 42
    print(k, 'best', f(rs), '| swap', f(sw), '| old', f(old), '| blaslt', f(bl))
    if sw and old: gain.append(math.log(float(old[0]['us']) / min(float(sw[0]['us']), float(old[0]['us']))))
if gain: print(f"shapes {len(gain)}: own best with wgmmas vs without, geomean {math.exp(sum(gain)/len(gain)):.3f}x")
PY
fi
cd /tmp && tar czf "$OUT/s19.tgz" s19
