#!/usr/bin/env bash
# Session 56, call 5 (trustworthy numbers): how long a short kernel runs slow after a power-capped shape. Call 4: in
# the grid's bench order 1 x 32768 x 512 follows 8192 x 24576 x 1536 and benches 6.5-11% over tune's time, at a flat
# level over its 101 launches (and its cuBLASLt baseline ~3% over); after 8192 x 32768 x 512 it benched 1.000. Here
# the two shapes in that order with every role timed for >= 300 ms (--min-time-ms 300, -vv: each launch's time), so
# the short kernel's 30,000 launches show when it is back at its level; then the short shape alone as the control.
set -u
bash scripts/unpack_carry.sh > /dev/null
D=docs/perf/data/check_2026-12-02_s56; O=/tmp/s56c5; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm --format=csv,noheader
printf 'M,N,K\n8192,24576,1536\n1,32768,512\n' > $O/pair.csv
# The SM clock, power and throttle reasons every 20 ms through both benches (nvidia-smi's own time stamps).
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv,noheader -lms 20 > $O/smi.csv 2>&1 &
smi=$!
timeout 120 .carry/cktune bench -i $O/pair.csv --config $D/call2_tuned.csv --device gpu -vv --min-time-ms 300 -o $O/pair_out.csv > /dev/null 2> $O/pair.err
echo "pair rc=$?"
sleep 3
timeout 60 .carry/cktune bench -i $D/one.csv --config $D/call2_tuned.csv --device gpu -vv --min-time-ms 300 -o $O/one_out.csv > /dev/null 2> $O/one.err
echo "one rc=$?"
kill $smi
python3 - $O <<'PY'
import sys
O = sys.argv[1]
rows = [l.strip().split(", ") for l in open(f"{O}/smi.csv") if l.count(",") >= 3]
# print the samples around load changes: every sample where power or clock moved by more than 10%, with its neighbours
keep = set()
for i in range(1, len(rows)):
    try:
        c0, c1 = float(rows[i-1][1].split()[0]), float(rows[i][1].split()[0])
        p0, p1 = float(rows[i-1][2].split()[0]), float(rows[i][2].split()[0])
    except (ValueError, IndexError):
        continue
    if abs(c1 - c0) > 0.1 * c0 or abs(p1 - p0) > 0.1 * max(p0, 1): keep.update({i - 1, i, i + 1})
print("smi samples:", len(rows))
for i in sorted(keep):
    if i < len(rows): print("  ", " | ".join(rows[i]))
PY
python3 - $O <<'PY'
import re, sys, statistics as st
O = sys.argv[1]
for f in ("pair", "one"):
    shape = None
    for l in open(f"{O}/{f}.err"):
        m = re.search(r"prepare (\S+):", l)
        if m: shape = m.group(1); print(f, l.strip()[:150])
        m = re.search(r"\[trace\] (\S+): (\d+) timed launches after (\d+) warm-up, the first (\d+) dropped.*us: (.*)", l)
        if m:
            us = list(map(float, m.group(5).split())); n = len(us)
            if shape == "1x32768x512":
                # medians over consecutive windows of ~5 ms of launches, with the elapsed time at each window's start
                out, t, i = [], 0.0, 0
                while i < n:
                    j = i; s = 0.0
                    while j < n and s < 5000: s += us[j]; j += 1
                    out.append(f"{t/1000:.0f}ms:{st.median(us[i:j]):.2f}"); t += s; i = j
                print(f, shape, m.group(1)[:30], n, " ".join(out))
            else:
                print(f, shape, m.group(1)[:30], n, "dropped", m.group(4), "tenths", " ".join(f"{st.median(us[k*n//10:(k+1)*n//10]):.1f}" for k in range(10)))
        elif "timer:" in l and "late" in l: print("   ", l.strip()[:160])
PY
grep -h "clocks:" $O/*.err | cut -c1-200
(cd /tmp && tar czf "$OUT/s56c5.tgz" s56c5)
