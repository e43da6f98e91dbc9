#!/usr/bin/env bash
# Session 19, block scales: the dev harness on the grid's decode shapes (M <= 128: every instance and
# cuBLASLt, verified, against one streaming read of the weights), then the 48-shape grid's tune time with
# the new candidates and tune/bench agreement on the grid (scripts/gpu_agreement.sh grid, its GPU tests left
# out: they ran in call 2).
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p /tmp/s19b
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 1 16 32 64 128; do shapes+="$m,$nk;"; done
done
s=$(date +%s)
timeout -s KILL 240 .carry/gemm_dev --iters 60 --shapes "${shapes%;}" --csv /tmp/s19b/decode.csv > /tmp/s19b/decode.log 2>&1
echo "gemm_dev rc=$? $(( $(date +%s) - s )) s; wrong: $(grep -ciE 'wrong|fail' /tmp/s19b/decode.log)"
python3 - /tmp/s19b/decode.log <<'PY'
import re, sys
cur = None; stream = {}; best = {}; bestsw = {}; bl = {}
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
        if us < best.get(cur, (1e9, ''))[0]: best[cur] = (us, name)
        if 'wgmmas' in name and us < bestsw.get(cur, (1e9, ''))[0]: bestsw[cur] = (us, name)
print(f"{'shape':>20} {'stream':>7} {'best':>7} {'best/stream':>11} {'cuBLASLt':>8}  best instance / best wgmmas")
for k in sorted(stream):
    b = best.get(k, (0, '?'))
    sw = bestsw.get(k, (0, '-'))
    print(f"{str(k):>20} {stream[k]:7.2f} {b[0]:7.2f} {b[0] / stream[k]:11.3f} {bl.get(k, 0):8.2f}  {b[1]} / {sw[1]} {sw[0]:.2f}")
PY
SKIP_PRELUDE=1 OUT=/tmp/s19b/agree timeout 280 bash scripts/gpu_agreement.sh grid > /tmp/s19b/agree.log 2>&1
echo "agreement rc=$?"; grep -vE "^\s*$" /tmp/s19b/agree/summary.txt | tail -25
mkdir -p /tmp/s19b/ag && tar xzf /tmp/s19b/agree/agreement.tgz -C /tmp/s19b/ag
python3 -c "import json; j = json.load(open('/tmp/s19b/ag/tune_grid.json')); print('grid tune', j['seconds'], 's, first result', j['first_timing_s'], 's,', j['candidate_results'], 'candidate results')"
cd /tmp && tar czf "$OUT/s19b.tgz" s19b
