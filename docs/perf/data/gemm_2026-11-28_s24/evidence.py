# Issue #13's evidence table from a tune profile (-o2 CSV): per shape cktune's best verified instance, the
# best cuBLASLt algorithm timed in the same run, vLLM's Triton kernel (docs/perf-targets figures, grid shapes
# only), TFLOP/s, and the share of the H200's floors reached: floor = max(2MNK / 1979e12, bytes / 4.8e12),
# bytes = M*K + N*K (fp8) + 2*M*N (bf16 out), as cktune report counts them (the scales, < 0.1% here, left
# out). Then the geometric means per size class (decode M <= 128, mid 256..1024,
# prefill >= 2048) of own/cuBLASLt, tuned (min of both)/cuBLASLt and own/vLLM.
# Usage: python3 evidence.py profile.csv[.gz] [grid|ragged]
import collections, csv, gzip, math, sys

VLLM = {  # (N, K) -> {M: us}, docs/perf-targets.md (H200, 2026-11-21)
    (2112, 7168): {1: 23.2, 16: 27.8, 64: 32.5, 128: 29.0, 512: 38.0, 1024: 56.4, 4096: 216.7, 8192: 408.9},
    (24576, 1536): {1: 16.5, 16: 15.4, 64: 17.7, 128: 26.4, 512: 68.7, 1024: 129.4, 4096: 484.4, 8192: 1024.1},
    (32768, 512): {1: 13.3, 16: 11.3, 64: 10.9, 128: 15.0, 512: 44.3, 1024: 79.6, 4096: 289.4, 8192: 590.3},
    (7168, 16384): {1: 55.5, 16: 52.9, 64: 60.8, 128: 72.7, 512: 192.4, 1024: 386.4, 4096: 1508.9, 8192: 3020.2},
    (4096, 7168): {1: 30.7, 16: 28.5, 64: 34.5, 128: 34.5, 512: 46.4, 1024: 88.5, 4096: 336.8, 8192: 708.3},
    (7168, 2048): {1: 11.7, 16: 13.3, 64: 13.8, 128: 14.1, 512: 31.1, 1024: 56.8, 4096: 186.4, 8192: 377.5},
}
PEAK_TFLOPS, PEAK_TBPS = 1979.0, 4.8

path = sys.argv[1]
rows = csv.DictReader((gzip.open if path.endswith('.gz') else open)(path, 'rt'))
own, bl = {}, {}
for r in rows:
    if r['role'] != 'candidate' or r['verdict'] != 'passed' or not r['us']:
        continue
    k = (int(r['M']), int(r['N']), int(r['K']))
    us = float(r['us'])
    d = bl if r['kernelName'].startswith('blaslt') else own
    if us < d.get(k, (math.inf, ''))[0]:
        d[k] = (us, r['kernelName'])

def cls(m):
    return 'decode' if m <= 128 else 'mid' if m <= 1024 else 'prefill'

g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
print('| M | N | K | own best µs | instance | cuBLASLt µs | vLLM Triton µs | own / cuBLASLt | own / vLLM | TFLOP/s (own) '
      '| floor µs | bound | % of floor (own) | % of floor (cuBLASLt) |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
by = collections.defaultdict(lambda: collections.defaultdict(list))
for k in sorted(own, key=lambda k: (k[1], k[2], k[0])):
    if k not in bl:
        continue
    M, N, K = k
    o, name = own[k]
    b = bl[k][0]
    v = VLLM.get((N, K), {}).get(M)
    flop_us = 2.0 * M * N * K / (PEAK_TFLOPS * 1e6)
    byte_us = (M * K + N * K + 2 * M * N) / (PEAK_TBPS * 1e6)
    floor = max(flop_us, byte_us)
    print(f"| {M} | {N} | {K} | {o:.1f} | `{name}` | {b:.1f} | {v if v else '—'} | {b / o:.3f}× | "
          f"{f'{v / o:.2f}×' if v else '—'} | {2.0 * M * N * K / (o * 1e6):.0f} | {floor:.1f} | "
          f"{'memory' if byte_us >= flop_us else 'compute'} | {100 * floor / o:.0f}% | {100 * floor / b:.0f}% |")
    for c in (cls(M), 'all'):
        by[c]['own'].append(b / o)
        by[c]['tuned'].append(b / min(o, b))
        by[c]['floor_own'].append(floor / o)
        by[c]['floor_bl'].append(floor / b)
        if v:
            by[c]['vllm'].append(v / o)
print()
print('| class | shapes | own / cuBLASLt | tuned / cuBLASLt | own / vLLM Triton | % of floor, own | % of floor, cuBLASLt |')
print('|---|---|---|---|---|---|---|')
for c in ('decode', 'mid', 'prefill', 'all'):
    d = by[c]
    if not d['own']:
        continue
    vl = f"{g(d['vllm']):.2f}× ({len(d['vllm'])})" if d['vllm'] else '—'
    print(f"| {c} | {len(d['own'])} | {g(d['own']):.3f}× | {g(d['tuned']):.3f}× | {vl} | "
          f"{100 * g(d['floor_own']):.0f}% | {100 * g(d['floor_bl']):.0f}% |")
