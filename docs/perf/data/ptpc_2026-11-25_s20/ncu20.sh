#!/usr/bin/env bash
# Session 20: ncu (speed of light, memory workload) of one launch of chosen per-token candidates on chosen shapes.
# Usage (repository root, GPU machine): SPECS="M,N,K <kernel regex> <ncu kernel regex>;..." ncu20.sh
set -u
bash scripts/unpack_carry.sh >/dev/null
NCU=/usr/local/cuda/bin/ncu
mkdir -p /tmp/nc; rm -rf /tmp/nc/*
i=0
echo "$SPECS" | tr ";" "\n" > /tmp/nc_specs
while read shape k kk; do
  i=$((i + 1))
  printf 'M,N,K,q_dtype_w\n%s,torch.float8_e4m3fn\n' "$shape" > /tmp/nc/u$i.csv
  timeout 200 $NCU --target-processes all -k "regex:$kk" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    -o /tmp/nc/r$i .carry/cktune tune -i /tmp/nc/u$i.csv --family a8w8 -o /tmp/nc/t$i.csv --device gpu --kernels "$k" \
    --iters 3 --warmup 1 > /tmp/nc/log$i.txt 2>&1
  echo "== $shape $k rc=$?"
  $NCU -i /tmp/nc/r$i.ncu-rep > /tmp/nc/details$i.txt 2>&1
  grep -E "^  [a-z_A-Z]|Duration|Throughput|Elapsed Cycles|SM Frequency|Grid Size|Cluster|Registers|Shared Memory Config|L2 Hit|Mem Busy|Max Bandwidth" /tmp/nc/details$i.txt | head -30
done < /tmp/nc_specs
tar czf $OUT/nc.tgz -C /tmp nc
