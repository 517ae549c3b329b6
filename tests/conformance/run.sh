#!/usr/bin/env bash
# Run tokio's own integration tests against tokiwa. See README.md here.
#   tests/conformance/run.sh [--against-tokio] [--check|--update] [--include-pending] [FILE...]
set -euo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/run.py" "$@"
