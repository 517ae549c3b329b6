#!/bin/sh
# Checks that a workspace's `[patch.crates-io] tokio = ...` (whole-graph
# mode: every crate builds against tokiwa built as `tokio`) really applies.
#
#     whole-graph/check-patch.sh [path-to-workspace]
#
# Cargo applies a `[patch]` only where the patched package satisfies the
# requirement. If any crate in the graph pins tokio to a version the patch
# does not have (`tokio = "=1.40.0"`, `~1.40`, `<1.50`), or enables a tokio
# feature the patched package does not declare, Cargo drops the patch with
# a mere warning, records it under `[[patch.unused]]` in Cargo.lock, and
# builds crates.io tokio instead: the program then runs on tokio, silently.
#
# This script resolves the workspace as a build would (updating Cargo.lock
# the same way), then fails loudly if crates.io tokio is in the graph or if
# Cargo.lock lists tokio under `[[patch.unused]]`, and names the crates
# whose requirement on tokio the patched version does not meet, with the
# inverse dependency tree of crates.io tokio (`cargo tree -i`).
#
# Exit status: 0 when the patch applies (or tokio is not used at all), 1
# when it does not, 2 when the workspace could not be resolved.
#
# Needs a POSIX shell, awk and cargo. Set CARGO_NET_OFFLINE=true to resolve
# without the network, as for any cargo command.
set -u

dir=${1:-.}
cd "$dir" 2>/dev/null || {
    echo "check-patch: no such directory: $dir" >&2
    exit 2
}

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

say() { printf '%s\n' "$*"; }
fail() { printf 'check-patch: error: %s\n' "$*" >&2; }

# --- Resolve the graph (this writes Cargo.lock, as `cargo build` would) ---
if ! cargo metadata --format-version 1 >"$tmp/metadata.json" 2>"$tmp/cargo.err"; then
    cat "$tmp/cargo.err" >&2
    fail "cargo could not resolve the workspace in $(pwd)"
    exit 2
fi
manifest=$(cargo locate-project --workspace --message-format plain 2>/dev/null) || {
    fail "no Cargo workspace in $(pwd)"
    exit 2
}
lock="$(dirname "$manifest")/Cargo.lock"
if [ ! -f "$lock" ]; then
    fail "no Cargo.lock next to $manifest after resolving"
    exit 2
fi

# --- What Cargo.lock says about tokio ---
# One line per `tokio` entry: "<table> <version> <source>", where <table>
# is `package` or `patch.unused` and <source> is `-` for a path package.
awk '
    /^\[\[package\]\]/      { flush(); table = "package"; next }
    /^\[\[patch\.unused\]\]/ { flush(); table = "patch.unused"; next }
    /^\[/                   { flush(); table = ""; next }
    table != "" && /^name = / { name = $3; gsub(/"/, "", name) }
    table != "" && /^version = / { version = $3; gsub(/"/, "", version) }
    table != "" && /^source = / { source = $3; gsub(/"/, "", source) }
    END { flush() }
    function flush() {
        if (table != "" && name == "tokio")
            print table, version, (source == "" ? "-" : source)
        name = ""; version = ""; source = ""
    }
' "$lock" >"$tmp/tokio.lock"

registry_versions=$(awk '$1 == "package" && $3 ~ /^(registry|sparse)\+/ { print $2 }' "$tmp/tokio.lock")
patched=$(awk '$1 == "package" && $3 !~ /^(registry|sparse)\+/ { print $2 " (" $3 ")" }' "$tmp/tokio.lock")
unused=$(awk '$1 == "patch.unused" { print $2 }' "$tmp/tokio.lock")

if [ -z "$registry_versions" ] && [ -z "$unused" ]; then
    if [ -n "$patched" ]; then
        say "check-patch: ok: every crate that uses tokio builds against the patched tokio $patched"
    else
        say "check-patch: ok: tokio is not in this workspace's dependency graph"
    fi
    exit 0
fi

# --- The patch did not apply: say so, and why ---
if [ -n "$unused" ]; then
    fail "Cargo did not use the [patch] for tokio $unused: Cargo.lock lists it under [[patch.unused]]"
fi
for v in $registry_versions; do
    fail "crates.io tokio $v is in the dependency graph: crates that depend on it run on tokio, not tokiwa"
done
# Cargo's own warning about the unused patch, with its help text.
awk '/[Pp]atch/ { p = 1 } p && /^[[:space:]]*$/ { p = 0 } p' "$tmp/cargo.err" | sed 's/^/    cargo: /' >&2

# The version the patch offers: the unused patch's, else the path/git
# package's.
offered=$(printf '%s\n' "$unused" | sed -n 1p)
if [ -z "$offered" ]; then
    offered=$(awk '$1 == "package" && $3 !~ /^(registry|sparse)\+/ { print $2; exit }' "$tmp/tokio.lock")
fi

# Every requirement on tokio in the graph, as "<crate> <version> <req>":
# the metadata JSON is cut at each `{"name":`; a package object has its
# "version" next, a dependency object its "source".
tr -d '\n' <"$tmp/metadata.json" | awk '{ gsub(/\{"name":/, "\n{\"name\":"); print }' | awk '
    /^\{"name":"[^"]*","version":"/ {
        split($0, f, "\"")
        pkg = f[4]; ver = f[8]
        next
    }
    /^\{"name":"tokio","source":/ {
        if (match($0, /"req":"[^"]*"/)) {
            req = substr($0, RSTART + 7, RLENGTH - 8)
            print pkg, ver, req
        }
    }
' | sort -u >"$tmp/requirements"

# Requirements the offered version does not meet (semver, as Cargo reads
# a requirement: comma-separated comparators, a bare version meaning `^`).
if [ -n "$offered" ]; then
    awk -v offered="$offered" '
        function parse(v, out,    core, n, parts) {
            core = v; sub(/[+-].*/, "", core)
            n = split(core, parts, ".")
            out[1] = parts[1] + 0
            out[2] = (n >= 2 && parts[2] != "*" && parts[2] != "x") ? parts[2] + 0 : -1
            out[3] = (n >= 3 && parts[3] != "*" && parts[3] != "x") ? parts[3] + 0 : -1
            out["n"] = (out[2] < 0) ? 1 : (out[3] < 0 ? 2 : 3)
        }
        function cmp(a, b,    i) {
            for (i = 1; i <= 3; i++) {
                if ((a[i] < 0 ? 0 : a[i]) < (b[i] < 0 ? 0 : b[i])) return -1
                if ((a[i] < 0 ? 0 : a[i]) > (b[i] < 0 ? 0 : b[i])) return 1
            }
            return 0
        }
        function meets(req,    op, v, c, upper) {
            gsub(/ /, "", req)
            if (req == "*" || req == "") return 1
            op = req; sub(/[0-9*].*/, "", op)
            v = substr(req, length(op) + 1)
            parse(v, c)
            if (op == "=") {
                if (c["n"] == 1) return o[1] == c[1]
                if (c["n"] == 2) return o[1] == c[1] && o[2] == c[2]
                return cmp(o, c) == 0
            }
            if (op == ">=") return cmp(o, c) >= 0
            if (op == ">") return cmp(o, c) > 0
            if (op == "<=") return cmp(o, c) <= 0
            if (op == "<") return cmp(o, c) < 0
            if (cmp(o, c) < 0) return 0
            if (op == "~") {
                if (c["n"] == 1) return o[1] == c[1]
                return o[1] == c[1] && o[2] == c[2]
            }
            # `^` or a bare version: up to the next change of the first
            # non-zero part.
            if (c[1] > 0 || c["n"] == 1) return o[1] == c[1]
            if (c[2] > 0 || c["n"] == 2) return o[1] == c[1] && o[2] == c[2]
            return cmp(o, c) == 0
        }
        BEGIN { parse(offered, o) }
        {
            ok = 1
            n = split($3, parts, ",")
            for (i = 1; i <= n; i++) if (!meets(parts[i])) ok = 0
            if (!ok) print
        }
    ' "$tmp/requirements" >"$tmp/pinners"
else
    : >"$tmp/pinners"
fi

if [ -s "$tmp/pinners" ]; then
    fail "these crates require a tokio that the patched tokio $offered does not satisfy:"
    while read -r crate version req; do
        printf '    %s %s requires tokio "%s"\n' "$crate" "$version" "$req" >&2
    done <"$tmp/pinners"
    say "  Loosen or patch those requirements (a crate of your own: use \"1\";" >&2
    say "  a dependency: upgrade it, or [patch] it too), then run this check again." >&2
else
    say "  No requirement on tokio excludes $offered: the patch was most likely dropped" >&2
    say "  because a crate enables a tokio feature the patched package does not declare." >&2
    say "  The features crates.io tokio is built with, and who enables them:" >&2
    for v in $registry_versions; do
        cargo tree -q -i "tokio@$v" -e features --depth 1 2>&1 | sed 's/^/    /' >&2
    done
fi

for v in $registry_versions; do
    say "  Who depends on crates.io tokio $v (cargo tree -i tokio@$v -e normal,build,dev):" >&2
    cargo tree -q -i "tokio@$v" -e normal,build,dev 2>&1 | sed 's/^/    /' >&2
done
exit 1
