#!/usr/bin/env bash
# Renders tessera-bench's HTML report in headless Chromium and checks that it shows its charts:
#   bench/test_report.sh [path/to/tessera-bench] [output dir]
# Runs a quick --sweep (tiny sizes, so the page has both bar charts and time-against-size
# lines), writes DIR/index.html, screenshots it to DIR/report.png, and checks the rendered DOM
# holds the SVG charts. Exits 77 (ctest: skipped) when Chromium is not installed.
set -euo pipefail
bench=${1:-build/bin/tessera-bench}
dir=${2:-$(mktemp -d)}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z $browser ]]; then
  echo "test_report: no chromium found (Debian: apt-get install chromium); skipped"
  exit 77
fi

# Cross builds: ctest names the emulator (qemu-aarch64) that runs the bench in TESSERA_TEST_EMULATOR.
${TESSERA_TEST_EMULATOR:-} "$bench" --sweep --size small --ops gemm,spmv,stencil --dtypes f32 --min-time 0.01 --reps 1 --report "$dir" >/dev/null

# --no-sandbox: CI containers run as root, where Chromium refuses its sandbox.
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,2000)
"$browser" "${flags[@]}" --screenshot="$dir/report.png" "file://$dir/index.html" 2>/dev/null
"$browser" "${flags[@]}" --dump-dom "file://$dir/index.html" 2>/dev/null >"$dir/dom.html"

size=$(stat -c %s "$dir/report.png")
svgs=$(grep -o '<svg' "$dir/dom.html" | wc -l)
bars=$(grep -o '<rect' "$dir/dom.html" | wc -l)
lines=$(grep -o '<polyline' "$dir/dom.html" | wc -l)
echo "test_report: $dir/report.png ($size bytes), $svgs charts, $bars bars, $lines lines"
# 3 ops: 3 bar charts + 3 series charts; the screenshot of a blank page is a few kB.
if ((size < 20000 || svgs < 6 || bars < 3 || lines < 3)); then
  echo "test_report: the page did not render its charts" >&2
  exit 1
fi
