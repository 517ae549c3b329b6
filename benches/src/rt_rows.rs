//! The runtime rows: tokio's own runtime-benchmark workloads (`workloads.rs`)
//! on every main column.
//!
//! For every (workload, flavour) row, a few rounds each build a fresh
//! runtime per column outside the timed region (the build order rotating),
//! warm them up, then time rotating iterations, the first column changing
//! every time, so that drift and background load hit every column alike.
//! A round stops once its share of the row's time budget is spent.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::columns::{bases, columns, subject, Column};
use crate::columns::{labels, per_column};
use crate::report::{self, Family, Figure, Kind, Table};
use crate::{timed_by_watchdog, Flavour, Workload};

/// How much of each row a mode runs.
pub struct Plan {
    /// Fresh runtimes per column per row; the budgets below are split among them.
    pub rounds: usize,
    /// Untimed iterations per runtime at the start of each round.
    pub warmup: usize,
    /// At most this many measured iterations per column per row; fewer once
    /// the row's time budget is spent...
    pub iters: usize,
    /// ...but never fewer than this many.
    pub min_iters: usize,
    /// Wall-clock budget for one row's measured iterations (all columns).
    pub row_budget: Duration,
}

pub const QUICK: Plan = Plan {
    rounds: 3,
    warmup: 2,
    iters: 300,
    min_iters: 6,
    row_budget: Duration::from_millis(500),
};

pub const FULL: Plan = Plan {
    rounds: 10,
    warmup: 5,
    iters: 3000,
    min_iters: 20,
    row_budget: Duration::from_secs(8),
};

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

struct Row {
    workload: Workload,
    flavour: Flavour,
    /// Per main column (in `columns().main` order), its samples; empty when
    /// the row panicked (the message went to stderr).
    samples: Vec<Vec<Duration>>,
}

static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());

fn row(plan: &Plan, workload: Workload, flavour: Flavour) -> Row {
    let what = |column: Column, step: &str| {
        format!(
            "{} / {} / {}: {step}",
            workload.name(),
            flavour.label(),
            column.label()
        )
    };
    let cols = &columns().main;
    let n = cols.len();
    let mut samples: Vec<Vec<Duration>> = cols.iter().map(|_| Vec::new()).collect();
    let round_budget = plan.row_budget / plan.rounds as u32;
    let round_min = plan.min_iters.div_ceil(plan.rounds);
    let round_max = plan.iters.div_ceil(plan.rounds);

    // Some results depend on the runtime instance (where its threads landed,
    // which worker picked up what first), so each row is measured on a few
    // fresh sets of runtimes rather than on one.
    for round in 0..plan.rounds {
        let mut runtimes: Vec<_> = cols.iter().map(|_| None).collect();
        for k in 0..n {
            let i = (round + k) % n;
            runtimes[i] = Some(timed_by_watchdog(
                || what(cols[i], "build"),
                || cols[i].build(flavour),
            ));
        }
        let run = |i: usize, iteration: String| {
            let rt = runtimes[i].as_ref().expect("built");
            timed_by_watchdog(|| what(cols[i], &iteration), || rt.run(workload, flavour))
        };

        for w in 0..plan.warmup {
            for i in 0..n {
                run(i, format!("round {round} warm-up {w}"));
            }
        }
        let started = Instant::now();
        for it in 0..round_max {
            if it >= round_min && started.elapsed() > round_budget {
                break;
            }
            for k in 0..n {
                let i = (round + it + k) % n;
                samples[i].push(run(i, format!("round {round} iteration {it}")));
            }
        }

        for (i, rt) in runtimes.into_iter().enumerate() {
            timed_by_watchdog(|| what(cols[i], "drop"), || drop(rt));
        }
    }
    Row {
        workload,
        flavour,
        samples,
    }
}

/// Runs every row whose key (`workload/flavour`) `selected` accepts.
pub fn run(plan: &Plan, selected: &impl Fn(&str) -> bool) {
    for flavour in [Flavour::MultiThread, Flavour::CurrentThread] {
        for workload in WORKLOADS {
            let key = format!("{}/{}", workload.name(), flavour.label());
            if !selected(&key) {
                continue;
            }
            eprintln!("running {key} ...");
            // A panicking workload (say, a runtime bug) fails its row, not the table.
            let done = std::panic::catch_unwind(|| row(plan, workload, flavour));
            crate::clear_phase();
            ROWS.lock().unwrap().push(done.unwrap_or(Row {
                workload,
                flavour,
                samples: Vec::new(),
            }));
        }
    }
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

fn print_rows(plan: &Plan, rows: &[Row]) {
    let cols = &columns().main;
    let subject = subject();
    let subject_at = cols.iter().position(|&c| c == subject).expect("main");
    println!(
        "runtime rows: each row: {} fresh runtimes per column, rotating iterations; times per iteration\n\
         speed-up = that column's median / {}'s median: > 1.00 means {} is FASTER, < 1.00 means slower\n",
        plan.rounds,
        subject.label(),
        subject.label(),
    );
    let values = |label: &str| -> String {
        let width = 10 * cols.len();
        format!("{label:^width$}")
    };
    let heads: String = cols.iter().map(|c| format!("{:>10}", c.label())).collect();
    let speed_heads: String = bases()
        .iter()
        .map(|b| format!("{:>9}", b.label()))
        .collect();
    let speed_width = speed_heads.len();
    let speed_head = format!("{} speed-up vs", subject.label());
    println!(
        "{:<39} |{} |{} |{speed_head:^speed_width$} | {} median",
        "",
        values("median"),
        values("p90"),
        subject.label(),
    );
    println!(
        "{:<23} {:<9} {:>5} |{heads} |{heads} |{speed_heads} | per op",
        "workload", "flavour", "iters"
    );
    println!(
        "{}",
        "-".repeat(39 + 2 * (heads.len() + 2) + speed_width + 20)
    );
    // (speed-up of uring over tokio, row) of the slowest row, for the claim.
    let mut lowest: Option<(f64, String)> = None;
    for row in rows {
        if row.samples.is_empty() || row.samples.iter().any(Vec::is_empty) {
            println!(
                "{:<23} {:<9} FAILED (panicked; see stderr)",
                row.workload.name(),
                row.flavour.label()
            );
            continue;
        }
        let med: Vec<Duration> = row.samples.iter().map(|s| percentile(s, 50)).collect();
        let p90: String = row
            .samples
            .iter()
            .map(|s| format!("{:>10}", fmt_dur(percentile(s, 90))))
            .collect();
        let meds: String = med.iter().map(|&d| format!("{:>10}", fmt_dur(d))).collect();
        let speed: String = bases()
            .iter()
            .map(|b| {
                let at = cols.iter().position(|c| c == b).expect("main");
                let x = med[at].as_secs_f64() / med[subject_at].as_secs_f64();
                if (*b, subject) == (Column::Tokio, Column::Uring)
                    && lowest.as_ref().is_none_or(|(low, _)| x < *low)
                {
                    let key = format!("{}/{}", row.workload.name(), row.flavour.label());
                    lowest = Some((x, key));
                }
                format!("{x:>9.2}")
            })
            .collect();
        let (ops, op) = row.workload.ops();
        println!(
            "{:<23} {:<9} {:>5} |{meds} |{p90} |{speed} | {:>7.1} ns/{op}",
            row.workload.name(),
            row.flavour.label(),
            row.samples[0].len(),
            med[subject_at].as_nanos() as f64 / ops as f64,
        );
    }
    if let Some((x, key)) = lowest {
        let verdict = if x >= 1.0 { "met" } else { "MISSED" };
        println!(
            "\nclaim: io_uring is at least as fast as tokio on every runtime row (>= 1.00x): \
             the slowest is {x:.2}x ({key}): {verdict}"
        );
    }
}

/// Prints the rows run so far (nothing without rows). Called by the hang
/// watchdog too, so it must not block on a held lock.
pub fn print(plan: &Plan) {
    if let Ok(rows) = ROWS.try_lock() {
        if !rows.is_empty() {
            print_rows(plan, &rows);
        }
    }
}

/// The rows run so far, for the report: the median and p90 time of an
/// iteration, per operation.
pub fn tables() -> Vec<Table> {
    let Ok(rows) = ROWS.try_lock() else {
        return Vec::new();
    };
    if rows.is_empty() {
        return Vec::new();
    }
    let cols = &columns().main;
    let rows = rows
        .iter()
        .map(|row| {
            let key = format!("{}/{}", row.workload.name(), row.flavour.label());
            if row.samples.is_empty() || row.samples.iter().any(Vec::is_empty) {
                return report::Row::failed(key, Family::Runtime, "panicked; see stderr");
            }
            let (ops, op) = row.workload.ops();
            let per_op = |i: usize, p: usize| {
                Some(percentile(&row.samples[i], p).as_nanos() as f64 / ops as f64)
            };
            let unit = format!("ns/{op}");
            report::Row::new(
                key,
                Family::Runtime,
                vec![
                    Figure::new(
                        "median time",
                        &unit,
                        Kind::Time,
                        per_column(cols, |i| per_op(i, 50)),
                    ),
                    Figure::new(
                        "p90 time",
                        &unit,
                        Kind::Other,
                        per_column(cols, |i| per_op(i, 90)),
                    ),
                ],
            )
        })
        .collect();
    vec![Table {
        id: "runtime".into(),
        title: "Runtime rows: tokio's own runtime benchmarks, time per operation".into(),
        columns: labels(cols),
        rows,
    }]
}
