#!/usr/bin/env bash
# The PTPC study on the GPU, one family per call (docs/perf.md, "Per-token a8w8 on the GPU"): the study's
# model/TP pairs captured from cktune's presets (both per-token families, vLLM's M sweep, OCP fp8 e4m3fn:
# --arch gfx950 picks that dtype, the one the H100/H200 have), the M values cut to MS, every (M,N,K) once;
# then tune (every candidate verified), the tuned table through `merge --check`, one `bench --config
# TUNED --against default` (tuned, untuned default and the cuBLASLt outer-vector baseline interleaved in
# one run), and the per-model tables by `compare --vs-baseline` (tuned vs cuBLASLt) and `compare
# --interleaved` (tuned vs default), and the Markdown report holding both.
# Runs on the GPU machine from the repository root with the binaries in .carry/ (scripts/unpack_carry.sh);
# writes its summary and one archive of everything else (ptpc_FAMILY.tgz) to $OUT (or ./gpu-out).
# Usage: scripts/gpu_ptpc.sh FAMILY      FAMILY = a8w8 | a8w8_bpreshuffle
#        MS="1 16 128" PAIRS="llama-4-scout@8" DEVICE=cpu scripts/gpu_ptpc.sh a8w8   (a quick run)
#        DTYPE=int8 scripts/gpu_ptpc.sh a8w8   (the same shapes as torch.int8 keys: AITER's int8 rows; no
#        vendor baseline exists for them, so only the tuned-vs-default tables are printed)
#        UNTUNED=1 scripts/gpu_ptpc.sh a8w8   (also bench the sweep's other M values, never tuned, with the
#        tuned table: what a server gets for the sizes between the tuned ones, through the runtime's
#        padded-M lookup, against the default and cuBLASLt; UNTUNED_MS picks the M values)
#        MS=all ...   (the whole sweep, 69 M values: 1380 shapes, about 13 min of tuning on one H200; it
#        fits the device's 10-minute calls as shards, each tuned in its own call, then merged and benched:)
#        MS=all SHARD=1/2 scripts/gpu_ptpc.sh a8w8   (tune shard 1 of 2 only: ptpc_a8w8_shard1.tgz)
#        MS=all TUNED_IN="s1.csv s2.csv" scripts/gpu_ptpc.sh a8w8   (no tune: `cktune merge` the shards'
#        tables into the tuned table, then merge --check, bench and the per-model tables as usual)
set -uo pipefail
family=${1:?usage: scripts/gpu_ptpc.sh a8w8|a8w8_bpreshuffle}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
final=$(mktemp -d)   # everything lands here and is packed into $out at the end (and after every step)
bin=$PWD/.carry/cktune
ms=${MS:-"1 8 16 32 64 128 256 512 1024 8192"}
pairs=${PAIRS:-"llama-4-maverick@4 llama-4-maverick@8 llama-4-scout@4 llama-4-scout@8 qwen3-coder-480b-a35b@4 qwen3-coder-480b-a35b@8 deepseek-r1@8"}
summary=$final/ptpc_${family}${DTYPE:+_$DTYPE}_summary.txt
: > "$summary"
pack() { cp "$summary" "$out/"; tar czf "$out/ptpc_$family${DTYPE:+_$DTYPE}.tgz" -C "$final" .; }
step() { pack; echo; echo "=== $* ($(date -u +%H:%M:%S))" | tee -a "$summary"; }
work=$(mktemp -d)

step "grid: $pairs; M in $ms"
for p in $pairs; do
  mkdir -p "$work/$p"
  "$bin" capture --model "${p%@*}" --tp "${p#*@}" --gemm-family "$family" --m-sweep vllm --arch gfx950 \
    -o "$work/$p" > "$work/$p.capture.txt" 2>&1 || { echo "capture $p failed" | tee -a "$summary"; exit 1; }
done
tag=$family${DTYPE:+_$DTYPE}
[ "$ms" = all ] && ms=$(for p in $pairs; do tail -n +2 "$work/$p/${family}_untuned_gemm.csv" | cut -d, -f1; done | sort -nu | tr '\n' ' ')
grid=$final/${tag}_study_grid.csv
{
  echo "M,N,K,q_dtype_w"
  for p in $pairs; do tail -n +2 "$work/$p/${family}_untuned_gemm.csv"; done |
    awk -F, -v ms="$ms" 'BEGIN { n = split(ms, a, " "); for (i = 1; i <= n; i++) keep[a[i]] = 1 } ($1 in keep)' |
    sort -t, -k2,2n -k3,3n -k1,1n -u |
    if [ "${DTYPE:-}" = int8 ]; then sed 's/torch\.float8_e4m3fn$/torch.int8/'; else cat; fi
} > "$grid"
echo "$(($(wc -l < "$grid") - 1)) shapes" | tee -a "$summary"

if [ -n "${TUNED_IN:-}" ]; then
  step "merge the shards' tuned tables: $TUNED_IN"
  # shellcheck disable=SC2086
  "$bin" merge $TUNED_IN -o "$final/${tag}_tuned_gemm.csv" 2>&1 | tail -1 | tee -a "$summary"
  "$bin" merge --check "$final/${tag}_tuned_gemm.csv" 2>&1 | tail -1 | tee -a "$summary"
else
  shard=${SHARD:+_shard${SHARD%/*}}
  step "tune $family${SHARD:+ (shard $SHARD)}"
  t0=$(date +%s.%N)
  timeout "${TUNE_TIMEOUT:-400}" "$bin" tune -i "$grid" --family "$family" --device "${DEVICE:-gpu}" --no-progress \
    ${SHARD:+--shard "$SHARD"} -o "$final/${tag}_tuned_gemm$shard.csv" -o2 "$final/${tag}_profile$shard.csv" \
    > "$final/${tag}_tune$shard.txt" 2> "$final/${tag}_tune$shard.err"
  rc=$?
  t1=$(date +%s.%N)
  echo "tune rc=$rc, wall $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s" | tee -a "$summary"
  grep -E "worker time by phase|first result|tuned [0-9]+ of" "$final/${tag}_tune$shard.err" | tail -3 | tee -a "$summary"
  "$bin" merge --check "$final/${tag}_tuned_gemm$shard.csv" 2>&1 | tail -1 | tee -a "$summary"
  if [ -n "${SHARD:-}" ]; then
    cp "$final/${tag}_tuned_gemm$shard.csv" "$out/"
    pack
    mv "$out/ptpc_$tag.tgz" "$out/ptpc_${tag}$shard.tgz"
    exit 0
  fi
fi

step "bench $family: tuned, default and cuBLASLt interleaved"
# The whole sweep's bench takes ~350 s on an H200 (2026-11-24): give it most of a 10-minute device call.
bench_limit=${BENCH_TIMEOUT:-$([ "${MS:-}" = all ] && echo 540 || echo 300)}
timeout "$bench_limit" "$bin" bench -i "$grid" --family "$family" --device "${DEVICE:-gpu}" \
  --config "$final/${tag}_tuned_gemm.csv" --against default -o "$final/${tag}_bench.csv" \
  > "$final/${tag}_bench.txt" 2> "$final/${tag}_bench.err"
rc=$?
echo "bench rc=$rc" | tee -a "$summary"
[ $rc = 124 ] && echo "bench stopped after ${bench_limit} s: the tables below cover only the shapes benched by then (BENCH_TIMEOUT raises the limit)" | tee -a "$summary"

models=$(echo $pairs | tr ' ' ',')
step "tuned vs cuBLASLt (outer-vector scales), per model"
"$bin" compare --vs-baseline "$final/${tag}_bench.csv" --models "$models" 2>&1 | tee "$final/${tag}_vs_cublaslt.txt" | tee -a "$summary"
step "tuned vs untuned default, per model"
"$bin" compare --interleaved "$final/${tag}_bench.csv" --models "$models" 2>&1 | tee "$final/${tag}_vs_default.txt" | tail -25 | tee -a "$summary"
step "report (tuned vs default, and against cuBLASLt per model)"
"$bin" report --after "$final/${tag}_bench.csv" --tuned "$final/${tag}_tuned_gemm.csv" --models "$models" \
  -o "$final/${tag}_report.md" 2>&1 | tail -1 | tee -a "$summary"
# Did the bench reproduce tune's times? (the report's check, per shape)
awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' "$final/${tag}_report.md" | tee -a "$summary"

if [ "${UNTUNED:-0}" = 1 ]; then
  # The shapes of the same layers at the M values the table was not tuned at.
  untuned=$final/${tag}_untuned_m_grid.csv
  {
    echo "M,N,K,q_dtype_w"
    for p in $pairs; do tail -n +2 "$work/$p/${family}_untuned_gemm.csv"; done |
      awk -F, -v ms="$ms" -v pick="${UNTUNED_MS:-}" 'BEGIN { n = split(ms, a, " "); for (i = 1; i <= n; i++) tuned[a[i]] = 1
          m = split(pick, b, " "); for (i = 1; i <= m; i++) want[b[i]] = 1 }
        !($1 in tuned) && (pick == "" || ($1 in want))' |
      sort -t, -k2,2n -k3,3n -k1,1n -u |
      if [ "${DTYPE:-}" = int8 ]; then sed 's/torch\.float8_e4m3fn$/torch.int8/'; else cat; fi
  } > "$untuned"
  step "bench $family on $(($(wc -l < "$untuned") - 1)) shapes at M values never tuned (the tuned table, default, cuBLASLt)"
  timeout "${BENCH_TIMEOUT:-300}" "$bin" bench -i "$untuned" --family "$family" --device "${DEVICE:-gpu}" \
    --config "$final/${tag}_tuned_gemm.csv" --against default -o "$final/${tag}_untuned_m_bench.csv" \
    > "$final/${tag}_untuned_m_bench.txt" 2> "$final/${tag}_untuned_m_bench.err"
  echo "bench rc=$?; $(grep -E '^bench:' "$final/${tag}_untuned_m_bench.err" | tail -1)" | tee -a "$summary"
  step "untuned M: the table vs cuBLASLt, per model"
  "$bin" compare --vs-baseline "$final/${tag}_untuned_m_bench.csv" --models "$models" > "$final/${tag}_untuned_m_vs_cublaslt.txt" 2>&1
  sed -n '/^summary/,$p' "$final/${tag}_untuned_m_vs_cublaslt.txt" | tee -a "$summary"
  step "untuned M: the table vs the untuned default, per model"
  "$bin" compare --interleaved "$final/${tag}_untuned_m_bench.csv" --models "$models" > "$final/${tag}_untuned_m_vs_default.txt" 2>&1
  sed -n '/^summary/,$p' "$final/${tag}_untuned_m_vs_default.txt" | tee -a "$summary"
fi
pack
