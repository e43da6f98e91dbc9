#!/usr/bin/env bash
# Session 54, call 6 (issue #13): call 5's binaries (the kept commits) on another board: the 48-shape grid tuned once
# (tune time, first timing), then benched with its table (vs cuBLASLt in the same run; tune/bench agreement).
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
O=/tmp/s54c6; mkdir -p $O; B=.carry/cktune; g=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
timeout 150 $B tune -i $g -o $O/tuned.csv -o2 $O/profile.csv --device gpu --json > $O/tune.json 2> $O/tune.err
echo "tune rc=$?"; tail -2 $O/tune.err
python3 -c "import json; d=json.load(open('$O/tune.json')); print('tune s', round(d['seconds'],1), 'first', round(d['first_timing_s'],2), d['candidate_results'], {k: round(v,1) for k,v in d['phases_s'].items()})"
timeout 100 $B bench -i $g --config $O/tuned.csv --device gpu -o $O/after.csv > $O/bench.txt 2> $O/bench.err; echo "bench rc=$?"
$B compare --vs-baseline $O/after.csv --json > $O/vs_blaslt.json 2>/dev/null
python3 -c "import json; d=json.load(open('$O/vs_blaslt.json')); print('vs cuBLASLt', round(d['summary']['geomean'],3), {k: round(v['geomean'],3) for k,v in d['by_class'].items()})"
$B report --after $O/after.csv --tuned $O/tuned.csv -o $O/report.md > /dev/null 2>&1
awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' $O/report.md | head -5
rm -rf $O/*.cktune; (cd /tmp && tar czf "$OUT/s54c6.tgz" s54c6)
