#!/usr/bin/env bash
# The tokio_unstable tour (src/main.rs) on crates.io tokio 1.54.1 and on
# tokiwa, each driver: fails if any line tokiwa prints differs from tokio's.
#
#   whole-graph/unstable-tour/compare.sh      (CARGO_TARGET_DIR: tokiwa's build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
graph=$(dirname "$here")
export RUSTFLAGS="--cfg tokio_unstable"
tokiwa_target=$(realpath -m "${CARGO_TARGET_DIR:-$graph/target/console}")
tokio_target=$graph/target/tour-tokio
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

(cd "$here/on-tokio" && CARGO_TARGET_DIR=$tokio_target cargo build --locked -q)
(cd "$graph" && CARGO_TARGET_DIR=$tokiwa_target cargo build --locked -q -p tokiwa-unstable-tour)

"$tokio_target/debug/unstable-tour" > "$out/tokio.txt"
echo "tokio 1.54.1:"
sed 's/^/  /' "$out/tokio.txt"
status=0
for driver in legacy uring; do
  TOKIWA_DRIVER=$driver "$tokiwa_target/debug/unstable-tour" > "$out/$driver.txt"
  if diff -u "$out/tokio.txt" "$out/$driver.txt"; then
    echo "tokiwa ($driver): all $(wc -l < "$out/$driver.txt") lines as tokio's"
  else
    echo "tokiwa ($driver): differs from tokio (above)"
    status=1
  fi
done
rm -rf "$tokio_target"
exit $status
