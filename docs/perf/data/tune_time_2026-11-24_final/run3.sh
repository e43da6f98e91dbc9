#!/usr/bin/env bash
# session 15, call 9: where the block-scale grid's prepare phase goes (debug log of each shape's prepare)
set -u
bash scripts/unpack_carry.sh >/dev/null
nproc
/usr/bin/time -v .carry/cktune tune -v -i configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv --device gpu -o /tmp/t.csv > /tmp/out.txt 2> /tmp/err.txt; echo rc=$?
grep -E "Elapsed|Maximum resident|Percent of CPU" /tmp/err.txt
grep -o "prepare [0-9x]*: .*" /tmp/err.txt > $OUT/prepare.txt; wc -l $OUT/prepare.txt
python3 - <<'PY'
import re,os
tot={}
for l in open(os.environ['OUT']+'/prepare.txt'):
    for k,v in re.findall(r'(blaslt plan|inputs|device buffers \(\d+ sets\)|reference|copies still running) ([0-9.]+) ms', l):
        k=re.sub(r' \(\d+ sets\)','',k); tot[k]=tot.get(k,0)+float(v)
print({k:round(v/1000,2) for k,v in tot.items()})
PY
tail -3 /tmp/out.txt
