#!/usr/bin/env bash
# Does a shape's time depend on the GPU's power state? (docs/perf.md, "Why that shape is bimodal")
# Tunes one GEMM shape, benches the winner back to back (--iters 400), then interleaved with the
# default, while nvidia-smi logs SM clock and board power every 100 ms. Runs on the GPU machine from
# the repository root with the binaries in .carry/ (scripts/build_portable.sh); writes to $OUT.
# Usage: scripts/gpu_power.sh [M,N,K]   (default 8192,7168,16384)
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT"
B=.carry/cktune
shape=${1:-8192,7168,16384}
printf 'M,N,K\n%s\n' "$shape" > "$OUT/power_shape.csv"
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 100 > "$OUT/power_clocks.csv" &
smi=$!
timeout 150 $B tune -i "$OUT/power_shape.csv" -o "$OUT/power_tuned.csv" --device gpu --no-progress > "$OUT/power_tune.txt" 2>&1
echo "tune rc=$?"
timeout 60 $B bench -i "$OUT/power_shape.csv" --config "$OUT/power_tuned.csv" --device gpu --iters 400 \
  -o "$OUT/power_bench.csv" > "$OUT/power_bench.txt" 2>&1
echo "bench rc=$?"
timeout 60 $B bench -i "$OUT/power_shape.csv" --config "$OUT/power_tuned.csv" --device gpu --against default \
  -o "$OUT/power_bench_interleaved.csv" > "$OUT/power_bench_interleaved.txt" 2>&1
echo "interleaved bench rc=$?"
kill "$smi"
cat "$OUT/power_tuned.csv"
for f in power_bench power_bench_interleaved; do cut -d, -f4-7,12,14-17 "$OUT/$f.csv"; done
python3 - "$OUT/power_clocks.csv" <<'PY'
import sys
rows = [l.strip().split(", ") for l in open(sys.argv[1]) if l.strip()]
clk = sorted(int(r[1].split()[0]) for r in rows if r[1].split()[0].isdigit())
pw = [float(r[2].split()[0]) for r in rows if r[2].split()[0].replace(".", "", 1).isdigit()]
print(f"{len(rows)} samples: SM clock min {clk[0]} median {clk[len(clk) // 2]} max {clk[-1]} MHz; power max {max(pw):.1f} W")
PY
