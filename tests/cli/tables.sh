#!/usr/bin/env bash
# Every AITER table in tests/data/aiter-configs is read by the binary without an input error: `merge --check`
# exits 0 (clean) or 3 (findings), never 1 (unreadable) or anything else; merging a file with itself alone
# reproduces it byte for byte (tuned tables) in AITER's order when --keep-order is given.
# Usage: tables.sh <cktune-binary> <tests/data>
set -u
BIN=$1
DATA=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
n=0
while IFS= read -r f; do
  n=$((n + 1))
  "$BIN" merge --check "$f" >/dev/null 2>"$T/err"
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
    echo "FAIL: $f: merge --check exit $rc: $(head -3 "$T/err")"
    fails=$((fails + 1))
  fi
done < <(find "$DATA/aiter-configs" -name '*.csv' | sort)
[ "$n" -ge 100 ] || { echo "FAIL: only $n fixture tables found"; fails=$((fails + 1)); }

# A duplicate-free tuned table written back through merge --keep-order is byte-identical.
for f in a8w8_tuned_gemm.csv a8w8_tuned_batched_gemm.csv model_configs/glm5_mxfp8_tuned_fmoe.csv; do
  name=$(basename "$f")
  "$BIN" merge --keep-order "$DATA/aiter-configs/$f" -o "$T/$name" 2>"$T/err"
  rc=$?
  if [ $rc -ne 0 ] || ! cmp -s "$DATA/aiter-configs/$f" "$T/$name"; then
    echo "FAIL: $f: merge --keep-order did not reproduce the table (exit $rc): $(head -3 "$T/err")"
    fails=$((fails + 1))
  fi
done

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "tables.sh: $n tables read"
