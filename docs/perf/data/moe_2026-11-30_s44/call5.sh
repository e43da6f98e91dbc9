#!/usr/bin/env bash
# Session 44, call 5: the final binary (the stall watch, the devices' UUID; kernels as call 1): nvidia-smi's and
# discover's UUID, the GPU tests, and the DeepSeek-V3 TP8 tune at 4-64 tokens with its provenance and a bench of it.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,serial,uuid,vbios_version --format=csv,noheader
.carry/cktune discover --json --no-python --no-git 2>/dev/null | grep -E '"(name|pci_bus_id|uuid)"'
s=$(date +%s)
timeout -s KILL 200 .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale.*:*GpuPerToken*:GpuMoe.*' > /tmp/gt.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|comparisons" /tmp/gt.log | head
g=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $g; for t in 4 8 16 32 64; do grep "^$t," $g; done; } > /tmp/d.csv
s=$(date +%s)
timeout -s KILL 200 .carry/cktune tune -i /tmp/d.csv --family moe_2stages -o /tmp/d_t.csv -o2 /tmp/d_p.csv --device gpu \
  --no-progress > /tmp/d.out 2> /tmp/d.err
echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -3 /tmp/d.err
python3 -c "import json; d=json.load(open('/tmp/d_t.csv.provenance.json')); print(json.dumps(d['devices']))"
timeout -s KILL 120 .carry/cktune bench -i /tmp/d.csv --family moe_2stages --config /tmp/d_t.csv --against default \
  --device gpu -o /tmp/d_after.csv > /tmp/d_b.txt 2> /tmp/d_b.err
echo "bench rc=$?"
.carry/cktune report --after /tmp/d_after.csv --tuned /tmp/d_t.csv -o /tmp/d_r.md > /dev/null 2>&1
awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' /tmp/d_r.md
cut -d, -f4,16-22 /tmp/d_t.csv
cp /tmp/d_t.csv /tmp/d_t.csv.provenance.json /tmp/d_after.csv /tmp/d_r.md "$OUT/"; gzip -c /tmp/d_p.csv > "$OUT/d_p.csv.gz"
