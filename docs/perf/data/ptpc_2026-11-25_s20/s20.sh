#!/usr/bin/env bash
# Session 20: per-token N tiles of 112 and 144 (wave fill at medium M). GPU tests of the GEMM tables, then a
# per-token tune + bench (scripts/gpu_ptpc.sh) of the chosen pairs and M values; from the profile, each shape's
# fastest candidate, fastest new-tile (n112/n144) one, fastest other own one, and cuBLASLt.
# Env: SKIP_TESTS, GF (test filter), MS, PAIRS (as scripts/gpu_ptpc.sh), FAMILY (a8w8), NEW (name pattern).
set -u
bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/s20
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ -z "${SKIP_TESTS:-}" ]; then
  s=$(date +%s); timeout "${TT:-300}" .carry/cktune_gpu_tests --gtest_filter="${GF:-*GpuPerToken*:GpuBlockscale.*}" > /tmp/s20/gt.txt 2>&1
  echo "gtests rc=$? $(( $(date +%s) - s )) s"
  grep -E "PASSED|FAILED|OK \]|seed|instance runs" /tmp/s20/gt.txt | tail -20
  grep -E "Failure|error|Expected|Which is|never ran" /tmp/s20/gt.txt | head -30
fi
if [ -n "${MS:-}" ]; then
  OUT=/tmp/s20/ptpc MS="$MS" PAIRS="${PAIRS:-deepseek-r1@8}" TUNE_TIMEOUT=${TUNE_TIMEOUT:-400} \
    bash scripts/gpu_ptpc.sh "${FAMILY:-a8w8}" > /tmp/s20/ptpc.log 2>&1
  echo "ptpc rc=$?"
  grep -E "tune rc|first result|bench rc|geomean|^\| |check:|^  [a-z].*  [0-9] " /tmp/s20/ptpc/ptpc_*summary.txt | head -40
  mkdir -p /tmp/s20/x && tar xzf /tmp/s20/ptpc/ptpc_*.tgz -C /tmp/s20/x
  NEW="${NEW:-_n112_|_n144_}" python3 - /tmp/s20/x/*_profile*.csv <<'PY'
import csv, sys, math, collections, os, re
new = re.compile(os.environ['NEW'])
rows = list(csv.DictReader(open(sys.argv[1])))
by = collections.defaultdict(list)
for r in rows:
    if r['verdict'] == 'passed' and r['us']: by[(int(r['M']), int(r['N']), int(r['K']))].append(r)
gain = []
for k in sorted(by):
    rs = sorted(by[k], key=lambda r: float(r['us']))
    nw = [r for r in rs if new.search(r['kernelName'])]
    old = [r for r in rs if not new.search(r['kernelName']) and 'blaslt' not in r['kernelName']]
    bl = [r for r in rs if 'blaslt' in r['kernelName']]
    f = lambda l: f"{float(l[0]['us']):7.2f} {l[0]['kernelName'][:34]:34s}" if l else " " * 42
    print(k, 'best', f(rs), '| new', f(nw), '| old', f(old), '| blaslt', f(bl))
    if old: gain.append(math.log(min(float(old[0]['us']), float(bl[0]['us']) if bl else 1e9) / float(rs[0]['us'])))
if gain: print(f"shapes {len(gain)}: best with the new rows vs best without them (cuBLASLt included), geomean {math.exp(sum(gain)/len(gain)):.4f}x, sum of logs {sum(gain):.2f}")
PY
fi
cd /tmp && tar czf "$OUT/s20.tgz" s20
