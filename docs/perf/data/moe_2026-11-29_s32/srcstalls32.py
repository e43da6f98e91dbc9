#!/usr/bin/env python3
"""ncu's per-instruction source page (CSV, `--page source --print-source sass`) -> the instructions with the most
warp-stall samples: per instruction its SASS and every sample column that is not zero, and per column the total.
Column names differ between ncu versions, so every numeric column is kept as ncu names it.
Usage: srcstalls32.py SOURCE.csv [N]"""
import csv
import sys

path = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
lines = open(path, newline="").read().splitlines()
# ncu 2025.3 writes a "Kernel Name" line before the header: start at the header (the line naming "Address").
start = next((i for i, l in enumerate(lines) if l.startswith('"Address"') or l.startswith('"# Address"')), 0)
rows = list(csv.DictReader(lines[start:]))
if not rows:
    sys.exit(f"{path}: no rows (see the .err beside it)")


def num(v):
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return None


cols = [c for c in rows[0] if any(num(r.get(c)) not in (None, 0.0) for r in rows)]
sample_cols = [c for c in cols if "ampl" in c.lower() or "stall" in c.lower()]
text_col = next((c for c in rows[0] if c.lower() in ("source", "sass")), None)
key = next((c for c in sample_cols if "all" in c.lower()), sample_cols[0] if sample_cols else None)
if key is None:
    sys.exit(f"no sample columns among: {list(rows[0])}")
total = {c: sum(num(r.get(c)) or 0 for r in rows) for c in sample_cols}
print(f"{len(rows)} instructions; sorted by '{key}'. Totals: " +
      "; ".join(f"{c} {v:.0f}" for c, v in sorted(total.items(), key=lambda kv: -kv[1]) if v))
for r in sorted(rows, key=lambda r: -(num(r.get(key)) or 0))[:n]:
    parts = [f"{c}={num(r[c]):.0f}" for c in sample_cols if num(r.get(c))]
    print(f"{r.get('Address', r.get('# Address', '?'))}  {(r.get(text_col) or '').strip()[:70]:70}  " + " ".join(parts))
