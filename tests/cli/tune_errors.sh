#!/usr/bin/env bash
# cktune tune: bad input gives a clear error, a non-zero exit, and no output (table or sidecar) left behind.
# Usage: tune_errors.sh <cktune-binary> <tests/data>
set -euo pipefail
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$T"
printf 'M,N,K\n1,128,256\n4,256,512\n' >a8w8_blockscale_untuned_gemm.csv

# expect NAME WANT_RC PATTERN ARGS...: tune ARGS -o out_NAME.csv exits WANT_RC ("nz" = any non-zero) with
# PATTERN on stderr, and leaves neither the table nor its sidecars.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 3
  local rc=0
  "$BIN" tune "$@" -o "out_$name.csv" --iters 3 --warmup 1 --no-progress >"$name.out" 2>"$name.err" || rc=$?
  if [ "$want" = nz ]; then
    [ "$rc" -ne 0 ] || fail "$name: exit 0, want non-zero"
  else
    [ "$rc" -eq "$want" ] || fail "$name: exit $rc, want $want"
  fi
  grep -qF -- "$pattern" "$name.err" || fail "$name: stderr lacks '$pattern': $(cat "$name.err")"
  local left
  left=$(ls -d out_"$name".csv* 2>/dev/null || true)
  [ -z "$left" ] || fail "$name: left behind: $left"
  true
}

expect missing_input 2 "nope.csv" -i nope.csv
printf 'M,N,K\n1,128,256\n4,x256,512\n' >bad_cell.csv
expect non_numeric 1 "bad_cell.csv:3:2: N must be a whole number, got 'x256'" -i bad_cell.csv --family a8w8_blockscale
printf 'M,N,K\n1,128,256\n0,256,512\n' >zero.csv
expect zero_size 1 "zero.csv:3:1: M must be positive" -i zero.csv --family a8w8_blockscale
printf 'A,B\n1,2\n' >nofamily.csv
expect no_family 1 "nofamily.csv:1" -i nofamily.csv
expect unknown_family 1 "unknown family 'foo'" -i a8w8_blockscale_untuned_gemm.csv --family foo
expect shard_zero 1 "bad --shard '0/2'" -i a8w8_blockscale_untuned_gemm.csv --shard 0/2
expect shard_text 1 "bad --shard 'x'" -i a8w8_blockscale_untuned_gemm.csv --shard x
expect fault_kind 1 "bad --inject-fault item 'foo@x'" -i a8w8_blockscale_untuned_gemm.csv --inject-fault foo@x
expect fault_empty 1 "bad --inject-fault item 'hang@'" -i a8w8_blockscale_untuned_gemm.csv --inject-fault hang@
expect fault_name 1 "--inject-fault names 'no_such_kernel'" -i a8w8_blockscale_untuned_gemm.csv \
  --inject-fault hang@no_such_kernel
expect no_candidate 1 "no a8w8_blockscale candidate" -i a8w8_blockscale_untuned_gemm.csv --kernels no_such_kernel
expect bad_regex 1 "not a valid regular expression" -i a8w8_blockscale_untuned_gemm.csv --kernels '('
expect bad_device 2 "--device" -i a8w8_blockscale_untuned_gemm.csv --device tpu
expect gpus_on_cpu 1 "--gpus needs --device gpu" -i a8w8_blockscale_untuned_gemm.csv --gpus 0

# An existing output of another family is refused and left as it was.
printf 'gfx,cu_num,token,model_dim\ncpu,2,1,2\n' >other.csv
cp other.csv other_before.csv
rc=0
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o other.csv --iters 3 --warmup 1 >/dev/null 2>other.err || rc=$?
[ "$rc" -eq 1 ] || fail "output of another family: exit $rc, want 1"
grep -q "other.csv:1" other.err || fail "output of another family: error does not name other.csv:1: $(cat other.err)"
cmp -s other.csv other_before.csv || fail "output of another family was modified"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "tune_errors: ok"
