#!/usr/bin/env bash
# One device call for fused MoE on the GPU (docs/perf.md, "Fused MoE"): the MoE GPU tests, then per
# grid in configs/grids (moe_2stages_untuned_fmoe_<model>.csv): tune (every pipeline verified), the
# tuned rows through `merge --check`, `bench --config tuned --against default` (before and after in one
# interleaved run), and a table per token count: sorting, stage 1, stage 2 and total time, the byte and
# compute floors, TFLOP/s, GB/s, and for DeepSeek-V3 TP8 the vLLM Triton figures measured by others.
# Runs on the GPU machine from the repository root with the binaries in .carry/
# (scripts/build_portable.sh); writes to $OUT (or ./gpu-out).
# Usage: scripts/gpu_moe.sh [model ...]   (default: dsv3_tp8; others: qwen3_235b_tp4 qwen35_397b)
#        ROUTING=skewed scripts/gpu_moe.sh ...   (bench and tune with seeded skewed routing)
#        UNTUNED=1 scripts/gpu_moe.sh ...   (also bench token counts between the tuned powers of two, which
#        the runtime looks up under the next power of two: the tuned table against the default there;
#        UNTUNED_TOKENS picks them)
#        DEVICE=cpu SKIP_TESTS=1 ...   (the same steps on the CPU backend, for a check of the script)
#        MP=2 ...   (tune with two workers: one per GPU, or two CPU workers with DEVICE=cpu)
#        TESTS_FILTER=GpuMoe.* ...   (a narrower test run: the default, every MoE and sorting GPU test, took 353 s on
#        an H200 on 2026-11-29, most of it the sorting suite, which took 97 s alone once it read its zeroing back
#        less often; GpuMoe.* alone ~20 s)
set -uo pipefail
final=${OUT:-$PWD/gpu-out}
mkdir -p "$final"
root=$PWD
bin=$root/.carry/cktune
gtests=$root/.carry/cktune_gpu_tests
grids=$root/configs/grids
routing=${ROUTING:-uniform}
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(dsv3_tp8)
summary=$final/moe_summary.txt
: > "$summary"
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))" | tee -a "$summary"; }

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  step "device"
  nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm,driver_version --format=csv | tee -a "$summary"
  step "gpu tests (MoE sorting and pipelines)"
  timeout 400 "$gtests" --gtest_brief=1 --gtest_filter="${TESTS_FILTER:-GpuMoe*:*Sort*}" 2>&1 | tail -30 | tee -a "$summary"
fi

routing_flag=()
[ "$routing" != uniform ] && routing_flag=(--routing "$routing")

for model in "${models[@]}"; do
  grid=$grids/moe_2stages_untuned_fmoe_$model.csv
  [ -f "$grid" ] || { echo "no grid $grid" | tee -a "$summary"; continue; }
  tag=${model}_$routing
  step "tune $model ($routing routing)"
  # The whole tune is what is timed: a table an earlier run left in $final would be resumed (tune skips the keys
  # it holds) and the wall time would not be the grid's.
  rm -rf "$final/tuned_fmoe_$tag.csv" "$final/tuned_fmoe_$tag.csv".* "$final/profile_$tag.csv"
  t0=$(date +%s.%N)
  timeout "${TUNE_TIMEOUT:-420}" "$bin" tune -i "$grid" --family moe_2stages -o "$final/tuned_fmoe_$tag.csv" \
    -o2 "$final/profile_$tag.csv" --device "${DEVICE:-gpu}" --mp "${MP:-1}" --no-progress "${routing_flag[@]}" \
    > "$final/tune_$tag.txt" 2> "$final/tune_$tag.err"
  rc=$?
  t1=$(date +%s.%N)
  echo "tune rc=$rc, wall $(python3 -c "print(f'{$t1-$t0:.1f}')") s" | tee -a "$summary"
  grep -E "first timing|tuned [0-9]+ of|speed-up|failed" "$final/tune_$tag.err" | tail -5 | tee -a "$summary"
  "$bin" merge --check "$final/tuned_fmoe_$tag.csv" 2>&1 | tail -2 | tee -a "$summary"
  step "bench $model: tuned against default, interleaved"
  timeout "${BENCH_TIMEOUT:-300}" "$bin" bench -i "$grid" --family moe_2stages --device "${DEVICE:-gpu}" \
    --config "$final/tuned_fmoe_$tag.csv" --against default -o "$final/bench_$tag.csv" "${routing_flag[@]}" \
    > "$final/bench_$tag.txt" 2> "$final/bench_$tag.err"
  echo "bench rc=$?" | tee -a "$summary"
  python3 - "$final/tuned_fmoe_$tag.csv" "$final/profile_$tag.csv" "$final/bench_$tag.csv" "$model" <<'PY' | tee -a "$summary"
import csv, math, sys
tuned, profile, bench, model = sys.argv[1:5]
vllm = {1: 61.4, 2: 70.5, 4: 84.2, 8: 120.6, 16: 185.5, 32: 293.9, 64: 359.1, 128: 408.2, 256: 435.3,
        512: 528.8, 1024: 621.8, 2048: 899.7, 4096: 1500.6, 8192: 2699.4, 16384: 5038.5}
HBM, PEAK = 4.8e12, 1979e12
def num(x):
    try:
        v = float(x)
        return v if math.isfinite(v) and v > 0 else None
    except ValueError:
        return None
rows = {}
for r in csv.DictReader(open(tuned)):
    rows[int(r["token"])] = r
parts = {}
for r in csv.DictReader(open(profile)):
    t = int(r["token"])
    row = rows.get(t)
    if not row:
        continue
    k2 = row["kernelName2"]
    name = row["kernelName1"] + ("+" + k2 if k2 and k2 != "None" else "")  # a 1-stage row names one kernel
    if r["kernelName"] == name:
        parts[t] = dict(kv.split("=") for kv in r["parts"].split(";")) if r.get("parts") else {}
        if not r.get("parts"):
            parts[t]["stage1"] = "1-stage"
        parts[t]["tune_us"] = r["us"]
after, before = {}, {}
for r in csv.DictReader(open(bench)):
    t = int(r["token"])
    if r["role"] == "dispatch":
        after[t] = r
    elif r["role"] == "against":
        before[t] = r
print(f"{model}: per token count (µs; total = sorting + stage 1 + stage 2 as one timed pipeline)")
hdr = "| tokens | block_m | sort | stage 1 | stage 2 | reduce | total (tune) | total (bench) | bench/tune | default | tuned vs default | byte floor | compute floor | TFLOP/s | GB/s |"
if model == "dsv3_tp8":
    hdr += " vLLM | vs vLLM |"
print(hdr)
print("|" + "---|" * (hdr.count("|") - 1))
ratios, vs_default = [], []
for t in sorted(rows):
    r = rows[t]
    D, I, E, k = (int(r[c]) for c in ("model_dim", "inter_dim", "expert", "topk"))
    flops = 2 * t * k * 3 * D * I
    comp_floor = flops / PEAK * 1e6
    p = parts.get(t, {})
    tune_us = num(p.get("tune_us", ""))
    a = after.get(t)
    b = before.get(t)
    bus = num(a["us"]) if a else None
    dus = num(b["us"]) if b else None
    # The bytes the bench's routing moved (its bw x time: the experts that routing reached, CandidateResult::min_bytes);
    # without a bench row, the experts uniform routing reaches on average.
    active = E * (1 - (1 - k / E) ** t)
    moved = num(a["bw"]) * bus * 1e3 if a and bus and num(a.get("bw", "")) else active * 3 * D * I + 4 * t * D
    byte_floor = moved / HBM * 1e6
    line = f"| {t} | {r['block_m']} | {p.get('sort', '-')} | {p.get('stage1', '-')} | {p.get('stage2', '-')} | {p.get('reduce', '-')} | "
    line += f"{tune_us or '-'} | {bus or '-'} | "
    line += f"{bus / tune_us:.2f} | " if bus and tune_us else "- | "
    line += f"{dus or '-'} | " + (f"{dus / bus:.2f}x | " if dus and bus else "- | ")
    line += f"{byte_floor:.1f} | {comp_floor:.1f} | "
    line += f"{flops / bus / 1e6:.0f} | {moved / bus / 1e3:.0f} |" if bus else "- | - |"
    if dus and bus:
        vs_default.append(dus / bus)
    if model == "dsv3_tp8":
        v = vllm.get(t)
        line += f" {v} | " + (f"{v / bus:.2f}x |" if v and bus else "- |")
        if v and bus:
            ratios.append((t, v / bus, bus / byte_floor))
    print(line)
g = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")
if vs_default:
    print(f"tuned vs default (interleaved bench): geomean {g(vs_default):.3f}x over {len(vs_default)} shapes")
if ratios:
    print(f"vs vLLM Triton (ex-align): geomean {g([x for _, x, _ in ratios]):.2f}x over {len(ratios)} token counts; "
          f">= 4096 tokens: min {min([x for t, x, _ in ratios if t >= 4096] or [float('nan')]):.2f}x; "
          f"8..512 tokens: worst {max([f for t, _, f in ratios if 8 <= t <= 512] or [float('nan')]):.2f}x the byte floor")
PY
  # Bench against tune (the pipelines' times in the tune's profile), as the product's report checks it.
  "$bin" report --after "$final/bench_$tag.csv" --tuned "$final/tuned_fmoe_$tag.csv" --profile "$final/profile_$tag.csv" \
    -o "$final/report_$tag.md" > /dev/null 2>&1
  echo "bench/tune agreement: $(grep -E 'shapes within [0-9]+% of the time tune' "$final/report_$tag.md" | sed 's/^- //')" |
    tee -a "$summary"
  if [ "${UNTUNED:-0}" = 1 ]; then
    # The grid's configuration at token counts it does not hold (AITER rounds them up to a tuned key).
    untuned=$final/untuned_tokens_$tag.csv
    awk -F, -v pick="${UNTUNED_TOKENS:-3 6 12 24 48 96 192 384 768 1536 3072 6144 12288}" '
      BEGIN { n = split(pick, p, " ") }
      NR == 1 { print; next }
      { have[$1] = 1; rest = substr($0, length($1) + 1) }
      END { for (i = 1; i <= n; i++) if (!(p[i] in have)) print p[i] rest }' "$grid" > "$untuned"
    step "bench $model at $(($(wc -l < "$untuned") - 1)) token counts never tuned: tuned table against default"
    timeout "${BENCH_TIMEOUT:-300}" "$bin" bench -i "$untuned" --family moe_2stages --device "${DEVICE:-gpu}" \
      --config "$final/tuned_fmoe_$tag.csv" --against default -o "$final/bench_untuned_$tag.csv" "${routing_flag[@]}" \
      > "$final/bench_untuned_$tag.txt" 2> "$final/bench_untuned_$tag.err"
    echo "bench rc=$?; $(grep -E '^bench:' "$final/bench_untuned_$tag.err" | tail -1)" | tee -a "$summary"
    "$bin" compare --interleaved "$final/bench_untuned_$tag.csv" > "$final/untuned_vs_default_$tag.txt" 2>&1
    sed -n '/per shape/,/^summary/{/^summary/!p}' "$final/untuned_vs_default_$tag.txt" | tee -a "$summary"
    sed -n '/^summary/,/^$/p' "$final/untuned_vs_default_$tag.txt" | tee -a "$summary"
  fi
done
echo "summary in $summary"
