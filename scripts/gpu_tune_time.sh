#!/usr/bin/env bash
# One device call for the tuner's speed (docs/perf.md, "Time to tune"): tune the 48-shape grid (and,
# with "ragged", the ragged set) on one GPU, every candidate verified, and print the wall time, the
# first-result time and the workers' time by phase. Extra arguments go to `tune` (e.g. --all to
# compare with an exhaustive run). Runs on the GPU machine with .carry/cktune (scripts/build_portable.sh).
# Usage: scripts/gpu_tune_time.sh [grid|ragged|both] [tune options...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
which=${1:-grid}
shift || true
sets=()
[[ $which == grid || $which == both ]] && sets+=(grid)
[[ $which == ragged || $which == both ]] && sets+=(ragged)
for s in "${sets[@]}"; do
  case $s in
    grid) in=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv ;;
    ragged) in=configs/grids/a8w8_blockscale_untuned_gemm_ragged.csv ;;
  esac
  rm -f "$OUT/tuned_$s.csv" "$OUT/tuned_$s.csv".*
  start=$(date +%s.%N)
  .carry/cktune tune -i "$in" -o "$OUT/tuned_$s.csv" --device gpu --mp 1 --json "$@" > "$OUT/tune_$s.json" 2> "$OUT/tune_$s.log"
  rc=$?
  end=$(date +%s.%N)
  python3 - "$OUT/tune_$s.json" "$s" "$rc" "$start" "$end" <<'PY'
import json, sys
path, label, rc, start, end = sys.argv[1:6]
try:
    j = json.load(open(path))
except Exception as e:
    print(f"{label}: rc={rc}, no JSON summary ({e})"); sys.exit(0)
ph = j.get("phases_s", {})
tot = sum(ph.values())
print(f"{label}: rc={rc} tuned {j['tuned']}/{j['shapes']}, {j['candidate_results']} candidate results, "
      f"{j['seconds']:.1f} s (command {float(end) - float(start):.1f} s), first result {j['first_timing_s']:.2f} s")
print("  phases: " + ", ".join(f"{k} {v:.1f} s ({100 * v / tot:.0f}%)" for k, v in sorted(ph.items(), key=lambda kv: -kv[1])))
PY
done
