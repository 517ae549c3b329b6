#!/usr/bin/env python3
"""Conformance runner: builds and runs tokio's own integration tests against
tokiwa (or, with --against-tokio, against tokio itself as a baseline).

See README.md in this directory. Invoked through run.sh.
"""
from __future__ import annotations

import argparse
import fcntl
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent  # the tokiwa workspace root
SCRATCH_ROOT = HERE / "scratch"  # gitignored; one crate per mode below it
SCRATCH = SCRATCH_ROOT / "tokiwa"  # set in main()
FILES_TXT = HERE / "files.txt"
EXPECTED_TXT = HERE / "expected.txt"
# Whole-graph mode (--whole-graph): the files it runs beyond files.txt's run
# set, and the files it recorded as passing.
WHOLE_GRAPH_FILES_TXT = HERE / "files-whole-graph.txt"
WHOLE_GRAPH_EXPECTED_TXT = HERE / "expected-whole-graph.txt"
# Unstable mode (--whole-graph --unstable): tokio's tests of its
# `tokio_unstable` surface, built with `--cfg tokio_unstable` and the
# `UNSTABLE_FEATURES` below; only the files files-unstable.txt marks `run`.
UNSTABLE_FILES_TXT = HERE / "files-unstable.txt"
UNSTABLE_EXPECTED_TXT = HERE / "expected-unstable.txt"
# The tokio features unstable mode adds (their tests are gated on them as
# in tokio: `schedule-latency` gates task_hooks' and rt_unstable_metrics'
# schedule-latency tests).
UNSTABLE_FEATURES = ["tracing", "schedule-latency"]
UNSTABLE = False  # set in main()
# The package named `tokio` that `[patch.crates-io]` points at in that mode.
WHOLE_GRAPH_TOKIO = ROOT / "whole-graph" / "tokio"
CHECK_PATCH = ROOT / "whole-graph" / "check-patch.sh"
PKG = "tokiwa-conformance"

# Features the scratch crate declares (and enables by default) so that the
# `#![cfg(feature = "...")]` gates in tokio's test files, which refer to the
# features of the crate being compiled, see what they see inside tokio with
# `--features full,test-util`. Not `parking_lot`, `tracing`, `io-uring`,
# `taskdump`: those are tokio_unstable or tokio-internal.
SCRATCH_FEATURES = [
    "full", "rt", "rt-multi-thread", "macros", "sync", "io-util", "io-std",
    "net", "time", "fs", "process", "signal", "test-util",
]

# Files whose tests connect to a public host: run without the network, in
# namespaces of their own where those hosts resolve to the loopback and a
# listener waits on those ports (offline_hosts.py). file -> (hosts, ports).
OFFLINE_HOSTS = {
    "rt_unstable_metrics.rs": (["google.com"], [80]),
}
# The tests of each OFFLINE_HOSTS file that connect: where the machine
# refuses unprivileged user namespaces, the file runs with these skipped,
# and the run says so (they cannot pass without a network of their own).
OFFLINE_TESTS = {
    "rt_unstable_metrics.rs": ["io_driver_fd_count", "io_driver_ready_count"],
}
OFFLINE_HOSTS_PY = HERE / "offline_hosts.py"

# tokio dev-dependencies that never apply on Linux without tokio_unstable.
EXCLUDED_DEV_DEPS = {"wasm-bindgen-test", "tracing-mock", "windows-sys", "mio-aio",
                     "loom", "backtrace"}


def die(msg: str) -> None:
    print(f"conformance: error: {msg}", file=sys.stderr)
    sys.exit(2)


# --------------------------------------------------------------------------
# files.txt

@dataclass
class Entry:
    state: str      # run | pending | skip
    file: str       # e.g. rt_handle.rs
    category: str
    reason: str = ""

    @property
    def stem(self) -> str:
        return self.file[:-3]


CATEGORIES = {"rt", "task", "macros", "sync", "io", "time", "tcp", "udp", "uds", "net",
              "fs", "process", "signal", "tracing"}
SPECIAL_CATEGORIES = {
    "join_handle_panic.rs": "task", "coop_budget.rs": "task", "dump.rs": "task",
    "no_rt.rs": "rt", "test_clock.rs": "time", "unix_shutdown.rs": "uds",
    "buffered.rs": "tcp", "duplex_stream.rs": "io",
}


def category_of(file: str) -> str:
    """Category of a pending/skip file (run lines name theirs): the prefix."""
    if file in SPECIAL_CATEGORIES:
        return SPECIAL_CATEGORIES[file]
    prefix = file[:-3].split("_", 1)[0]
    return prefix if prefix in CATEGORIES else "misc"


def load_files_txt(path: Path = FILES_TXT) -> dict[str, Entry]:
    entries: dict[str, Entry] = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        state = parts[0]
        if state == "run" and len(parts) >= 3:
            e = Entry("run", parts[2].strip(), parts[1])
        elif state in ("pending", "skip") and len(parts) >= 2:
            e = Entry(state, parts[1], category_of(parts[1]),
                      parts[2] if len(parts) > 2 else "")
        else:
            die(f"{path}:{n}: cannot parse: {line!r}")
        if not e.file.endswith(".rs"):
            die(f"{path}:{n}: not a .rs file: {e.file}")
        if e.file in entries:
            die(f"{path}:{n}: {e.file} listed twice")
        entries[e.file] = e
    return entries


def load_whole_graph_files(entries: dict[str, Entry]) -> dict[str, Entry]:
    """files.txt with files-whole-graph.txt's lines laid over it: whole-graph
    mode runs files.txt's run set plus the files that list marks `run`.
    Its `pending`/`skip` lines say why a file stays out of that mode."""
    overlay = load_files_txt(WHOLE_GRAPH_FILES_TXT)
    for f in overlay:
        if f not in entries:
            die(f"{WHOLE_GRAPH_FILES_TXT}: {f} is not in {FILES_TXT.name}")
        if entries[f].state == "run" and overlay[f].state != "run":
            die(f"{WHOLE_GRAPH_FILES_TXT}: {f} is in the run set of {FILES_TXT.name}, "
                "which whole-graph mode runs whole")
    return {**entries, **overlay}


def load_expected(path: Path = EXPECTED_TXT) -> list[str]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return out


# --------------------------------------------------------------------------
# locating tokio's sources

def locate_tokio() -> tuple[Path, str]:
    """The tokio package the workspace resolves to: (crate dir, version)."""
    p = subprocess.run(
        ["cargo", "metadata", "--format-version", "1",
         "--manifest-path", str(ROOT / "Cargo.toml")],
        capture_output=True, text=True)
    if p.returncode != 0:
        die("cargo metadata failed:\n" + p.stderr)
    meta = json.loads(p.stdout)
    tokios = [pk for pk in meta["packages"]
              if pk["name"] == "tokio" and pk["source"] and "crates.io" in pk["source"]]
    if not tokios:
        die("the workspace does not depend on tokio from crates.io")
    tokios.sort(key=lambda pk: [int(x) for x in re.findall(r"\d+", pk["version"])[:3]])
    pk = tokios[-1]
    return Path(pk["manifest_path"]).parent, pk["version"]


def tokio_dev_deps(tokio_dir: Path) -> dict[str, str]:
    """tokio's own (dev-)dependency specs (dev-dependencies win), as TOML inline tables keyed by the
    crate's Rust identifier (tokio-test -> tokio_test)."""
    manifest = tomllib.loads((tokio_dir / "Cargo.toml").read_text())
    # Tests may also name tokio's normal dependencies (bytes, pin-project-lite).
    tables = []
    for kind in ("dependencies", "dev-dependencies"):  # later tables win
        tables.append(manifest.get(kind, {}))
        tables += [t.get(kind, {}) for t in manifest.get("target", {}).values()]
    deps: dict[str, str] = {}
    # Unstable mode builds tracing-mock, for the tracing_* tests.
    excluded = EXCLUDED_DEV_DEPS - ({"tracing-mock"} if UNSTABLE else set())
    for table in tables:
        for name, spec in table.items():
            if name in excluded or name == "tokio":
                continue
            if isinstance(spec, str):
                spec = {"version": spec}
            spec = {k: v for k, v in spec.items() if k in ("version", "features", "default-features")}
            deps[name.replace("-", "_")] = f"{name} = {toml_inline(spec)}"
    return deps


def toml_inline(d: dict) -> str:
    def val(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        return json.dumps(v)
    return "{ " + ", ".join(f"{k} = {val(v)}" for k, v in d.items()) + " }"


# --------------------------------------------------------------------------
# the scratch crate

def used_source(tests_dir: Path, file: str) -> str:
    """The file's text plus the text of the support modules it declares."""
    text = (tests_dir / file).read_text()
    if re.search(r"\bmod\s+support\b", text):
        for sup in sorted((tests_dir / "support").glob("*.rs")):
            if re.search(rf"\bmod\s+{sup.stem}\s*;", text):
                text += "\n" + sup.read_text()
    return text


def write_if_changed(path: Path, content: str) -> None:
    if not path.exists() or path.read_text() != content:
        path.write_text(content)


def make_scratch(tests_dir: Path, entries: list[Entry], against_tokio: bool,
                 tokio_version: str, dev_deps: dict[str, str], uring: bool = False,
                 whole_graph: bool = False) -> None:
    # Recreate the sources each run. Copies keep the registry files' mtimes,
    # so cargo's fingerprints (target dir under target/conformance) stay valid.
    lock = SCRATCH / "Cargo.lock"
    saved_lock = lock.read_text() if lock.exists() else None
    if SCRATCH.exists():
        shutil.rmtree(SCRATCH)
    (SCRATCH / "tests").mkdir(parents=True)
    for e in entries:
        shutil.copy2(tests_dir / e.file, SCRATCH / "tests" / e.file)
    if (tests_dir / "support").is_dir():
        shutil.copytree(tests_dir / "support", SCRATCH / "tests" / "support")

    used = "\n".join(used_source(tests_dir, e.file) for e in entries)
    deps = [spec for ident, spec in sorted(dev_deps.items())
            if re.search(rf"\b{ident}\s*::", used)]

    patch = ""
    if against_tokio:
        tokio_dep = f'tokio = {{ version = "={tokio_version}", features = ["full", "test-util"] }}'
    elif whole_graph:
        # A plain tokio requirement, patched for the whole graph: tokio-test
        # and tokio-stream are built on tokiwa too (the io_uring driver is
        # always compiled into that package; TOKIWA_DRIVER picks the driver).
        tokio_dep = 'tokio = { version = "1", features = ["full", "test-util"] }'
        patch = ("[patch.crates-io]\n"
                 f"tokio = {{ path = {json.dumps(str(WHOLE_GRAPH_TOKIO))} }}\n")
    else:
        extra = ', "uring"' if uring else ""
        tokio_dep = (f'tokio = {{ package = "tokiwa", path = {json.dumps(str(ROOT))}, '
                     f'features = ["full", "test-util"{extra}] }}')
    scratch_features = SCRATCH_FEATURES + (UNSTABLE_FEATURES if UNSTABLE else [])
    if UNSTABLE:
        extra = "".join(f', "{f}"' for f in UNSTABLE_FEATURES)
        tokio_dep = tokio_dep.replace('"test-util"]', f'"test-util"{extra}]')
    features = "\n".join(f'{json.dumps(f)} = []' for f in scratch_features)
    tests = "\n".join(f'[[test]]\nname = "{e.stem}"\npath = "tests/{e.file}"\n' for e in entries)
    manifest = f"""# Generated by tests/conformance/run.py; do not edit.
[package]
name = "{PKG}"
version = "0.0.0"
edition = "2021"
publish = false
autotests = false
autobins = false
autoexamples = false
autobenches = false

# Its own workspace: not a member of the tokiwa workspace.
[workspace]

[features]
default = [{", ".join(json.dumps(f) for f in scratch_features)}]
{features}

[dev-dependencies]
{tokio_dep}
{chr(10).join(deps)}

[lints.rust]
unexpected_cfgs = "allow"

{patch}
{tests}"""
    (SCRATCH / "Cargo.toml").write_text(manifest)
    # Pin dependency versions: reuse the previous scratch lock, else start
    # from the workspace's lock (cargo drops what is unused and adds the rest).
    # Whole-graph mode starts from the whole-graph workspace's lock instead:
    # the root lock pins crates.io tokio, which would make cargo leave the
    # [patch] unused; a saved lock where that happened is not reused.
    seed = ROOT / "Cargo.lock"
    if whole_graph:
        seed = WHOLE_GRAPH_TOKIO.parent / "Cargo.lock"
        if saved_lock is not None and "[[patch.unused]]" in saved_lock:
            saved_lock = None
    if saved_lock is not None:
        lock.write_text(saved_lock)
    elif seed.exists():
        shutil.copy(seed, lock)


# --------------------------------------------------------------------------
# build

@dataclass
class Build:
    executables: dict[str, str] = field(default_factory=dict)   # stem -> path
    errors: dict[str, list[str]] = field(default_factory=dict)  # stem/package -> rendered
    dep_errors: dict[str, list[str]] = field(default_factory=dict)
    ok: bool = False


def cargo_env(target_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = str(target_dir)
    # No --cfg tokio_unstable, no inherited -D warnings: tokio's tests warn
    # under newer compilers and that must not fail the build.
    for k in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS", "RUSTDOCFLAGS"):
        env.pop(k, None)
    env["RUSTFLAGS"] = os.environ.get("CONFORMANCE_RUSTFLAGS", "")
    if UNSTABLE:
        env["RUSTFLAGS"] = (env["RUSTFLAGS"] + " --cfg tokio_unstable").strip()
    return env


def build(target_dir: Path, log: Path) -> Build:
    b = Build()
    # == `cargo test --no-run`, but `--keep-going` so one broken file hides nothing.
    cmd = ["cargo", "build", "--tests", "--keep-going", "--message-format", "json"]
    print(f"conformance: building ({' '.join(cmd)}); log: {log}", flush=True)
    with open(log, "w") as errlog:
        p = subprocess.Popen(cmd, cwd=SCRATCH, env=cargo_env(target_dir),
                             stdout=subprocess.PIPE, stderr=errlog, text=True)
        for line in p.stdout:
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            reason = msg.get("reason")
            ours = PKG in msg.get("package_id", "") or f"/{PKG}#" in msg.get("package_id", "")
            if reason == "compiler-artifact" and ours and "test" in msg["target"]["kind"]:
                if msg.get("executable"):
                    b.executables[msg["target"]["name"]] = msg["executable"]
            elif reason == "compiler-message" and msg["message"]["level"] in ("error", "error: internal compiler error"):
                rendered = msg["message"].get("rendered") or msg["message"]["message"]
                errlog.write(rendered)
                if ours:
                    b.errors.setdefault(msg["target"]["name"], []).append(rendered)
                else:
                    pkg = re.split(r"[#@ ]", msg["package_id"].rstrip(")").split("/")[-1])[0]
                    b.dep_errors.setdefault(pkg, []).append(rendered)
            elif reason == "build-finished":
                b.ok = msg["success"]
        p.wait()
    return b


# --------------------------------------------------------------------------
# run

@dataclass
class Result:
    entry: Entry
    built: bool = False
    status: str = "BUILD-FAIL"   # PASS FAIL TIMEOUT CRASH EMPTY BUILD-FAIL
    passed: int = 0
    failed: int = 0
    ignored: int = 0
    total: int = 0
    failures: list[str] = field(default_factory=list)
    note: str = ""


UNSHARE = ["unshare", "--user", "--map-root-user", "--net", "--mount"]


@functools.cache
def user_namespaces() -> bool:
    """Whether this machine lets an unprivileged user make the namespaces
    offline_hosts.py needs."""
    try:
        return subprocess.run(UNSHARE + ["true"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def offline_command(file: str, exe: str) -> list[str]:
    """The command that runs `file`'s binary: offline (OFFLINE_HOSTS) in
    namespaces of its own; where those are refused, with the connecting
    tests skipped, said on stderr."""
    if file not in OFFLINE_HOSTS:
        return [exe]
    if not user_namespaces():
        skipped = OFFLINE_TESTS[file]
        print(f"conformance: {file}: SKIPPED {', '.join(skipped)} "
              "(they connect to a public host; no user namespaces here to serve it offline)",
              file=sys.stderr)
        return [exe] + [a for t in skipped for a in ("--skip", t)]
    hosts, ports = OFFLINE_HOSTS[file]
    return UNSHARE + [sys.executable, str(OFFLINE_HOSTS_PY), ",".join(hosts),
                      ",".join(map(str, ports)), "--", exe]


def run_binary(res: Result, exe: str, timeout_s: int, log: Path, cwd: Path,
               has_tests: bool) -> None:
    res.built = True
    p = subprocess.run(["timeout", "-k", "10", str(timeout_s)]
                       + offline_command(res.entry.file, exe),
                       cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace", env=dict(os.environ, RUST_BACKTRACE="1"))
    out = p.stdout
    log.write_text(out)
    m = re.search(r"^running (\d+) tests?$", out, re.M)
    res.total = int(m.group(1)) if m else 0
    m = re.search(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", out, re.M)
    if m:
        res.passed, res.failed, res.ignored = map(int, m.groups())
    else:  # died before the summary: count what finished
        res.passed = len(re.findall(r"^test \S+ \.\.\. ok$", out, re.M))
        res.failed = len(re.findall(r"^test \S+ \.\.\. FAILED$", out, re.M))
        res.ignored = len(re.findall(r"^test \S+ \.\.\. ignored", out, re.M))
    res.failures = re.findall(r"^test (\S+) \.\.\. FAILED$", out, re.M)
    if p.returncode == 0:
        # 0 tests is only right for a compile-time-only file (async_send_sync);
        # elsewhere it means the file's cfg gates compiled everything out.
        res.status = "PASS" if res.total > 0 or not has_tests else "EMPTY"
    elif p.returncode in (124, 137):
        res.status = "TIMEOUT"
        res.note = f"killed after {timeout_s}s"
        # the tests that had started but not finished are the likely culprits
        started = re.findall(r"^test (\S+) \.\.\. ", out, re.M)
        done = set(re.findall(r"^test (\S+) \.\.\. \w+", out, re.M))
        hung = [t for t in started if t not in done]
        if hung:
            res.note += "; unfinished: " + ", ".join(hung[:5])
    elif p.returncode > 128 or p.returncode < 0:
        res.status = "CRASH"
        res.note = f"exit status {p.returncode}"
    else:
        res.status = "FAIL"


# --------------------------------------------------------------------------
# report

def report(results: list[Result], mode: str, log_dir: Path) -> None:
    w = max([len(r.entry.file) for r in results] + [4])
    print()
    print(f"tokio conformance against {mode}")
    print(f"{'file':<{w}}  {'category':<8}  {'build':<5}  {'tests':>9}  result")
    for r in results:
        tests = f"{r.passed}/{r.total}" if r.built else "-"
        extra = f"  ({r.ignored} ignored)" if r.ignored else ""
        state = "" if r.entry.state == "run" else f"  [{r.entry.state}]"
        print(f"{r.entry.file:<{w}}  {r.entry.category:<8}  {'ok' if r.built else 'FAIL':<5}  "
              f"{tests:>9}  {r.status}{extra}{state}")
    print()
    cats: dict[str, list[Result]] = {}
    for r in results:
        cats.setdefault(r.entry.category, []).append(r)
    print("per category (files passing; tests passing):")
    for c, rs in sorted(cats.items()):
        print(f"  {c:<8} {sum(r.status == 'PASS' for r in rs)}/{len(rs)} files; "
              f"{sum(r.passed for r in rs)}/{sum(r.total for r in rs)} tests")
    bad = [r for r in results if r.status != "PASS"]
    if bad:
        print()
        print(f"not passing (logs in {log_dir}):")
        for r in bad:
            detail = r.note
            if r.failures:
                detail = (detail + "; " if detail else "") + "failed: " + ", ".join(r.failures[:6]) \
                    + (f" (+{len(r.failures) - 6} more)" if len(r.failures) > 6 else "")
            print(f"  {r.entry.file}: {r.status}{': ' + detail if detail else ''}")


def first_error(rendered: list[str]) -> str:
    for text in rendered:
        for line in text.splitlines():
            if line.startswith("error"):
                return line
    return ""


# --------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(
        prog="run.sh",
        description="Build and run tokio's integration tests against tokiwa.")
    ap.add_argument("--against-tokio", action="store_true",
                    default=os.environ.get("CONFORMANCE_AGAINST") == "tokio",
                    help="use real tokio instead of tokiwa (baseline; also CONFORMANCE_AGAINST=tokio)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true",
                   help="exit non-zero if a file in expected.txt no longer passes "
                        "(with --against-tokio: if any selected file fails)")
    g.add_argument("--update", action="store_true",
                   help="rewrite expected.txt with the files that pass in this run")
    ap.add_argument("--uring", action="store_true",
                    help="build tokiwa with its uring feature and run every test on the "
                         "io_uring driver (TOKIWA_DRIVER=uring)")
    ap.add_argument("--whole-graph", action="store_true",
                    help="build tokio's tests, tokio-test and tokio-stream against tokiwa built as "
                         "the package named tokio ([patch.crates-io]; tokiwa's own vocabulary), "
                         "with the files of files-whole-graph.txt too; legacy driver unless --uring")
    ap.add_argument("--unstable", action="store_true",
                    help="with --whole-graph: build with --cfg tokio_unstable and the tracing feature, "
                         "and run the files of files-unstable.txt (tokio's tests of its unstable surface)")
    ap.add_argument("--include-pending", action="store_true",
                    help="also build and run the files marked pending")
    ap.add_argument("--timeout", type=int, default=int(os.environ.get("CONFORMANCE_TIMEOUT", "120")),
                    help="per test binary time limit in seconds (default 120)")
    ap.add_argument("files", nargs="*",
                    help="only these files (name or stem; any state); default: the run set")
    args = ap.parse_args()

    mode = "tokio" if args.against_tokio else "tokiwa"
    if args.whole_graph:
        if args.against_tokio:
            die("--whole-graph builds on tokiwa: not with --against-tokio")
        mode = "whole-graph"
        # The package named tokio always has both drivers: name the one to
        # test rather than let `auto` choose.
        os.environ["TOKIWA_DRIVER"] = "legacy"
    if args.uring:
        if args.against_tokio or args.update:
            die("--uring runs tokiwa's io_uring driver: not with --against-tokio or --update")
        mode = f"{mode}-uring"
        # Every runtime the tests build without naming a driver runs on it
        # (and `Builder::build` fails if the kernel cannot).
        os.environ["TOKIWA_DRIVER"] = "uring"
    if args.update and (args.against_tokio or args.files):
        die("--update records tokiwa's full run set: not with --against-tokio or a file list")
    # Both drivers of whole-graph mode run the same build.
    build_key = "whole-graph" if args.whole_graph else mode
    expected_txt = WHOLE_GRAPH_EXPECTED_TXT if args.whole_graph else EXPECTED_TXT
    if args.unstable:
        if not args.whole_graph:
            die("--unstable runs in whole-graph mode: add --whole-graph")
        global UNSTABLE
        UNSTABLE = True
        mode = mode.replace("whole-graph", "whole-graph-unstable")
        build_key = "whole-graph-unstable"
        expected_txt = UNSTABLE_EXPECTED_TXT

    tokio_dir, tokio_version = locate_tokio()
    tests_dir = tokio_dir / "tests"
    entries = load_files_txt()
    if args.unstable:
        # Its own list, whole: the files it marks `run` are the run set.
        entries = {f: Entry("skip", f, e.category, "not in unstable mode")
                   for f, e in entries.items()}
        entries.update(load_files_txt(UNSTABLE_FILES_TXT))
    elif args.whole_graph:
        entries = load_whole_graph_files(entries)

    on_disk = {p.name for p in tests_dir.glob("*.rs")}
    unlisted = sorted(on_disk - entries.keys())
    missing = sorted(f for f in entries if f not in on_disk)
    if unlisted:
        print(f"conformance: warning: tokio {tokio_version} tests not in files.txt: "
              + " ".join(unlisted), file=sys.stderr)
    if missing:
        print(f"conformance: warning: files.txt lists files tokio {tokio_version} lacks: "
              + " ".join(missing), file=sys.stderr)

    expected = load_expected(expected_txt)
    if args.files:
        wanted = list(dict.fromkeys(f if f.endswith(".rs") else f + ".rs" for f in args.files))
        for f in wanted:
            if f not in entries:
                if f in on_disk:
                    entries[f] = Entry("pending", f, category_of(f), "not in files.txt")
                else:
                    die(f"no such tokio test file: {f}")
        selected = [entries[f] for f in wanted]
    else:
        states = {"run", "pending"} if args.include_pending else {"run"}
        selected = [e for e in entries.values() if e.state in states]
        if args.check and not args.against_tokio:
            # every recorded file is checked, whatever its state now
            selected += [entries[f] for f in expected if f in entries and entries[f] not in selected]
    selected = [e for e in selected if e.file in on_disk]
    selected.sort(key=lambda e: (e.category, e.file))
    if not selected:
        die("nothing selected")

    global SCRATCH
    SCRATCH = SCRATCH_ROOT / build_key
    SCRATCH_ROOT.mkdir(parents=True, exist_ok=True)
    lock_file = open(SCRATCH_ROOT / f".{build_key}.lock", "w")
    try:
        fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"conformance: waiting for another run against {mode} to finish", flush=True)
        fcntl.flock(lock_file, fcntl.LOCK_EX)

    target_dir = ROOT / "target" / "conformance" / build_key
    log_dir = ROOT / "target" / "conformance" / "logs" / mode
    if log_dir.exists():
        shutil.rmtree(log_dir)
    log_dir.mkdir(parents=True)

    print(f"conformance: {len(selected)} tokio {tokio_version} test files against {mode} "
          f"(sources: {tests_dir})", flush=True)
    make_scratch(tests_dir, selected, args.against_tokio, tokio_version, tokio_dev_deps(tokio_dir),
                 args.uring, args.whole_graph)
    if args.whole_graph:
        # Cargo drops a [patch] it cannot apply with a mere warning and
        # builds crates.io tokio: that would test tokio, not tokiwa.
        p = subprocess.run(["sh", str(CHECK_PATCH), str(SCRATCH)], env=cargo_env(target_dir),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            print(p.stdout)
            die("the [patch.crates-io] tokio of the whole-graph scratch crate does not apply")
    b = build(target_dir, log_dir / "build.log")

    if b.dep_errors:
        for pkg, errs in b.dep_errors.items():
            print(f"conformance: dependency {pkg} failed to compile ({len(errs)} errors), "
                  f"first: {first_error(errs)}")

    results: list[Result] = []
    for e in selected:
        r = Result(e)
        exe = b.executables.get(e.stem)
        if exe:
            print(f"conformance: running {e.file}", flush=True)
            # cwd = tokio's crate dir, as under `cargo test` in tokio
            # (rt_handle_block_on reads "Cargo.toml").
            has_tests = bool(re.search(r"#\[\s*(?:[\w:]+::)?test\b|_test!",
                                       (tests_dir / e.file).read_text()))
            run_binary(r, exe, args.timeout, log_dir / f"{e.stem}.log", tokio_dir, has_tests)
        else:
            errs = b.errors.get(e.stem, [])
            if errs:
                (log_dir / f"{e.stem}.build.log").write_text("\n".join(errs))
                r.note = f"{len(errs)} compile errors, first: {first_error(errs)}"
            elif b.dep_errors:
                r.note = "not built: a dependency failed to compile"
            else:
                r.note = f"not built; see {log_dir / 'build.log'}"
        results.append(r)
    if not b.executables and not b.errors and not b.dep_errors:
        print("conformance: cargo built nothing; end of the build log:")
        print("\n".join((log_dir / "build.log").read_text().splitlines()[-20:]))

    report(results, f"{mode} (tokio {tokio_version} tests)", log_dir)
    passed = [r.entry.file for r in results if r.status == "PASS"]
    regressions: list[str] = []
    rc = 0

    if args.update:
        body = "".join(f"{f}\n" for f in sorted(passed))
        flag = " --whole-graph" if args.whole_graph else ""
        listed, mode_note = FILES_TXT.name, flag and " (whole-graph mode)"
        if args.unstable:
            flag += " --unstable"
            listed, mode_note = UNSTABLE_FILES_TXT.name, " (whole-graph mode, --unstable)"
        expected_txt.write_text(
            f"# Files of tests/conformance/{listed} that passed on tokiwa{mode_note} at the last\n"
            f"# `tests/conformance/run.sh{flag} --update`. `run.sh{flag} --check` fails if one stops passing.\n"
            + body)
        print(f"\nconformance: wrote {expected_txt} ({len(passed)} files)")
    elif args.check:
        if args.against_tokio:
            regressions = [r.entry.file for r in results if r.status != "PASS"]
        else:
            regressions = [f for f in expected
                           if f in {e.file for e in selected} and f not in passed]
            gone = [f for f in expected if f not in on_disk]
            if gone:
                print(f"conformance: warning: {expected_txt.name} lists files tokio lacks: {' '.join(gone)}")
            new = [f for f in passed if f not in expected]
            if new:
                print(f"\nconformance: newly passing (record with --update): {' '.join(new)}")
        if regressions:
            print(f"\nconformance: CHECK FAILED: no longer passing: {' '.join(regressions)}")
            rc = 1
        else:
            print("\nconformance: check ok")

    if args.check and not args.against_tokio:
        # CI mode: "failed" counts regressions; files never recorded as
        # passing are not counted as failures.
        known = len(results) - len(passed) - len(regressions)
        print(f"conformance: {len(passed)} passed, {len(regressions)} failed, {known} skipped")
    else:
        print(f"conformance: {len(passed)} passed, {len(results) - len(passed)} failed")
    return rc


if __name__ == "__main__":
    sys.exit(main())
