//! The process row: `process_spawn`.
//!
//! The workload lives in `workloads_process.rs`, compiled once per runtime
//! by `main.rs`; each round builds a fresh runtime per column. Rounds rotate
//! which column goes first. The figure is a rate (spawns per second), so
//! here a ratio above 1.00 means the subject column is faster.
//!
//! Most of a spawn is the kernel's (`fork`/`exec` of `true`, `exit`,
//! `waitpid`); what the runtimes add is how the exit reaches the waiting
//! task (tokio: a pidfd on its shared epoll; tokiwa: a pidfd on the
//! worker's epoll or ring) and how many wakeups that takes.

use std::sync::Mutex;
use std::time::Duration;

use crate::columns::{columns, group, group_head, out, subject, Column};
use crate::columns::{labels, per_column};
use crate::report::{self, Family, Figure, Kind, Table};
use crate::{on_tokio, on_tokiwa, timed_by_watchdog, Flavour};

/// How much of the row a mode runs.
pub struct Plan {
    /// Fresh runtimes per column, and timed iterations on each.
    pub rounds: usize,
    pub iters: usize,
}

pub const QUICK: Plan = Plan {
    rounds: 2,
    iters: 1,
};

pub const FULL: Plan = Plan {
    rounds: 4,
    iters: 3,
};

const SPAWNS: usize = 1_000;
const IN_FLIGHT: usize = 8;

fn spawn_true(column: Column, flavour: Flavour, iters: usize) -> Vec<Duration> {
    match column {
        Column::Tokio => on_tokio::process::spawn_true(flavour, column, SPAWNS, IN_FLIGHT, iters),
        _ => on_tokiwa::process::spawn_true(flavour, column, SPAWNS, IN_FLIGHT, iters),
    }
}

/// One row: per main column (in `columns().main` order), spawns per second
/// of each timed iteration; empty if the row panicked.
struct Row {
    flavour: Flavour,
    rates: Vec<Vec<f64>>,
}

impl Row {
    fn failed(&self) -> bool {
        self.rates.is_empty() || self.rates.iter().any(Vec::is_empty)
    }
}

static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());

fn row(plan: &Plan, flavour: Flavour) -> Row {
    let cols = &columns().main;
    let mut rates: Vec<Vec<f64>> = cols.iter().map(|_| Vec::new()).collect();
    for round in 0..plan.rounds {
        for k in 0..cols.len() {
            let i = (round + k) % cols.len();
            let column = cols[i];
            let samples = timed_by_watchdog(
                || {
                    format!(
                        "process_spawn {} / {}: round {round}",
                        flavour.label(),
                        column.label()
                    )
                },
                || spawn_true(column, flavour, plan.iters),
            );
            rates[i].extend(
                samples
                    .iter()
                    .map(|d| SPAWNS as f64 / d.as_secs_f64().max(1e-9)),
            );
        }
    }
    Row { flavour, rates }
}

/// Runs the row for each flavour whose key `selected` accepts.
pub fn run(plan: &Plan, selected: &impl Fn(&str) -> bool) {
    for flavour in [Flavour::MultiThread, Flavour::CurrentThread] {
        let key = format!("process_spawn/{}", flavour.label());
        if !selected(&key) {
            continue;
        }
        eprintln!("running {key} ...");
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| row(plan, flavour)));
        crate::clear_phase();
        ROWS.lock().unwrap().push(done.unwrap_or(Row {
            flavour,
            rates: Vec::new(),
        }));
    }
}

fn median(samples: &[f64]) -> Option<f64> {
    let mut s = samples.to_vec();
    s.sort_unstable_by(f64::total_cmp);
    s.get(s.len().saturating_sub(1) / 2).copied()
}

fn best(samples: &[f64]) -> Option<f64> {
    samples.iter().copied().reduce(f64::max)
}

/// Prints the table of the rows run so far (nothing without rows). Called
/// by the hang watchdog too, so it must not block on a held lock.
pub fn print(plan: &Plan) {
    let Ok(rows) = ROWS.try_lock() else { return };
    if rows.is_empty() {
        return;
    }
    println!(
        "\nprocess_spawn: {SPAWNS} children of `true`, each spawned and awaited (`Command::status`), \
         {IN_FLIGHT} in flight at a time, in spawns/s (the higher the better)\n\
         each row: {} fresh runtimes per column x {} timed iterations; ratios = {} / that column, > 1.00 means {} is FASTER\n",
        plan.rounds,
        plan.iters,
        subject().label(),
        subject().label(),
    );
    let head = group_head();
    let width = head.len();
    out(&format!(
        "{:<9} {:>5} |{:^width$} |{:^width$}",
        "", "", "median (spawns/s)", "best (spawns/s)"
    ));
    out(&format!("{:<9} {:>5} |{head} |{head}", "flavour", "iters"));
    println!("{}", "-".repeat(16 + 2 * (width + 2)));
    for row in rows.iter() {
        if row.failed() {
            println!("{:<9} FAILED (panicked; see stderr)", row.flavour.label());
            continue;
        }
        out(&format!(
            "{:<9} {:>5} |{} |{}",
            row.flavour.label(),
            row.rates[0].len(),
            group(0, |i| median(&row.rates[i])),
            group(0, |i| best(&row.rates[i])),
        ));
    }
}

/// The rows run so far, for the report.
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
            let key = format!("process_spawn/{}", row.flavour.label());
            if row.failed() {
                return report::Row::failed(key, Family::Processes, "panicked; see stderr");
            }
            report::Row::new(
                key,
                Family::Processes,
                vec![
                    Figure::new(
                        "spawns of `true`, median",
                        "spawns/s",
                        Kind::Throughput,
                        per_column(cols, |i| median(&row.rates[i])),
                    ),
                    Figure::new(
                        "spawns of `true`, best",
                        "spawns/s",
                        Kind::Other,
                        per_column(cols, |i| best(&row.rates[i])),
                    )
                    .higher_is_better(),
                ],
            )
        })
        .collect();
    vec![Table {
        id: "process_spawn".into(),
        title: format!("Processes: {SPAWNS} children of `true`, {IN_FLIGHT} in flight"),
        columns: labels(cols),
        rows,
    }]
}
