#!/usr/bin/env bash
# session 16, call 1: GEMM GPU tests with the faster input encoder and reference, then the grid tune time x2 and one -v run
set -u
bash scripts/unpack_carry.sh >/dev/null
nproc; date -u
s=$(date +%s); .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale*:*GpuPerToken*:GpuRuntime*' > /tmp/gt.txt 2>&1; echo "gtests rc=$? $(( $(date +%s) - s )) s"; grep -E "PASSED|FAILED" /tmp/gt.txt | head
for i in 1 2 3; do
  mkdir -p /tmp/tt$i
  extra=(); [[ $i == 3 ]] && extra=(-v)
  OUT=/tmp/tt$i bash scripts/gpu_tune_time.sh grid "${extra[@]}" > /tmp/tt$i/log.txt 2>&1; echo "run $i rc=$?"
  grep -E "wall|first|phase|candidate results" /tmp/tt$i/log.txt | head -8
done
grep "prepare [0-9]*x" /tmp/tt3/tune_grid.log | awk '{for(i=1;i<=NF;i++){ if($i=="inputs") s+=$(i+1); if($i=="reference") r+=$(i+1); if($i=="plan") p+=$(i+1)}} END{print "sum inputs", s, "reference", r, "plan", p}'
cp /tmp/gt.txt /tmp/tt1/
tar czf $OUT/tt.tgz -C /tmp tt1 tt2 tt3
