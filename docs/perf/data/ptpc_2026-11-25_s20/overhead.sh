#!/usr/bin/env bash
# Session 20: where the per-launch time goes beside the kernel itself. For a few per-token shapes, tune a few
# chosen candidates (ours and cuBLASLt) with the inputs rotated (default) and not (--rotate 1), and once more
# under nsys, whose kernel durations (no event overhead) set against tune's event medians give each kernel's
# launch overhead as the timing sees it.
set -u
bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/ov; cd /tmp/ov
printf 'M,N,K,q_dtype_w\n256,7168,2048,torch.float8_e4m3fn\n512,3072,1536,torch.float8_e4m3fn\n1,3072,1536,torch.float8_e4m3fn\n16,4096,512,torch.float8_e4m3fn\n' > s.csv
K='^pt_wgmmap2_m128_n128_k128_st5|^blaslt_h0$|^pt_wgmmas_m8_n64_k128_st16|^pt_wgmma2_m128_n128_k128_st4|^pt_wgmmas_m16_n64_k128_st16'
B=$OLDPWD/.carry/cktune
for r in 0 1; do
  $B tune -i s.csv --family a8w8 --device gpu --kernels "$K" --rotate $r -o t$r.csv -o2 p$r.csv --no-progress > l$r.txt 2>&1
  echo "rotate=$r rc=$?"
  python3 - p$r.csv <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['us']: print(f"  {r['M']:>4} {r['N']:>5} {r['K']:>5} {r['kernelName']:42s} {float(r['us']):8.2f} p10 {float(r['us_p10']):8.2f}")
PY
done
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}"
if [ -n "$NSYS" ]; then
  tail -n +2 s.csv | while read line; do
    tag=$(echo "$line" | cut -d, -f1-3 | tr , x)
    printf 'M,N,K,q_dtype_w\n%s\n' "$line" > one_$tag.csv
    timeout 120 $NSYS profile -o ns_$tag --force-overwrite true -t cuda $B tune -i one_$tag.csv --family a8w8 --device gpu \
      --kernels "$K" -o tn_$tag.csv -o2 pn_$tag.csv --no-progress > ln_$tag.txt 2>&1
    echo "nsys $tag rc=$?"
    $NSYS stats -r cuda_gpu_trace -f csv -o tr_$tag ns_$tag.nsys-rep > /dev/null 2>&1
    python3 - pn_$tag.csv tr_${tag}_cuda_gpu_trace.csv <<'PY'
import csv, sys, statistics, collections
ev = {r['kernelName']: float(r['us']) for r in csv.DictReader(open(sys.argv[1])) if r['us']}
d = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[2])):
    name = r.get('Name', '')
    dur = r.get('Duration (ns)') or r.get('Duration')
    if dur: d[name].append(float(dur) / 1000)
for name, v in sorted(d.items(), key=lambda x: -len(x[1])):
    if len(v) >= 20: print(f"    {len(v):5d} launches  median {statistics.median(v):8.2f} us  {name[:110]}")
for k, v in ev.items(): print(f"    tune (events) {k:42s} {v:8.2f}")
PY
  done
fi
tar czf $OUT/ov.tgz -C /tmp ov
