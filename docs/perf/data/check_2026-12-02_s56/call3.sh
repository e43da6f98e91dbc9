#!/usr/bin/env bash
# Session 56, call 3 (trustworthy numbers): the bench's first shape. In call 2 (and sessions 53-55) the grid's bench
# timed its first shape, 1 x 32768 x 512, 1.1-1.25x the time tune wrote, and within 10% when benched again. Is it the
# clocks rising from idle while the first ~1 ms of timed launches run? (1) After 5 s idle, the shape benched with 3000
# timed launches at -vv (every launch's time: the shape of a ramp, if there is one). (2) After 5 s idle, the default
# 5 + 101 launches, twice. (3) Right after a 2 s busy GPU (a bench of a long shape just before, same process? no: a
# separate process, so ~0.5 s of start-up idle between), the default protocol. Clocks from nvidia-smi before each.
set -u
bash scripts/unpack_carry.sh > /dev/null
D=docs/perf/data/check_2026-12-02_s56; O=/tmp/s56c3; mkdir -p $O
q() { nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,pstate --format=csv,noheader; }
one() { # $1 tag, rest: extra args
  local t=$1; shift
  echo "== $t: $(q)"
  .carry/cktune bench -i $D/one.csv --config $D/call2_tuned.csv --device gpu -vv -o $O/$t.csv "$@" > /dev/null 2> $O/$t.err
  awk -F, 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1{print "   ", $h["role"], $h["kernelName"], $h["us"], $h["us_p10"], $h["us_p90"]}' $O/$t.csv
}
nvidia-smi --query-gpu=name,pci.bus_id,uuid --format=csv,noheader
sleep 5; one long3000 --iters 3000
sleep 5; one idle_a
sleep 5; one idle_b
printf 'M,N,K\n8192,7168,16384\n' > $O/big.csv
.carry/cktune bench -i $O/big.csv --device gpu --iters 1000 -o $O/big_out.csv > /dev/null 2>&1; one after_busy
one after_bench
sleep 5; one idle_c --iters 1000
python3 - $O <<'PY'
import re, sys, statistics as st
O = sys.argv[1]
for t in ("long3000", "idle_a", "after_busy", "idle_c"):
    for l in open(f"{O}/{t}.err"):
        m = re.search(r"\[trace\] (\S+): (\d+) timed launches.*us: (.*)", l)
        if not m: continue
        us = list(map(float, m.group(3).split()))
        n = len(us); parts = [us[i * n // 10:(i + 1) * n // 10] for i in range(10)]
        print(t, m.group(1)[:34], n, "tenths' medians:", " ".join(f"{st.median(p):.2f}" for p in parts if p))
        if n >= 200: print("   first 40:", " ".join(f"{x:.1f}" for x in us[:40]))
PY
(cd /tmp && tar czf "$OUT/s56c3.tgz" s56c3)
