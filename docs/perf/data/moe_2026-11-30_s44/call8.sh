#!/usr/bin/env bash
# Session 44, call 8: the Qwen3.5-397B-A17B tune of call 7 stopped by its 200 s limit after 8 of 15 shapes, resumed
# from the files it left (call7/m35.tgz: the table, its journal and the profile; tune skips the keys the table holds),
# then the whole grid benched against the default. .carryz: cktune.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid --format=csv,noheader
rm -rf /tmp/m35 && tar xzf docs/perf/data/moe_2026-11-30_s44/call7/m35.tgz -C /tmp && rm -f /tmp/m35/*.lock
t=qwen35_397b_uniform
g=$PWD/configs/grids/moe_2stages_untuned_fmoe_qwen35_397b.csv
s=$(date +%s.%N)
timeout 230 .carry/cktune tune -i "$g" --family moe_2stages -o /tmp/m35/tuned_fmoe_$t.csv -o2 /tmp/m35/profile_$t.csv \
  --device gpu --mp 1 --no-progress > /tmp/m35/tune2_$t.txt 2> /tmp/m35/tune2_$t.err
echo "resumed tune rc=$? wall $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
grep -iE "skip|resum|already|tuned [0-9]+ of" /tmp/m35/tune2_$t.err | tail -4
.carry/cktune merge --check /tmp/m35/tuned_fmoe_$t.csv 2>&1 | tail -1
timeout 120 .carry/cktune bench -i "$g" --family moe_2stages --device gpu --config /tmp/m35/tuned_fmoe_$t.csv \
  --against default -o /tmp/m35/bench2_$t.csv > /tmp/m35/bench2_$t.txt 2> /tmp/m35/bench2_$t.err
echo "bench rc=$?"; grep -A3 "^  all " /tmp/m35/bench2_$t.txt | head -3
(cd /tmp && tar czf "$OUT/m35b.tgz" m35)
