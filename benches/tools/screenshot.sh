#!/usr/bin/env bash
# Renders the bench's HTML report to a PNG with headless Chromium, to look at
# it as a reader would (the bench itself never needs a browser).
#
#   benches/tools/screenshot.sh [REPORT.html] [OUT.png]
#
# Defaults: target/tokiwa-bench/report.html -> target/tokiwa-bench/report.png.
# Installs Debian's chromium when it is missing and this runs as root.
set -euo pipefail
cd "$(dirname "$0")/../.."
html=${1:-target/tokiwa-bench/report.html}
png=${2:-${html%.html}.png}
[ -f "$html" ] || { echo "no $html: run the bench first (cargo run --release -p tokiwa-benches -- --quick)" >&2; exit 1; }
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
  else
    echo "chromium is missing: sudo apt-get install chromium" >&2
    exit 1
  fi
fi
# The page is 1140 px wide; a tall window shows it whole.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --window-size="${WIDTH:-1200},${HEIGHT:-3000}" \
  --screenshot="$(realpath -m "$png")" "file://$(realpath "$html")"
echo "$png"
