#!/bin/sh
# Tests whole-graph/check-patch.sh on two throw-away workspaces that patch
# tokio with this repository's whole-graph package:
#
# * `applies`: a crate depends on `tokio = "1"`; the patch applies, the
#   check passes;
# * `pinned`: another crate pins `tokio = "=1.40.0"`; Cargo drops the patch
#   (crates.io tokio 1.40.0 is resolved instead, the patch goes under
#   `[[patch.unused]]`), and the check must fail and name the pinning crate
#   and its requirement.
#
#     sh whole-graph/tests/check-patch-test.sh
#
# The second case resolves crates.io tokio 1.40.0, so it needs the network
# (or a registry cache that has it).
set -u

here=$(cd "$(dirname "$0")" && pwd)
check="$here/../check-patch.sh"
patch_dir=$(cd "$here/../tokio" && pwd)
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
failures=0

# A library package named $2 in workspace $1, depending on tokio as $3.
package() {
    mkdir -p "$1/$2/src"
    cat >"$1/$2/Cargo.toml" <<TOML
[package]
name = "$2"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
tokio = $3
TOML
    : >"$1/$2/src/lib.rs"
}

# A workspace $1 with members $2..., patching tokio with this repository's.
workspace() {
    ws=$1
    shift
    mkdir -p "$ws"
    members=""
    for m in "$@"; do members="$members\"$m\", "; done
    cat >"$ws/Cargo.toml" <<TOML
[workspace]
members = [$members]
resolver = "2"

[patch.crates-io]
tokio = { path = "$patch_dir" }
TOML
}

expect() {
    if "$@"; then :; else
        echo "FAIL: $CASE: $DESCRIPTION" >&2
        failures=$((failures + 1))
    fi
}

# --- The patch applies ---
CASE=applies
workspace "$work/applies" app
package "$work/applies" app '"1"'
sh "$check" "$work/applies" >"$work/applies.out" 2>"$work/applies.err"
status=$?
DESCRIPTION="exit status 0 (got $status)"; expect [ "$status" -eq 0 ]
DESCRIPTION="says ok"; expect grep -q "check-patch: ok" "$work/applies.out"
DESCRIPTION="no [[patch.unused]] in Cargo.lock"; expect sh -c "! grep -q 'patch.unused' '$work/applies/Cargo.lock'"

# --- A pin makes Cargo drop the patch ---
CASE=pinned
workspace "$work/pinned" app pinned
package "$work/pinned" app '"1"'
package "$work/pinned" pinned '"=1.40.0"'
sh "$check" "$work/pinned" >"$work/pinned.out" 2>"$work/pinned.err"
status=$?
DESCRIPTION="exit status 1 (got $status)"; expect [ "$status" -eq 1 ]
DESCRIPTION="the dropped patch is reported"; expect grep -q "patch.unused" "$work/pinned.err"
DESCRIPTION="crates.io tokio is reported"; expect grep -q "crates.io tokio 1.40.0 is in the dependency graph" "$work/pinned.err"
DESCRIPTION="the pinning crate and its requirement are named"; expect grep -q 'pinned 0.1.0 requires tokio "=1.40.0"' "$work/pinned.err"
DESCRIPTION="the crate that asked for \"1\" is not blamed"; expect sh -c "! grep -q 'app 0.1.0 requires' '$work/pinned.err'"
DESCRIPTION="the inverse tree is shown"; expect grep -q "cargo tree -i tokio@1.40.0" "$work/pinned.err"

if [ "$failures" -ne 0 ]; then
    for f in applies.out applies.err pinned.out pinned.err; do
        echo "--- $f" >&2
        cat "$work/$f" >&2
    done
    echo "check-patch-test: $failures failure(s)" >&2
    exit 1
fi
echo "check-patch-test: ok (patch applies; a pin is caught and named)"
