#!/usr/bin/env bash
# Session 41, call 9 (the final code, 0d00385): the 7 DeepSeek-V3 TP8 token counts never tuned (3, 5, 6, 1536, 3072,
# 6144, 12288): (a) `bench --config` of call 4's tuned grid table against the default (the rows AITER's rounding
# picks); (b) `tune` of those 7 counts themselves; (c) `bench --config` of (b)'s table against the default;
# cmp9.py: the table's kernel in (a) against the same kernel's time in (b)'s profile, and (c) against (b).
set -u
bash scripts/unpack_carry.sh > /dev/null
D=docs/perf/data/moe_2026-11-30_s41/call9; O=/tmp/c9; mkdir -p $O
B=.carry/cktune
$B bench -i $D/untuned_tokens.csv --family moe_2stages --device gpu --config $D/tuned_grid_call4.csv --against default \
  -o $O/bench_grid_table.csv > $O/bench_grid_table.txt 2> $O/bench_grid_table.err; echo "bench (a) rc=$?"
s=$(date +%s)
$B tune -i $D/untuned_tokens.csv --family moe_2stages --device gpu -o $O/tuned_own.csv -o2 $O/profile_own.csv \
  --no-progress > $O/tune_own.txt 2> $O/tune_own.err; echo "tune (b) rc=$? $(( $(date +%s) - s )) s"
$B bench -i $D/untuned_tokens.csv --family moe_2stages --device gpu --config $O/tuned_own.csv --against default \
  -o $O/bench_own.csv > $O/bench_own.txt 2> $O/bench_own.err; echo "bench (c) rc=$?"
python3 docs/perf/data/moe_2026-11-30_s41/cmp9.py $O | tee $O/cmp9.txt
cp $O/* "$OUT/"
