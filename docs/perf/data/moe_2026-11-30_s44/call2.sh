#!/usr/bin/env bash
# Session 44, call 2: the stall watch (a candidate without progress for --stall-timeout, 60 s on a GPU, is hung) on
# the GPU: (a) the 48-shape block-scale grid tuned and benched (scripts/gpu_agreement.sh grid: tune time, no candidate
# ended by the watch, tune/bench agreement); (b) one shape tuned with a hanging candidate injected and the default
# limits: it must end ~60 s after the hang, not after --timeout's 600 s. .carryz: cktune.xz, cktune_gpu_tests.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,vbios_version,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
if [ "${HANG_ONLY:-0}" != 1 ]; then
mkdir -p /tmp/ag
OUT=/tmp/ag SKIP_PRELUDE=1 timeout -s KILL 420 bash scripts/gpu_agreement.sh grid > /tmp/ag_run.log 2>&1
echo "agreement rc=$?"
cat /tmp/ag/summary.txt
cp /tmp/ag/agreement.tgz "$OUT/" 2>/dev/null
mkdir -p /tmp/ag/x && tar xzf /tmp/ag/agreement.tgz -C /tmp/ag/x
prof=/tmp/ag/x/profile_grid.csv
echo "grid profile: $(awk 'NR > 1' "$prof" | wc -l) rows; verdicts:"
awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next} {c[$h["verdict"]]++} END{for(v in c) print "  " v, c[v]}' "$prof"
fi
# (b) the hang: the grid's winner at 1x2112x7168 (run as call 3 on its own: call 2's pick of the name read the wrong
# columns). HANG_ONLY=1 skips (a).
name=gemvh_m1_n8_k512_st1_w16_sk1
echo "hang injected into: $name"
printf 'M,N,K\n1,2112,7168\n' > /tmp/h.csv
s=$(date +%s.%N)
timeout -s KILL 300 .carry/cktune tune -i /tmp/h.csv -o /tmp/h_t.csv -o2 /tmp/h_p.csv --device gpu --no-progress \
  --inject-fault "hang@$name" > /tmp/h.out 2> /tmp/h.err
echo "hang tune rc=$? wall=$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
awk -F, -v n="$name" 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next} $h["kernelName"]==n {print "  " $h["verdict"] ": " $h["reason"]}' /tmp/h_p.csv
awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next} {c[$h["verdict"]]++} END{for(v in c) print "  " v, c[v]}' /tmp/h_p.csv
grep -i "restart\|hung" /tmp/h.err | head -5
tail -2 /tmp/h.out
cp /tmp/h_p.csv /tmp/h_t.csv /tmp/h.err "$OUT/"
