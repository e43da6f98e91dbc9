#!/usr/bin/env bash
# Session 26, call 12: the grid's tuned table (call 5) on M values it was not tuned for (the runtime's padded-M
# lookup takes the next tuned M), interleaved with the untuned default and cuBLASLt; every timed launch checked.
set -u
D=docs/perf/data/gemm_2026-11-29_s26
O=/tmp/s26u; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
.carry/cktune bench -i $D/untuned_m.csv --family a8w8_blockscale --device gpu --config $D/call5_grid/tuned_grid.csv \
  --against default -o $O/bench_untuned.csv > $O/bench.txt 2> $O/bench.err
echo "bench rc=$?"
.carry/cktune compare --vs-baseline $O/bench_untuned.csv > $O/vs_cublaslt.txt 2>&1
.carry/cktune compare --interleaved $O/bench_untuned.csv > $O/vs_default.txt 2>&1
grep -A6 '^summary' $O/vs_cublaslt.txt; grep -A6 '^summary' $O/vs_default.txt
python3 - $O/bench_untuned.csv <<'PY'
import csv, sys
v = [r['verdict'] for r in csv.DictReader(open(sys.argv[1]))]
print(len(v), 'rows,', sum(x == 'passed' for x in v), 'passed')
PY
(cd /tmp && tar czf "$OUT/s26u.tgz" s26u)
