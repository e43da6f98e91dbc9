#!/usr/bin/env bash
# Session 49, call 6 (issue #13, decode at M = 64): per-CTA %globaltimer stamps (call6_stamps_probe.diff, a probe build
# of gemm_dev, not committed) of the stream read and of two rows at 64 x 2112 x 7168: the two-CTA split-K row and the
# k-group row (33 CTAs): where the ~5.6 us between the GEMM and one read of its 15 MB go. Each probe: the last of five
# back-to-back launches after a spin, twice.
set -u
O=/tmp/s49c6; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
xz -dc .carry/gemm_dev_probe.xz > $O/gemm_dev; chmod +x $O/gemm_dev
for row in wgmma_m64_n64_k128_st4_w8_sk4 wgmmak_m64_n64_k128_st8_w20_sk1 wgmma_m64_n64_k128_st8_w8_sk4; do
  timeout -s KILL 60 $O/gemm_dev --iters 60 --filter $row --probe $row --no-blaslt --shapes "64,2112,7168" > $O/$row.log 2>&1
  echo "== $row rc=$?"; grep -E "calib|probe|^    |$row" $O/$row.log | grep -v "^== "
done
timeout -s KILL 60 $O/gemm_dev --iters 60 --filter mmad_m8_n16_k128_st8_w8 --probe none --no-blaslt --shapes "8,2112,7168" > $O/mmad.log 2>&1
echo "== mmad (stream only) rc=$?"; grep -E "calib|probe|^    |mmad" $O/mmad.log
tar czf $OUT/s49c6.tgz --exclude=gemm_dev -C /tmp s49c6
