# What issue #13's "tuned >= 1.25x cuBLASLt over the grid" needs, from a tune profile (-o2 CSV): the grid's
# tuned/cuBLASLt geomean if decode shapes (M <= 128) ran at x times one streaming read of their weights (the
# calibrations of docs/perf.md, 2026-11-25, M = 1; scaled by the activation and output bytes at larger M) and
# the shapes M >= 256 ran f times faster than cktune's best instance today. Each shape keeps the faster of that
# and cuBLASLt (the tuner's choice). Usage: python3 what_125_needs.py profile.csv[.gz]
import csv, gzip, math, sys

STREAM_US = {(2112, 7168): 8.03, (4096, 7168): 11.42, (7168, 2048): 7.94, (7168, 16384): 31.78,
             (24576, 1536): 13.44, (32768, 512): 8.38}
path = sys.argv[1]
own, bl = {}, {}
for r in csv.DictReader((gzip.open if path.endswith('.gz') else open)(path, 'rt')):
    if r['role'] != 'candidate' or r['verdict'] != 'passed' or not r['us']:
        continue
    k = (int(r['M']), int(r['N']), int(r['K']))
    d = bl if r['kernelName'].startswith('blaslt') else own
    d[k] = min(d.get(k, math.inf), float(r['us']))

def tuned_vs_cublaslt(x=None, f=1.0):
    logs = []
    for (M, N, K), o in own.items():
        b = bl[(M, N, K)]
        if M <= 128 and x is not None:
            o = min(o, x * STREAM_US[(N, K)] * (1 + (M * K + 2 * M * N) / (N * K)))
        elif M > 128:
            o = o / f
        logs.append(math.log(b / min(o, b)))
    return math.exp(sum(logs) / len(logs))

def solve(fn, lo=1.0, hi=3.0):
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if fn(mid) >= 1.25 else (mid, hi)
    return hi

print(f"today: {tuned_vs_cublaslt():.3f}x")
print(f"decode at 1.15x one weight read (issue #13's decode target), the rest as today: {tuned_vs_cublaslt(1.15):.3f}x")
print(f"decode at exactly one weight read, the rest as today: {tuned_vs_cublaslt(1.0):.3f}x")
f = solve(lambda f: tuned_vs_cublaslt(1.15, f))
print(f"with decode at 1.15x, 1.25x needs the shapes M >= 256 {f:.3f}x faster than today's best instance")
big = (8192, 7168, 16384)
print(f"  e.g. {big}: {own[big]:.0f} us today -> {own[big] / f:.0f} us "
      f"({2 * big[0] * big[1] * big[2] / (own[big] / f) / 1e9:.2f} PFLOP/s; cuBLASLt {bl[big]:.0f} us in the same run)")
