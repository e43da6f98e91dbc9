#!/usr/bin/env bash
# cktune tune --shard I/N and cktune merge: the shards are disjoint, cover every key, are the same when
# selected twice, and merged they hold exactly the key set of a single run (kernels may differ by timing
# noise, so key sets are compared). This is the path docs/cluster.md's Slurm and Kubernetes recipes use.
# Usage: tune_shard.sh <cktune-binary> <tests/data>
set -euo pipefail
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$T"

printf 'M,N,K\n1,128,256\n2,256,512\n4,128,1024\n8,384,256\n16,128,512\n32,256,256\n64,128,256\n128,128,128\n' \
  >a8w8_blockscale_untuned_gemm.csv
awk -F, 'NR > 1 { print $1","$2","$3 }' a8w8_blockscale_untuned_gemm.csv | sort >want.txt
ARGS=(--iters 3 --warmup 1 --kernels _t1 --no-progress)
keys_of() { awk -F, 'NR > 1 { print $3","$4","$5 }' "$1" | sort; }

"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o single.csv "${ARGS[@]}" >/dev/null 2>single.err ||
  fail "single run failed: $(tail -3 single.err)"
keys_of single.csv >single_keys.txt
diff -q want.txt single_keys.txt >/dev/null || fail "single run key set differs from the untuned keys"

for i in 1 2 3; do
  "$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o "shard_$i.csv" --shard "$i/3" "${ARGS[@]}" >"shard_$i.out" \
    2>"shard_$i.err" || fail "shard $i/3 failed: $(tail -3 "shard_$i.err")"
  keys_of "shard_$i.csv" >"keys_$i.txt"
  [ -s "keys_$i.txt" ] || fail "shard $i/3 is empty (8 keys over 3 shards)"
  # The summary counts only this shard's keys.
  n=$(wc -l <"keys_$i.txt")
  grep -q "tuned $n of $n shapes" "shard_$i.out" || fail "shard $i/3 summary: $(head -1 "shard_$i.out"), want $n of $n"
done
# Disjoint and covering.
cat keys_1.txt keys_2.txt keys_3.txt | sort >union.txt
[ -z "$(uniq -d union.txt)" ] || fail "shards overlap: $(uniq -d union.txt | tr '\n' ' ')"
diff -q want.txt union.txt >/dev/null || fail "shards do not cover the keys: $(diff want.txt union.txt | tr '\n' ' ')"

# Deterministic: the same selection again (fresh outputs; a sidecar journal must not matter).
for i in 1 2 3; do
  "$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o "again_$i.csv" --shard "$i/3" "${ARGS[@]}" >/dev/null 2>&1 ||
    fail "shard $i/3 (second time) failed"
  keys_of "again_$i.csv" | diff -q - "keys_$i.txt" >/dev/null || fail "shard $i/3 selected other keys the second time"
done

# Merge the shards: exactly the single run's key set, no duplicates, and --check is clean. The blockscale header
# fits its bpreshuffle twin too, and these names say neither: the shards' provenance sidecars name the family, and
# the merge writes one for its output that does too.
"$BIN" merge shard_1.csv shard_2.csv shard_3.csv -o merged.csv >merge.out 2>merge.err ||
  fail "merge failed: $(cat merge.err)"
grep -q "shard_1.csv: family a8w8_blockscale from shard_1.csv.provenance.json" merge.err ||
  fail "merge does not say where the family came from: $(cat merge.err)"
grep -q '"status": "merged"' merged.csv.provenance.json || fail "no provenance sidecar of the merged table"
for i in 1 2 3; do
  grep -q "\"table\": \"$T/shard_$i.csv\"" merged.csv.provenance.json ||
    fail "the merged table's provenance does not list shard_$i.csv"
done
grep -q '"shard": "2/3"' merged.csv.provenance.json || fail "the merged provenance lacks the shards' own provenance"
keys_of merged.csv >merged_keys.txt
diff -q single_keys.txt merged_keys.txt >/dev/null ||
  fail "merged key set differs from the single run: $(diff single_keys.txt merged_keys.txt | tr '\n' ' ')"
[ -z "$(uniq -d merged_keys.txt)" ] || fail "merged table has duplicate keys"
rc=0
"$BIN" merge --check merged.csv >check.out 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "merge --check of the merged table exited $rc: $(cat check.out)"
# Same header as a single run's table (AITER layout).
[ "$(head -1 merged.csv)" = "$(head -1 single.csv)" ] || fail "merged header differs: $(head -1 merged.csv)"

# Sidecars are not *.csv files, so a glob over the output folder only sees tables.
for f in $(ls *.csv); do
  case "$f" in single.csv | shard_?.csv | again_?.csv | merged.csv | a8w8_blockscale_untuned_gemm.csv) ;;
  *) fail "unexpected *.csv next to the tables: $f" ;; esac
done
[ -f shard_1.csv.provenance.json ] || fail "no provenance sidecar"
[ -f shard_1.csv.cktune/untuned.csv ] || fail "no copy of the untuned input in the sidecar folder"
grep -q '"shard": "1/3"' shard_1.csv.provenance.json || fail "provenance does not record the shard"

# Bad shard specs are refused.
for bad in 0/2 3/2 2 a/b 1/0; do
  rc=0
  "$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o bad.csv --shard "$bad" "${ARGS[@]}" >/dev/null 2>bad.err || rc=$?
  [ "$rc" -ne 0 ] || fail "--shard $bad: exit 0"
  grep -q "bad --shard" bad.err || fail "--shard $bad: error does not name --shard: $(cat bad.err)"
  [ ! -e bad.csv ] || fail "--shard $bad: an output was written"
done

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "tune_shard: ok"
