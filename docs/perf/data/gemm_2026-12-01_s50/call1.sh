#!/usr/bin/env bash
# Session 50, call 1 (issue #13): the wgmma grid kernel's entry (the producer thread initialises the ring and asks for
# its first stages before the CTA's first barrier), the split cluster barrier waited for under the first k-block's
# wgmma, and the split epilogue's sums shared by all of the CTA's consumer threads with staged 16-byte stores
# (s50a) against 661128a's kernels (push: session 49's "push" build), ABAB, every wgmma-family instance verified;
# M = 16...256 on the grid's six (N, K) and five prefill shapes. Then per-CTA stamps of s50a's kernels (s50p: the
# probe of call1_stamps_probe.diff) at 64 x 2112 x 7168 for three rows.
set -u
O=/tmp/s50c1; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in push s50a s50p; do xz -dc .carry/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128 256; do shapes+="$m,$nk;"; done
done
shapes+="2048,2112,7168;4096,7168,2048;512,7168,16384;4096,2112,7168;1024,4096,7168"
for r in 1 2; do for b in push s50a; do
  s=$(date +%s)
  timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
for row in wgmma_m64_n64_k128_st4_w8_sk4 wgmmak_m64_n64_k128_st8_w20_sk2 wgmmak_m64_n64_k128_st8_w20_sk1; do
  timeout -s KILL 60 $O/gemm_dev_s50p --iters 60 --filter $row --probe $row --no-blaslt --shapes "64,2112,7168" > $O/probe_$row.log 2>&1
  echo "== probe $row rc=$?"; grep -E "probe\]|^    |$row " $O/probe_$row.log
done
tar czf $OUT/s50c1.tgz --exclude='gemm_dev_*' -C /tmp s50c1
