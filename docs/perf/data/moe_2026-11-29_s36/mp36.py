#!/usr/bin/env python3
"""Session 36: --mp 1 against --mp 2 per family (mp36.sh's output directory): wall time, first result, scaling
efficiency T1 / (2 T2), and whether the two runs picked the same winners (where not: the two winners' tuned times).
Usage: mp36.py DIR"""
import csv, json, math, sys

d = sys.argv[1]
for fam, key, name in (("gemm", ("M", "N", "K"), ("kernelName",)),
                       ("moe", ("token",), ("kernelName1", "kernelName2"))):
    js = {}
    for mp in (1, 2):
        try:
            js[mp] = json.load(open(f"{d}/tune_{fam}_mp{mp}.json"))
        except Exception as e:
            print(f"{fam} --mp {mp}: no JSON summary ({e})")
    for mp, j in sorted(js.items()):
        print(f"{fam} --mp {mp}: tuned {j['tuned']}/{j['shapes']}, {j['candidate_results']} candidate results, "
              f"{j['seconds']:.1f} s, first result {j['first_timing_s']:.2f} s")
    if len(js) == 2:
        t1, t2 = js[1]["seconds"], js[2]["seconds"]
        print(f"{fam}: speed-up {t1 / t2:.2f}x on 2 GPUs, scaling efficiency {t1 / (2 * t2):.2f}")
    try:
        tabs = {mp: {tuple(r[k] for k in key): r for r in csv.DictReader(open(f"{d}/tuned_{fam}_mp{mp}.csv"))}
                for mp in (1, 2)}
    except FileNotFoundError as e:
        print(f"{fam}: {e}")
        continue
    same, diff = 0, []
    for k in sorted(tabs[1], key=lambda k: tuple(int(x) for x in k)):
        a, b = tabs[1][k], tabs[2].get(k)
        if b is None:
            diff.append((k, "missing in --mp 2", float("nan")))
            continue
        na, nb = "+".join(a[n] for n in name), "+".join(b[n] for n in name)
        if na == nb:
            same += 1
        else:
            diff.append((k, f"{na} {float(a['us']):.2f} us | {nb} {float(b['us']):.2f} us", float(b["us"]) / float(a["us"])))
    print(f"{fam}: same winner on {same} of {len(tabs[1])} shapes")
    for k, s, r in diff:
        print(f"  {','.join(k)}: --mp 1 / --mp 2: {s} (ratio {r:.3f})")
    rs = [r for _, _, r in diff if not math.isnan(r)]
    ratios = [float(tabs[2][k]["us"]) / float(tabs[1][k]["us"]) for k in tabs[1] if k in tabs[2]]
    if ratios:
        g = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"{fam}: tuned time --mp 2 / --mp 1, geomean over all shapes {g:.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")
