#!/usr/bin/env bash
# One device call for the tuner's speed (docs/perf.md, "Time to tune"): tune the 48-shape grid (and,
# with "ragged", the ragged set) on one GPU, every candidate verified, and print the wall time, the
# first-result time and the workers' time by phase. Extra arguments go to `tune` (e.g. --all to
# compare with an exhaustive run). Runs on the GPU machine with .carry/cktune (scripts/build_portable.sh).
# With PRUNE_CHECK=1 each set is tuned a second time with --screen-factor 0 (every candidate timed fully)
# and the pruned run is checked against it: was the exhaustive winner ever screened out, and how far is the
# pruned table's winner from it.
# Usage: [PRUNE_CHECK=1] scripts/gpu_tune_time.sh [grid|ragged|both] [tune options...]
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
  runs=("$s")
  [[ ${PRUNE_CHECK:-0} == 1 ]] && runs+=("${s}_all")
  for r in "${runs[@]}"; do
  extra=()
  [[ $r == *_all ]] && extra=(--screen-factor 0)
  rm -rf "$OUT/tuned_$r.csv" "$OUT/tuned_$r.csv".*
  start=$(date +%s.%N)
  .carry/cktune tune -i "$in" -o "$OUT/tuned_$r.csv" --device gpu --mp 1 --json --profile-file "$OUT/profile_$r.csv" \
    "${extra[@]}" "$@" > "$OUT/tune_$r.json" 2> "$OUT/tune_$r.log"
  rc=$?
  end=$(date +%s.%N)
  python3 - "$OUT/tune_$r.json" "$r" "$rc" "$start" "$end" <<'PY'
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
  if [[ ${PRUNE_CHECK:-0} == 1 ]]; then
    python3 - "$OUT/tuned_$s.csv" "$OUT/tuned_${s}_all.csv" "$OUT/profile_$s.csv" "$s" <<'PY'
import csv, sys
pruned, full, prof, label = sys.argv[1:5]
key = lambda r: (r["M"], r["N"], r["K"])
P = {key(r): r for r in csv.DictReader(open(pruned))}
F = {key(r): r for r in csv.DictReader(open(full))}
screened = {}
for r in csv.DictReader(open(prof)):
    screened[(key(r), r["kernelName"])] = r["reason"].startswith("screened out")
same = dropped = 0
worst = 1.0
for k, f in F.items():
    p = P.get(k)
    if p is None:
        continue
    same += p["kernelName"] == f["kernelName"]
    if screened.get((k, f["kernelName"]), False):
        dropped += 1
        print(f"  exhaustive winner screened out: M={k[0]} N={k[1]} K={k[2]} {f['kernelName']}")
    worst = max(worst, float(p["us"]) / float(f["us"]))
print(f"{label}: exhaustive vs pruned: {len(F)} shapes, same winner {same}, exhaustive winner screened out "
      f"in the pruned run {dropped}, worst pruned/exhaustive winner time {worst:.3f}")
PY
  fi
done
