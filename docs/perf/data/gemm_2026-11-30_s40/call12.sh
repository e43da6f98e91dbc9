#!/usr/bin/env bash
# Session 40, call 12: the clock note in `bench` too (and again in `tune` after the refactor): call 9's four shapes
# tuned with the defaults, then benched against the default. .carryz: cktune.xz (HEAD; call 13: 1d7623e, the provenance naming the reasons).
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/clk42; mkdir -p $O
printf 'M,N,K\n8192,7168,16384\n4096,7168,16384\n8192,24576,1536\n8192,4096,7168\n' > $O/g.csv
.carry/cktune tune -i $O/g.csv -o $O/t.csv --device gpu --no-progress --kernels 'wgmmap2_m128_n128_k128_st4_w12_sk1|blaslt' > $O/tune.log 2>&1
echo "tune rc=$?"; grep "clocks:" $O/tune.log; python3 -c "import json; print(json.load(open('$O/t.csv.provenance.json')).get('clocks'))"
.carry/cktune bench -i $O/g.csv --config $O/t.csv --against default --device gpu -o $O/b.csv > $O/bench.txt 2> $O/bench.log
echo "bench rc=$?"; grep "clocks:" $O/bench.log; tail -8 $O/bench.txt
tar czf $OUT/clk42.tgz -C /tmp clk42
