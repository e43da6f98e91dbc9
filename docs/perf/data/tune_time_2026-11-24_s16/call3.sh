#!/usr/bin/env bash
# session 16, call 3: THP for the host inputs? b4 with and without glibc's hugetlb tunable; the grid tune with the copies removed, plain and with the tunable
set -u
bash scripts/unpack_carry.sh >/dev/null
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag
./gpu-in/b4 | grep -E "zero|make_"
GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ./gpu-in/b4 | grep -E "zero|make_"
s=$(date +%s); .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale*:*GpuPerToken*:GpuRuntime*' > /tmp/gt.txt 2>&1; echo "gtests rc=$? $(( $(date +%s) - s )) s"; grep -E "PASSED|FAILED" /tmp/gt.txt | head
for i in 1 2 3; do
  mkdir -p /tmp/tt$i
  extra=(-v)
  if [[ $i == 2 ]]; then export GLIBC_TUNABLES=glibc.malloc.hugetlb=1; else unset GLIBC_TUNABLES; fi
  OUT=/tmp/tt$i bash scripts/gpu_tune_time.sh grid "${extra[@]}" > /tmp/tt$i/log.txt 2>&1; echo "run $i (${GLIBC_TUNABLES:-plain}) rc=$?"
  grep -E "wall|first|phase|candidate results" /tmp/tt$i/log.txt | head -8
  grep "prepare [0-9]*x" /tmp/tt$i/tune_grid.log | awk '{for(i=1;i<=NF;i++){ if($i=="inputs") s+=$(i+1); if($i=="reference") r+=$(i+1); if($i=="buffers") d+=$(i+3)}} END{print "  sum inputs", s, "reference", r, "device", d}'
done
cp /tmp/gt.txt /tmp/tt1/
tar czf $OUT/tt.tgz -C /tmp tt1 tt2 tt3
