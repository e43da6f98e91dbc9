#!/bin/bash
# report.html renders in a headless browser: Debian's chromium takes a screenshot of the report made
# from the bundled results pair, and the PNG must exist, be of a real size and not be blank.
# Skips (exit 0 with a message) when chromium is not installed; scripts/install_deps.sh installs it.
# Usage: report_render.sh <cktune-binary> <tests/data>
set -u
bin=$1
data=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "report_render.sh: skipped: chromium is not installed (scripts/install_deps.sh installs it)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
r=$data/results
"$bin" -q report --before "$r/a8w8_blockscale_before.csv" --after "$r/a8w8_blockscale_after.csv" \
  --tuned "$r/a8w8_blockscale_tuned_gemm.csv" --html "$tmp/report.html" -o "$tmp/report.md" \
  || fail "report exited $?"
png=${CKTUNE_SCREENSHOT:-$tmp/report.png}
# No network, no profile, no GPU: the page is self-contained, so nothing may be fetched.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
  --user-data-dir="$tmp/profile" --screenshot="$png" --window-size=1280,2000 \
  "file://$tmp/report.html" >"$tmp/chromium.log" 2>&1 || fail "chromium exited $?: $(tail -5 "$tmp/chromium.log")"
[ -s "$png" ] || fail "no screenshot written: $(tail -5 "$tmp/chromium.log")"
python3 - "$png" <<'PY' || fail "screenshot looks blank or broken"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
assert len(data) > 30_000, f"only {len(data)} bytes"
# Decode the PNG (8-bit RGB/RGBA, the only kinds chromium writes) and count colours and ink.
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours, ink = set(), 0
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        for x in range(0, w, 4):
            px = bytes(line[x * bpp:x * bpp + 3])
            colours.add(px)
            if sum(px) < 600: ink += 1
print(f"screenshot {w}x{h}, {len(data)} bytes, {len(colours)} colours sampled, {ink} dark samples")
assert w == 1280 and h == 2000, (w, h)
assert len(colours) >= 20, f"only {len(colours)} distinct colours"
assert ink > 2000, f"almost nothing drawn ({ink} dark samples)"
PY
echo "report_render.sh: ok"
