#!/usr/bin/env bash
# Shapes never tuned: the MoE token counts between the tuned powers of two, and the per-token layers at M
# values outside the vLLM sweep, each benched with the tuned table against the default (and cuBLASLt).
set -uo pipefail
bash scripts/unpack_carry.sh > /dev/null
O=$OUT
timeout 250 .carry/cktune bench -i gpu-in/moe_untuned.csv --family moe_2stages --device gpu --config gpu-in/moe_tuned.csv \
  --against default -o $O/moe_untuned_bench.csv > $O/moe_untuned.txt 2> $O/moe_untuned.err; echo "moe bench rc=$?"
timeout 200 .carry/cktune bench -i gpu-in/pt_untuned.csv --family a8w8 --device gpu --config gpu-in/pt_tuned.csv \
  --against default -o $O/pt_untuned_bench.csv > $O/pt_untuned.txt 2> $O/pt_untuned.err; echo "pt bench rc=$?"
.carry/cktune compare --interleaved $O/moe_untuned_bench.csv 2>&1 | sed -n '/^summary/,$p' | head -8
.carry/cktune compare --interleaved $O/pt_untuned_bench.csv 2>&1 | sed -n '/^summary/,$p' | head -8
.carry/cktune compare --vs-baseline $O/pt_untuned_bench.csv 2>&1 | sed -n '/^summary/,$p' | head -8
for f in moe_untuned_bench pt_untuned_bench; do
  python3 -c "
import csv,collections
c=collections.Counter((r['role'],r['verdict']) for r in csv.DictReader(open('$O/$f.csv')))
print('$f', dict(c))"; done
