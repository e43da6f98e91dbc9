#!/usr/bin/env bash
# Session 25, call 4: the stage release of the multicast kernel, arrival on the other CTA's barrier with the
# default release semantics (gemm_dev.xz) against a relaxed arrival (gemm_dev_relaxed.xz): memory barriers in the
# SASS of the 128x128 st5 W-multicast kernel, and times at three shapes (every wgmmap2 row, no cuBLASLt).
set -u
for b in gemm_dev gemm_dev_relaxed; do
  xz -dc .carryab/$b.xz > /tmp/$b; chmod +x /tmp/$b
  cuobjdump -sass /tmp/$b | awk '/Function :/{f=($0 ~ /Li128ELi128ELi5ELb1ELNS1_7ScalingE0ELi1ELb0ELi1EE/)} f' > /tmp/$b.sass
  echo "$b: $(wc -l < /tmp/$b.sass) lines; $(grep -oE '(MEMBAR|FENCE|SYNCS)[A-Z_.0-9]*' /tmp/$b.sass | sort | uniq -c | tr '\n' ' ')"
done
for r in 1 2; do for b in gemm_dev gemm_dev_relaxed; do
  timeout -s KILL 100 /tmp/$b --iters 20 --filter wgmmap2 --no-blaslt --shapes "${SH:-4096,4096,7168;8192,7168,16384;4100,7168,2048;1024,7168,16384}" > $OUT/$b.$r.log 2>&1
  echo "$b round $r rc=$? wrong: $(grep -ciE 'wrong|fail|error' $OUT/$b.$r.log)"
  grep -E '^==|wgmmap2_m128_n128_k128_st[456]|wgmmap2m' $OUT/$b.$r.log | awk '{printf "%s %s | ", $1, $2} /^==/{print ""}'; echo
done; done
