//! tokio vs tokiwa on the workloads of tokio's own runtime benchmarks, plus
//! network and timer rows.
//!
//! `cargo run -p tokiwa-benches --release -- [--quick] [FILTER...]`
//!
//! Every workload lives once, written against the tokio API, in
//! `workloads.rs` (runtime), `workloads_net.rs` (`tcp_echo`) and
//! `workloads_time.rs` (`timers`); each file is compiled twice below, with
//! `rt` bound to each runtime. The net and timer rows are driven and printed
//! by `net_time.rs`.
//!
//! Runtime rows: for every (workload, flavour) row, a few rounds each build a
//! fresh tokio and a fresh tokiwa runtime outside the timed region, warm both
//! up, then time alternating iterations (the order flips each time) so that
//! drift and background load hit both alike. Medians and p90s are reported.

// The same workload file is deliberately loaded once per runtime.
#![allow(clippy::duplicate_mod)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[path = "."]
mod on_tokio {
    use ::tokio as rt;
    const NAME: &str = "tokio";
    #[path = "workloads_net.rs"]
    pub mod net;
    #[path = "workloads_time.rs"]
    pub mod timers;
    #[path = "workloads.rs"]
    pub mod w;
}

#[path = "."]
mod on_tokiwa {
    use ::tokiwa as rt;
    const NAME: &str = "tokiwa";
    #[path = "workloads_net.rs"]
    pub mod net;
    #[path = "workloads_time.rs"]
    pub mod timers;
    #[path = "workloads.rs"]
    pub mod w;
}

mod net_time;

use on_tokio::w as tokio_w;
use on_tokiwa::w as tokiwa_w;

pub const MULTI_THREAD_WORKERS: usize = 2;

fn cpus() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// How many yielding tasks keep the runtime busy in `spawn_many_remote_busy`.
/// tokio's current-thread bench uses one; its multi-thread bench keeps every
/// worker busy, but the thread doing the remote spawns needs a CPU as well,
/// and on a small machine (2 CPUs: 2 spinning workers + the spawner) the
/// result turns into a coin toss of OS time slices. So: one per worker, but
/// leave one CPU for the spawner.
pub fn busy_spinners(flavour: Flavour) -> usize {
    match flavour {
        Flavour::CurrentThread => 1,
        Flavour::MultiThread => MULTI_THREAD_WORKERS.min(cpus().saturating_sub(1)).max(1),
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

/// The sizes of tokio's benches (NUM_SPAWN, NUM_YIELD x TASKS, NUM_PINGS, ITER).
const WORKLOADS: [Workload; 6] = [
    Workload::SpawnManyLocal { tasks: 10_000 },
    Workload::SpawnManyRemoteIdle { tasks: 10_000 },
    Workload::SpawnManyRemoteBusy { tasks: 10_000 },
    Workload::YieldMany {
        tasks: 200,
        yields: 1_000,
    },
    Workload::PingPong { pings: 1_000 },
    Workload::ChainedSpawn { depth: 1_000 },
];

struct Mode {
    name: &'static str,
    /// Fresh pairs of runtimes per row; the budgets below are split among them.
    rounds: usize,
    /// Untimed iterations per runtime at the start of each round.
    warmup: usize,
    /// At most this many measured iteration pairs per row; stops earlier once the row's
    /// time budget is spent...
    iters: usize,
    /// ...but never fewer than this many.
    min_iters: usize,
    /// Wall-clock budget for one row's measured iterations (both runtimes).
    row_budget: Duration,
    /// A single iteration (or build/drop) taking longer than this is a hang.
    hang_after: Duration,
    /// The sizes of the net and timer rows.
    net_time: &'static net_time::Plan,
}

const QUICK: Mode = Mode {
    name: "quick",
    rounds: 4,
    warmup: 2,
    iters: 300,
    min_iters: 8,
    row_budget: Duration::from_millis(1000),
    hang_after: Duration::from_secs(20),
    net_time: &net_time::QUICK,
};

const FULL: Mode = Mode {
    name: "full",
    rounds: 10,
    warmup: 5,
    iters: 3000,
    min_iters: 20,
    row_budget: Duration::from_secs(10),
    hang_after: Duration::from_secs(60),
    net_time: &net_time::FULL,
};

struct Row {
    workload: Workload,
    flavour: Flavour,
    tokio: Vec<Duration>,
    tokiwa: Vec<Duration>,
    /// Set when the row panicked (the panic message went to stderr).
    failed: bool,
}

static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());
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
                print_tables(mode, &header);
                std::process::exit(2);
            }
        })
        .expect("spawn watchdog");
}

fn run_row(mode: &Mode, workload: Workload, flavour: Flavour) {
    let what =
        |rt: &str, step: &str| format!("{} / {} / {rt}: {step}", workload.name(), flavour.label());
    let mut tokio_samples = Vec::new();
    let mut tokiwa_samples = Vec::new();
    let round_budget = mode.row_budget / mode.rounds as u32;
    let round_min = mode.min_iters.div_ceil(mode.rounds);
    let round_max = mode.iters.div_ceil(mode.rounds);
    let build_tokio =
        || timed_by_watchdog(|| what(tokio_w::NAME, "build"), || tokio_w::build(flavour));
    let build_tokiwa = || {
        timed_by_watchdog(
            || what(tokiwa_w::NAME, "build"),
            || tokiwa_w::build(flavour),
        )
    };

    // Some results depend on the runtime instance (where its threads landed,
    // which worker picked up what first), so each row is measured on a few
    // fresh pairs of runtimes rather than on one.
    for round in 0..mode.rounds {
        // Runtimes are built (and dropped) outside the timed region; the
        // build order alternates too.
        let (tokio_rt, tokiwa_rt) = if round % 2 == 0 {
            let a = build_tokio();
            (a, build_tokiwa())
        } else {
            let b = build_tokiwa();
            (build_tokio(), b)
        };

        let run_tokio = |i: usize| {
            timed_by_watchdog(
                || what(tokio_w::NAME, &format!("round {round} iteration {i}")),
                || tokio_w::run(workload, &tokio_rt, flavour),
            )
        };
        let run_tokiwa = |i: usize| {
            timed_by_watchdog(
                || what(tokiwa_w::NAME, &format!("round {round} iteration {i}")),
                || tokiwa_w::run(workload, &tokiwa_rt, flavour),
            )
        };

        for i in 0..mode.warmup {
            run_tokio(i);
            run_tokiwa(i);
        }

        let started = Instant::now();
        for i in 0..round_max {
            if i >= round_min && started.elapsed() > round_budget {
                break;
            }
            // Alternate runtimes, flipping the order every iteration so that
            // neither always runs first.
            if (round + i) % 2 == 0 {
                tokio_samples.push(run_tokio(i));
                tokiwa_samples.push(run_tokiwa(i));
            } else {
                tokiwa_samples.push(run_tokiwa(i));
                tokio_samples.push(run_tokio(i));
            }
        }

        timed_by_watchdog(|| what(tokio_w::NAME, "drop"), || drop(tokio_rt));
        timed_by_watchdog(|| what(tokiwa_w::NAME, "drop"), || drop(tokiwa_rt));
    }

    ROWS.lock().unwrap().push(Row {
        workload,
        flavour,
        tokio: tokio_samples,
        tokiwa: tokiwa_samples,
        failed: false,
    });
}

/// Nearest-rank percentile of `samples` (0 < p <= 100).
fn percentile(samples: &[Duration], p: usize) -> Duration {
    let mut s = samples.to_vec();
    s.sort_unstable();
    let rank = (p * s.len()).div_ceil(100).max(1);
    s[rank - 1]
}

fn fmt_dur(d: Duration) -> String {
    let ns = d.as_nanos() as f64;
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} us", ns / 1e3)
    }
}

/// Prints the header and every table with rows so far, once (the watchdog
/// may call this while the main thread is stuck).
fn print_tables(mode: &Mode, header: &str) {
    if PRINTED.swap(true, Ordering::SeqCst) {
        return;
    }
    println!("{header}");
    if let Ok(rows) = ROWS.try_lock() {
        if !rows.is_empty() {
            print_runtime_table(&rows);
        }
    }
    net_time::print_tables(mode.net_time);
}

fn print_runtime_table(rows: &[Row]) {
    println!(
        "{:<23} {:<9} {:>5} {:>10} {:>10} {:>10} {:>10} {:>7}   per-op median: tokio / tokiwa",
        "workload",
        "flavour",
        "iters",
        "tokio med",
        "tokio p90",
        "tokiwa med",
        "tokiwa p90",
        "ratio"
    );
    println!("{}", "-".repeat(124));
    for row in rows {
        if row.failed || row.tokio.is_empty() || row.tokiwa.is_empty() {
            println!(
                "{:<23} {:<9} FAILED (panicked; see stderr)",
                row.workload.name(),
                row.flavour.label()
            );
            continue;
        }
        let (tm, tp) = (percentile(&row.tokio, 50), percentile(&row.tokio, 90));
        let (wm, wp) = (percentile(&row.tokiwa, 50), percentile(&row.tokiwa, 90));
        let ratio = tm.as_secs_f64() / wm.as_secs_f64();
        let (ops, op) = row.workload.ops();
        let per = |d: Duration| d.as_nanos() as f64 / ops as f64;
        println!(
            "{:<23} {:<9} {:>5} {:>10} {:>10} {:>10} {:>10} {:>7.2}   {:>7.1} / {:>7.1} ns per {op}",
            row.workload.name(),
            row.flavour.label(),
            row.tokio.len(),
            fmt_dur(tm),
            fmt_dur(tp),
            fmt_dur(wm),
            fmt_dur(wp),
            ratio,
            per(tm),
            per(wm),
        );
    }
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

fn main() {
    let mut mode: &'static Mode = &FULL;
    let mut filters = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--quick" => mode = &QUICK,
            "--full" => mode = &FULL,
            "-h" | "--help" => {
                println!("usage: tokiwa-benches [--quick] [FILTER...]");
                println!(
                    "  FILTER: run only rows whose key contains one of these substrings; keys are"
                );
                println!("          `workload/flavour` (e.g. `yield_many/current`), `tcp_echo/c16/16KiB/multi(2)`,");
                println!("          `timers/sleep_100k/current`, `timers/late_1ms/multi(2)`");
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

    let header = format!(
        "tokio vs tokiwa: tokio's runtime-benchmark workloads | mode: {} | CPUs: {} | multi(2) = multi-thread, {MULTI_THREAD_WORKERS} workers\n\
         remote_busy spinners: {} on multi, {} on current | each row: {} fresh runtime pairs, alternating iterations\n\
         runtime rows: ratio = tokio median / tokiwa median: > 1.00 means tokiwa is FASTER, < 1.00 means tokiwa is slower\n",
        mode.name,
        cpus(),
        busy_spinners(Flavour::MultiThread),
        busy_spinners(Flavour::CurrentThread),
        mode.rounds,
    );
    start_watchdog(mode, header.clone());
    let selected =
        |key: &str| filters.is_empty() || filters.iter().any(|f| key.contains(f.as_str()));

    let load_before = load_average();
    let started = Instant::now();
    for flavour in [Flavour::MultiThread, Flavour::CurrentThread] {
        for workload in WORKLOADS {
            let key = format!("{}/{}", workload.name(), flavour.label());
            if !selected(&key) {
                continue;
            }
            eprintln!("running {key} ...");
            // A panicking workload (say, a runtime bug) fails its row, not the table.
            let run = std::panic::catch_unwind(|| run_row(mode, workload, flavour));
            clear_phase();
            if run.is_err() {
                ROWS.lock().unwrap().push(Row {
                    workload,
                    flavour,
                    tokio: Vec::new(),
                    tokiwa: Vec::new(),
                    failed: true,
                });
            }
        }
    }
    net_time::run(mode.net_time, selected);
    eprintln!("done in {:.1} s\n", started.elapsed().as_secs_f64());
    print_tables(mode, &header);
    if let (Some(before), Some(after)) = (load_before, load_average()) {
        let busy = if before > 0.5 * cpus() as f64 {
            " -- the machine was busy; expect noisy ratios"
        } else {
            ""
        };
        println!("\nload average (1 min): {before:.2} before, {after:.2} after{busy}");
    }
}
