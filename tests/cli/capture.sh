#!/usr/bin/env bash
# CLI test for `cktune capture`: stdin, .gz, missing file, -o DIR with exact headers, --json against the
# fixture truth, sweeps, presets. Usage: capture.sh <cktune-binary> <tests/data>
set -euo pipefail
BIN=$1
DATA=$2
LOG=$DATA/logs/server_mixed.log
TRUTH=$DATA/logs/server_mixed.truth.json
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --json: stdout is only JSON, and its observed counts are the truth file's.
"$BIN" capture "$LOG" -o "$TMP/a" --json > "$TMP/a.json" 2> "$TMP/a.err"
python3 - "$TMP/a.json" "$TRUTH" <<'PY' || fail "--json does not reproduce the truth file"
import json, sys
out = json.load(open(sys.argv[1])); truth = json.load(open(sys.argv[2]))["families"]
observed = {name: fam["observed"] for name, fam in out["families"].items()}
assert observed == truth, "observed counts differ from the truth file"
for name, fam in out["families"].items():
    assert fam["unique_keys"] == len(truth[name]), name
    assert fam["file"].endswith(".csv"), name
PY

# Exact AITER headers and default file names.
declare -A HEADERS=(
  [a8w8_untuned_gemm.csv]="M,N,K,q_dtype_w"
  [a8w8_blockscale_untuned_gemm.csv]="M,N,K"
  [a8w8_blockscale_bpreshuffle_untuned_gemm.csv]="M,N,K"
  [a8w8_bpreshuffle_untuned_gemm.csv]="M,N,K,q_dtype_w"
  [a8w8_untuned_batched_gemm.csv]="B,M,N,K"
  [untuned_fmoe.csv]="token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1"
)
for f in "${!HEADERS[@]}"; do
  [ -f "$TMP/a/$f" ] || fail "missing $f"
  [ "$(head -1 "$TMP/a/$f")" = "${HEADERS[$f]}" ] || fail "$f header is $(head -1 "$TMP/a/$f")"
  [ "$(tail -n +2 "$TMP/a/$f" | sort | uniq -d | wc -l)" = 0 ] || fail "$f has duplicate rows"
done
[ "$(ls "$TMP/a" | wc -l)" = 6 ] || fail "expected 6 files, got: $(ls "$TMP/a")"
ls "$TMP/a" | grep -q tmp && fail "temporary file left behind"

# stdin and .gz give the same files.
"$BIN" capture - -o "$TMP/b" --json < "$LOG" > /dev/null
gzip -c "$LOG" > "$TMP/log.gz"
"$BIN" -q capture "$TMP/log.gz" -o "$TMP/c" > /dev/null
diff -r "$TMP/a" "$TMP/b" > /dev/null || fail "stdin output differs"
diff -r "$TMP/a" "$TMP/c" > /dev/null || fail ".gz output differs"

# Several logs add up: the same log twice doubles every count.
"$BIN" capture "$LOG" "$TMP/log.gz" -o "$TMP/d" --json > "$TMP/d.json"
python3 - "$TMP/d.json" "$TRUTH" <<'PY' || fail "two inputs do not add up"
import json, sys
out = json.load(open(sys.argv[1])); truth = json.load(open(sys.argv[2]))["families"]
for name, keys in truth.items():
    for key, sizes in keys.items():
        for size, n in sizes.items():
            assert out["families"][name]["observed"][key][size] == 2 * n, (name, key, size)
PY

# Missing file: exit 1, a clear message, no output files.
set +e
"$BIN" capture "$TMP/nope.log" -o "$TMP/e" > /dev/null 2> "$TMP/e.err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "missing file exit code $rc"
grep -q "nope.log" "$TMP/e.err" || fail "missing file not named: $(cat "$TMP/e.err")"
[ ! -e "$TMP/e" ] || fail "output written for a missing input"

# Sweeps: pow2 = 16 per key plus observed sizes; a bad sweep name is an error.
"$BIN" -q capture "$LOG" -o "$TMP/f" --m-sweep=pow2 --token-sweep > /dev/null
[ "$(tail -n +2 "$TMP/f/a8w8_blockscale_untuned_gemm.csv" | wc -l)" = $((5 * 23)) ] || fail "pow2 sweep row count"
[ "$(tail -n +2 "$TMP/f/untuned_fmoe.csv" | wc -l)" = 32 ] || fail "token sweep row count"
"$BIN" -q capture "$LOG" -o "$TMP/g" --m-sweep vllm > /dev/null
[ "$(tail -n +2 "$TMP/g/a8w8_bpreshuffle_untuned_gemm.csv" | wc -l)" = 72 ] || fail "vllm sweep row count"
if "$BIN" capture --m-sweep "$LOG" -o "$TMP/h" > /dev/null 2>&1; then fail "--m-sweep LOG accepted"; fi

# Model preset: DeepSeek-V3 at TP8 on gfx950 -> 6 block-FP8 GEMMs x 16 M, one MoE key x 16 tokens.
"$BIN" capture --model deepseek-r1 --tp 8 --arch gfx950 -o "$TMP/m" > "$TMP/m.txt"
[ "$(tail -n +2 "$TMP/m/a8w8_blockscale_untuned_gemm.csv" | wc -l)" = 96 ] || fail "preset GEMM rows"
grep -q '^1,2112,7168$' "$TMP/m/a8w8_blockscale_untuned_gemm.csv" || fail "preset lacks 2112,7168"
grep -q '^32768,7168,256,257,9,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float8_e4m3fn,QuantType.per_1x128,1,0$' \
  "$TMP/m/untuned_fmoe.csv" || fail "preset MoE row"
grep -q 'fused_qkv_a_proj_with_mqa' "$TMP/m.txt" || fail "preset summary lacks the layer table"

# --append merges into the preset files without duplicates.
"$BIN" -q capture "$LOG" -o "$TMP/m" --append > /dev/null
[ "$(tail -n +2 "$TMP/m/a8w8_blockscale_untuned_gemm.csv" | sort | uniq -d | wc -l)" = 0 ] || fail "--append duplicated rows"
grep -q '^3000,2112,7168$' "$TMP/m/a8w8_blockscale_untuned_gemm.csv" || fail "--append lost observed rows"
grep -q '^32768,2112,7168$' "$TMP/m/a8w8_blockscale_untuned_gemm.csv" || fail "--append lost preset rows"

# A HF config.json by path.
cat > "$TMP/config.json" <<'JSON'
{"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 4096, "num_attention_heads": 64,
 "num_key_value_heads": 4, "head_dim": 128, "moe_intermediate_size": 1536, "num_experts": 128,
 "num_experts_per_tok": 8, "hidden_act": "silu",
 "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}
JSON
"$BIN" capture --model-config "$TMP/config.json" --tp 4 -o "$TMP/q" --json > "$TMP/q.json"
grep -q '^1,2304,4096$' "$TMP/q/a8w8_blockscale_untuned_gemm.csv" || fail "config.json qkv row"
grep -q '^1,4096,384,128,8,' "$TMP/q/untuned_fmoe.csv" || fail "config.json MoE row"
# Inputs that are not logs: each an error (exit 1) that says what the file is and what to do, no output.
expect_reject() {  # FILE PATTERN
  set +e
  "$BIN" capture "$1" -o "$TMP/r" > "$TMP/r.out" 2> "$TMP/r.err"
  local rc=$?
  set -e
  [ "$rc" = 1 ] || fail "$1: exit $rc, expected 1"
  grep -q "$2" "$TMP/r.err" || fail "$1: message lacks '$2': $(cat "$TMP/r.err")"
  [ ! -e "$TMP/r" ] || fail "$1: output written"
}
expect_reject "$TMP/m/a8w8_blockscale_untuned_gemm.csv" "untuned a8w8_blockscale table already"
grep -q "cktune tune -i" "$TMP/r.err" || fail "untuned-table hint"
expect_reject "$TMP/m/untuned_fmoe.csv" "untuned moe_2stages table already"
expect_reject "$DATA/results/a8w8_blockscale_tuned_gemm.csv" "tuned a8w8_blockscale table"
expect_reject "$DATA/results/a8w8_blockscale_before.csv" "cktune results file"
printf 'ELF\x00\x01\x02binary' > "$TMP/blob.log"
expect_reject "$TMP/blob.log" "binary file"
# Text without a single AITER line: the error lists the line forms looked for.
printf 'INFO server started\nINFO 200 GET /health\n' > "$TMP/plain.log"
expect_reject "$TMP/plain.log" "no AITER shape line in"
grep -q "not found tuned config in" "$TMP/r.err" || fail "line forms not listed: $(cat "$TMP/r.err")"
grep -q "\[fused_moe\] using" "$TMP/r.err" || fail "MoE line form not listed"
# With a preset the same log is only a warning.
"$BIN" capture "$TMP/plain.log" --model deepseek-v3 --tp 8 -o "$TMP/pw" > /dev/null 2> "$TMP/pw.err" \
  || fail "plain log + preset should succeed: $(cat "$TMP/pw.err")"
grep -q "no AITER shape line" "$TMP/pw.err" || fail "plain log + preset: no warning"
echo "capture CLI: ok"
