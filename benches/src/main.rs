//! tokio vs tokiwa's two drivers (legacy: epoll + poll thread; uring: a
//! ring per worker) on the workloads of tokio's own runtime benchmarks,
//! plus network and timer rows, all in one run.
//!
//! `cargo run -p tokiwa-benches --release -- [--quick] [--json [PATH]] [FILTER...]`
//!
//! The output starts with a summary (one line per workload family) and
//! ends with the path of an HTML report of charts; both come from
//! `report/`, which gathers every table's figures once the rows have run.
//!
//! Every workload lives once, written against the tokio API, in
//! `workloads.rs` (runtime), `workloads_net.rs` (`tcp_echo`),
//! `workloads_time.rs` (`timers`), `workloads_process.rs`
//! (`process_spawn`), `workloads_fs.rs` (the `fs_` rows) and
//! `workloads_http.rs` (`http_hello`, with hyper); each file is
//! compiled twice below, with `rt` bound to each runtime
//! (`workloads_echo_compat.rs`, the `echo_compat` rows, only for tokiwa:
//! it needs tokiwa-compat). A `Column`
//! (`columns.rs`) picks the copy and tokiwa's driver. The rows are driven
//! and printed by `rt_rows.rs`, `echo.rs`, `timers.rs`, `process.rs`,
//! `fs.rs`, `http_rows.rs` and `echo_compat.rs`; each rotates which column runs first, so that
//! drift and background load hit every column alike.

// The same workload file is deliberately loaded once per runtime.
#![allow(clippy::duplicate_mod)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

#[path = "."]
mod on_tokio {
    use crate::columns::Column;
    use crate::echo_round::Counters;
    use ::tokio as rt;
    use hyper_util::rt::{TokioIo as HyperIo, TokioTimer as HyperTimer};

    /// tokio has one configuration.
    fn configure(_: &mut rt::runtime::Builder, column: Column) {
        assert_eq!(column, Column::Tokio);
    }

    fn check(_: &rt::runtime::Runtime, _: Column) -> Result<(), String> {
        Ok(())
    }

    /// tokio's per-worker counts (parks, polls) are `tokio_unstable` API.
    fn counters(_: &rt::runtime::Handle) -> Option<Counters> {
        None
    }

    #[path = "workloads_fs.rs"]
    pub mod fs;
    #[path = "workloads_http.rs"]
    pub mod http_hello;
    #[path = "workloads_net.rs"]
    pub mod net;
    #[path = "workloads_process.rs"]
    pub mod process;
    #[path = "workloads_servers.rs"]
    pub mod servers;
    #[path = "workloads_time.rs"]
    pub mod timers;
    #[path = "workloads.rs"]
    pub mod w;
}

#[path = "."]
mod on_tokiwa {
    use crate::columns::Column;
    use crate::echo_round::Counters;
    use ::tokiwa as rt;
    use rt::runtime::Driver;
    use tokiwa_compat::hyper::{TokiwaIo as HyperIo, TokiwaTimer as HyperTimer};

    fn driver(column: Column) -> Driver {
        match column {
            Column::Tokio => panic!("tokio is not a tokiwa driver"),
            Column::Legacy => Driver::Legacy,
            Column::Uring | Column::UringNoDefer | Column::UringCompletion => Driver::Uring,
        }
    }

    fn configure(builder: &mut rt::runtime::Builder, column: Column) {
        builder
            .driver(driver(column))
            .uring_defer_taskrun(column != Column::UringNoDefer)
            // Completion I/O (`Builder::uring_completion_io`): its own
            // column on the external rows; `TOKIWA_COMPLETION_IO=1` turns
            // it on for the uring column everywhere.
            .uring_completion_io(
                column == Column::UringCompletion
                    || std::env::var_os("TOKIWA_COMPLETION_IO").is_some_and(|v| v == "1"),
            );
    }

    /// An explicit driver never falls back, but a bench that silently
    /// measured the wrong one would be worse than none.
    fn check(runtime: &rt::runtime::Runtime, column: Column) -> Result<(), String> {
        let runs = runtime.handle().driver();
        if runs == driver(column) {
            Ok(())
        } else {
            Err(format!("asked for {}, runs {runs}", driver(column)))
        }
    }

    fn counters(handle: &rt::runtime::Handle) -> Option<Counters> {
        let m = handle.metrics();
        let mut c = Counters::default();
        for w in 0..m.num_workers() {
            c.ring_enters += m.worker_ring_enter_count(w);
            c.cqes += m.worker_cqe_count(w);
            c.eventfd_writes += m.worker_eventfd_write_count(w);
            c.coalesced_notifies += m.worker_coalesced_notify_count(w);
            c.taskrun_enters += m.worker_taskrun_enter_count(w);
            c.wake_rearms += m.worker_wake_poll_rearm_count(w);
            c.parks += m.worker_park_count(w);
            c.polls += m.worker_poll_count(w);
            c.steals += m.worker_steal_count(w);
            c.foreign_io_waits += m.worker_foreign_io_wait_count(w);
            c.io_rehomes += m.worker_io_rehome_count(w);
        }
        Some(c)
    }

    #[path = "workloads_echo_compat.rs"]
    pub mod echo_compat;
    #[path = "workloads_fs.rs"]
    pub mod fs;
    #[path = "workloads_http.rs"]
    pub mod http_hello;
    #[path = "workloads_net.rs"]
    pub mod net;
    #[path = "workloads_process.rs"]
    pub mod process;
    #[path = "workloads_servers.rs"]
    pub mod servers;
    #[path = "workloads_time.rs"]
    pub mod timers;
    #[path = "workloads.rs"]
    pub mod w;
}

mod columns;
mod echo;
mod echo_compat;
mod echo_round;
mod external;
mod fs;
mod http_rows;
mod process;
mod report;
mod rt_rows;
mod timers;

use columns::columns;

pub const MULTI_THREAD_WORKERS: usize = 2;

/// How many yielding tasks keep the runtime busy in `spawn_many_remote_busy`.
/// tokio's current-thread bench uses one; its multi-thread bench keeps every
/// worker busy, but the thread doing the remote spawns needs a CPU as well,
/// and on a small machine (2 CPUs: 2 spinning workers + the spawner) the
/// result turns into a coin toss of OS time slices. So: one per worker, but
/// leave one CPU for the spawner.
pub fn busy_spinners(flavour: Flavour) -> usize {
    match flavour {
        Flavour::CurrentThread => 1,
        Flavour::MultiThread => MULTI_THREAD_WORKERS
            .min(report::cpus().saturating_sub(1))
            .max(1),
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavour {
    MultiThread,
    CurrentThread,
}

impl Flavour {
    fn label(self) -> &'static str {
        match self {
            Flavour::MultiThread => "multi(2)",
            Flavour::CurrentThread => "current",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Workload {
    SpawnManyLocal { tasks: usize },
    SpawnManyRemoteIdle { tasks: usize },
    SpawnManyRemoteBusy { tasks: usize },
    YieldMany { tasks: usize, yields: usize },
    PingPong { pings: usize },
    ChainedSpawn { depth: usize },
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::SpawnManyLocal { .. } => "spawn_many_local",
            Workload::SpawnManyRemoteIdle { .. } => "spawn_many_remote_idle",
            Workload::SpawnManyRemoteBusy { .. } => "spawn_many_remote_busy",
            Workload::YieldMany { .. } => "yield_many",
            Workload::PingPong { .. } => "ping_pong",
            Workload::ChainedSpawn { .. } => "chained_spawn",
        }
    }

    /// (operations per iteration, name of one operation), for the per-op column.
    fn ops(self) -> (usize, &'static str) {
        match self {
            Workload::SpawnManyLocal { tasks }
            | Workload::SpawnManyRemoteIdle { tasks }
            | Workload::SpawnManyRemoteBusy { tasks } => (tasks, "spawn"),
            Workload::YieldMany { tasks, yields } => (tasks * yields, "yield"),
            Workload::PingPong { pings } => (pings, "ping"),
            Workload::ChainedSpawn { depth } => (depth, "spawn"),
        }
    }
}

struct Mode {
    name: &'static str,
    /// A single iteration (or build/drop) taking longer than this is a hang.
    hang_after: Duration,
    rt: &'static rt_rows::Plan,
    echo: &'static echo::Plan,
    echo_compat: &'static echo_compat::Plan,
    timers: &'static timers::Plan,
    process: &'static process::Plan,
    fs: &'static fs::Plan,
    http: &'static http_rows::Plan,
    external: &'static external::Plan,
}

const QUICK: Mode = Mode {
    name: "quick",
    hang_after: Duration::from_secs(20),
    rt: &rt_rows::QUICK,
    echo: &echo::QUICK,
    echo_compat: &echo_compat::QUICK,
    timers: &timers::QUICK,
    process: &process::QUICK,
    fs: &fs::QUICK,
    http: &http_rows::QUICK,
    external: &external::QUICK,
};

const FULL: Mode = Mode {
    name: "full",
    hang_after: Duration::from_secs(60),
    rt: &rt_rows::FULL,
    echo: &echo::FULL,
    echo_compat: &echo_compat::FULL,
    timers: &timers::FULL,
    process: &process::FULL,
    fs: &fs::FULL,
    http: &http_rows::FULL,
    external: &external::FULL,
};

static PHASE: Mutex<Option<(String, Instant)>> = Mutex::new(None);
static PRINTED: AtomicBool = AtomicBool::new(false);

/// Marks what is running now, for the hang watchdog.
fn phase(label: String) {
    *PHASE.lock().unwrap() = Some((label, Instant::now()));
}

/// Nothing is running that the watchdog should time.
fn clear_phase() {
    *PHASE.lock().unwrap() = None;
}

fn timed_by_watchdog<T>(label: impl FnOnce() -> String, f: impl FnOnce() -> T) -> T {
    phase(label());
    let out = f();
    clear_phase();
    out
}

/// A runtime that deadlocks would stall the whole table; report what finished
/// and which step hung instead.
fn start_watchdog(mode: &'static Mode, header: String) {
    let hang_after = mode.hang_after;
    std::thread::Builder::new()
        .name("bench-watchdog".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            let stuck = match &*PHASE.lock().unwrap() {
                Some((label, since)) if since.elapsed() > hang_after => Some(label.clone()),
                _ => None,
            };
            if let Some(label) = stuck {
                eprintln!(
                    "\nHANG: `{label}` did not finish within {hang_after:?}; partial results:\n"
                );
                if let Some(report) = print_tables(mode, &header) {
                    write_report(&report);
                }
                fs::cleanup();
                std::process::exit(2);
            }
        })
        .expect("spawn watchdog");
}

/// When the rows started, and the load average then.
static STARTED: OnceLock<(Instant, Option<f64>)> = OnceLock::new();
/// Where `--json` writes, if it was given.
static JSON: OnceLock<PathBuf> = OnceLock::new();

/// Every table with rows so far, as the report's figures.
fn collect(mode: &Mode) -> report::Report {
    let (started, load_before) = STARTED.get().copied().unwrap_or((Instant::now(), None));
    let tables = [
        external::tables(),
        rt_rows::tables(),
        echo::tables(),
        echo_compat::tables(),
        timers::tables(),
        process::tables(),
        fs::tables(),
        http_rows::tables(mode.http),
    ];
    report::Report {
        mode: mode.name.into(),
        machine: report::Machine::this(load_before),
        seconds: started.elapsed().as_secs_f64(),
        notes: columns().missing.clone(),
        tables: tables.into_iter().flatten().collect(),
    }
}

/// Writes the HTML report (and the JSON, with `--json`); says where.
fn write_report(report: &report::Report) {
    let html = report::default_dir().join("report.html");
    match report::write(&html, &report::html(report)) {
        Ok(()) => println!(
            "\nHTML report (charts, machine, mode): {}",
            absolute(html).display()
        ),
        Err(e) => eprintln!("could not write {}: {e}", html.display()),
    }
    if let Some(json) = JSON.get() {
        match report::write(json, &report::json(report)) {
            Ok(()) => println!("JSON figures: {}", absolute(json.clone()).display()),
            Err(e) => eprintln!("could not write {}: {e}", json.display()),
        }
    }
}

/// `--html-from REPORT.json`: the HTML report again from a run's JSON
/// (to compare runs, or to work on the page without running the rows).
fn html_from(json: Option<&str>) {
    let Some(json) = json else {
        eprintln!("usage: --html-from REPORT.json");
        std::process::exit(2);
    };
    let report: report::Report = std::fs::read_to_string(json)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| {
            eprintln!("cannot read {json}: {e}");
            std::process::exit(1);
        });
    report::print_summary(&report);
    write_report(&report);
}

fn absolute(path: PathBuf) -> PathBuf {
    std::path::absolute(&path).unwrap_or(path)
}

/// Prints the header, the summary and every table with rows so far, once
/// (the watchdog may call this while the main thread is stuck); returns
/// the report to write, `None` the second time.
fn print_tables(mode: &Mode, header: &str) -> Option<report::Report> {
    if PRINTED.swap(true, Ordering::SeqCst) {
        return None;
    }
    let report = collect(mode);
    println!("{header}");
    report::print_summary(&report);
    external::print(mode.external);
    rt_rows::print(mode.rt);
    echo::print(mode.echo);
    echo_compat::print(mode.echo_compat);
    timers::print(mode.timers);
    process::print(mode.process);
    fs::print(mode.fs);
    http_rows::print(mode.http);
    Some(report)
}

/// The 1-minute load average (Linux), to tell a reader when other processes
/// were competing for the CPUs.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn header(mode: &Mode) -> String {
    let cols = columns();
    let mut header = format!(
        "tokio vs tokiwa ({}) | mode: {} | CPUs: {} | multi(2) = multi-thread, {MULTI_THREAD_WORKERS} workers | \
         remote_busy spinners: {} on multi, {} on current\n\
         columns: tokio = tokio multi-thread/current-thread; legacy = tokiwa, epoll + poll thread + condvar; \
         uring = tokiwa, a ring per worker (SINGLE_ISSUER | DEFER_TASKRUN | TASKRUN_FLAG) woken through an eventfd\n",
        cols.main
            .iter()
            .skip(1)
            .map(|c| c.label())
            .collect::<Vec<_>>()
            .join(" and "),
        mode.name,
        report::cpus(),
        busy_spinners(Flavour::MultiThread),
        busy_spinners(Flavour::CurrentThread),
    );
    for why in &cols.missing {
        header += &format!("NOTE: {why}\n");
    }
    header
}

fn main() {
    // The processes the external-load rows start: a server, a load
    // generator (see `external/`).
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--serve") => return external::serve_main(&args[2..]),
        Some("--serve-limit") => return external::limit::serve_main(&args[2..]),
        Some("--loadgen-echo") => return external::loadgen::main(&args[2..]),
        Some("--loadgen-churn") => return external::loadgen::churn_main(&args[2..]),
        Some("--html-from") => return html_from(args.get(2).map(String::as_str)),
        _ => {}
    }
    let mut mode: &'static Mode = &FULL;
    let mut filters = Vec::new();
    let mut http_conns = None;
    let mut http_pin = false;
    let mut uring = true;
    let mut args = std::env::args().skip(1).peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => mode = &QUICK,
            "--json" => {
                let path = match args.next_if(|p| p.ends_with(".json")) {
                    Some(p) => PathBuf::from(p),
                    None => report::default_dir().join("report.json"),
                };
                let _ = JSON.set(path);
            }
            f if f.starts_with("--json=") => {
                let _ = JSON.set(PathBuf::from(&f["--json=".len()..]));
            }
            "--full" => mode = &FULL,
            "--http-pin" => http_pin = true,
            "--no-uring" => uring = false,
            f if f.starts_with("--http-conns=") => {
                let n = &f["--http-conns=".len()..];
                match n.parse::<usize>() {
                    Ok(n) if n > 0 => http_conns = Some(n),
                    _ => {
                        eprintln!("bad {f}: want a positive number of connections");
                        std::process::exit(1);
                    }
                }
            }
            "-h" | "--help" => {
                println!(
                    "usage: tokiwa-benches [--quick] [--json [PATH.json]] [--http-conns=N] [--http-pin] [--no-uring] [FILTER...]"
                );
                println!("  --json [PATH.json]: also write the figures as JSON (default target/tokiwa-bench/report.json);");
                println!("          the HTML report is always written, to target/tokiwa-bench/report.html");
                println!("  --html-from PATH.json: print the summary and write the HTML report of an earlier run's JSON");
                println!("  --http-conns=N: the http row's keep-alive connections (default 16)");
                println!("  --http-pin: the http row's load thread on the 2nd CPU, its server on the 1st");
                println!("  --no-uring: tokio and legacy columns only (legacy mode against tokio, in half the time)");
                println!(
                    "  FILTER: run only rows whose key contains one of these substrings; keys are"
                );
                println!("          `workload/flavour` (e.g. `yield_many/current`), `tcp_echo/c16/16KiB/multi(2)`,");
                println!("          `timers/sleep_100k/current`, `timers/late_1ms/multi(2)`, `process_spawn/current`,");
                println!("          `fs_seq_read/multi(2)`, `fs_random_read/t8/current`, `fs_small_files/current` (`fs_`: all fs rows)");
                println!("          `http_hello/c16/multi(1)` (`http`: the HTTP row)");
                println!("          `ext/echo/c16/64B/multi(2)`, `ext/http/wrk/c64/multi(2)`, `ext/redis/GET/c50/multi(2)`");
                println!("          (`ext/`: every row loaded from another process)");
                println!("          `echo_compat/c1/64B/multi(2)` (`echo_compat`: tcp_echo plain vs through tokiwa-compat's futures-io adapter, tokiwa only)");
                return;
            }
            // `cargo bench` style harness flags are accepted and ignored.
            "--bench" => {}
            f if f.starts_with('-') => {
                eprintln!("unknown flag {f} (try --help)");
                std::process::exit(1);
            }
            f => filters.push(f.to_string()),
        }
    }

    http_rows::configure(http_conns, http_pin);
    columns::probe(uring);
    for why in &columns().missing {
        eprintln!("NOTE: {why}");
    }
    let header = header(mode);
    start_watchdog(mode, header.clone());
    let selected =
        |key: &str| filters.is_empty() || filters.iter().any(|f| key.contains(f.as_str()));

    let load_before = load_average();
    let started = Instant::now();
    let _ = STARTED.set((started, load_before));
    external::run(mode.external, &selected);
    rt_rows::run(mode.rt, &selected);
    echo::run(mode.echo, &selected);
    echo_compat::run(mode.echo_compat, &selected);
    timers::run(mode.timers, &selected);
    process::run(mode.process, &selected);
    fs::run(mode.fs, &selected);
    http_rows::run(mode.http, &selected);
    eprintln!("done in {:.1} s\n", started.elapsed().as_secs_f64());
    let report = print_tables(mode, &header);
    if let (Some(before), Some(after)) = (load_before, load_average()) {
        // Only the load before counts: the bench's own threads raise the
        // average while it runs.
        let busy = if before > 0.5 * report::cpus() as f64 {
            " -- the machine was busy; expect noisy ratios"
        } else {
            ""
        };
        println!("\nload average (1 min): {before:.2} before, {after:.2} after{busy}");
    }
    if let Some(report) = report {
        write_report(&report);
    }
}
