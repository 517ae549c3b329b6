//! The timer rows: `timers/sleep_100k` and `timers/late_1ms`.
//!
//! The workloads live in `workloads_time.rs`, compiled once per runtime by
//! `main.rs`; each entry point builds a fresh runtime for one column.
//! Rounds rotate which column goes first. Every ratio here is the subject
//! column (uring, or legacy without it) over another column's figure, a
//! time: below 1.00 is better.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::columns::{columns, fig, group, group_head, out, subject, Column};
use crate::columns::{labels, per_column};
use crate::report::{self, Family, Figure, Kind, Table};
use crate::{timed_by_watchdog, Flavour};

/// How much of each row a mode runs.
pub struct Plan {
    /// Fresh runtimes per column for `sleep_100k`, and timed iterations on each.
    pub sleep_rounds: usize,
    pub sleep_iters: usize,
    /// Fresh runtimes per column for `late_1ms`, and samples on each.
    pub late_rounds: usize,
    pub late_samples: usize,
}

pub const QUICK: Plan = Plan {
    sleep_rounds: 2,
    sleep_iters: 1,
    late_rounds: 2,
    late_samples: 25,
};

pub const FULL: Plan = Plan {
    sleep_rounds: 4,
    sleep_iters: 4,
    late_rounds: 4,
    late_samples: 50,
};

const SLEEP_TASKS: usize = 100_000;
const SLEEP_MAX: Duration = Duration::from_millis(10);
const LATE_PERIOD: Duration = Duration::from_millis(1);

/// One row: per main column (in `columns().main` order), its samples; an
/// empty `samples` means the row panicked.
struct Row<T> {
    flavour: Flavour,
    samples: Vec<Vec<T>>,
    /// `late_1ms` only: `std::thread::sleep` on a plain thread.
    os: Vec<T>,
}

impl<T> Row<T> {
    fn failed(&self) -> bool {
        self.samples.is_empty() || self.samples.iter().any(Vec::is_empty)
    }
}

static SLEEP_ROWS: Mutex<Vec<Row<Duration>>> = Mutex::new(Vec::new());
static LATE_ROWS: Mutex<Vec<Row<i64>>> = Mutex::new(Vec::new());

/// Runs `measure` for every main column, `rounds` times, the first column
/// rotating; returns each column's samples.
fn rotate<T>(
    what: &str,
    flavour: Flavour,
    rounds: usize,
    mut measure: impl FnMut(Column) -> Vec<T>,
    mut between: impl FnMut(usize),
) -> Vec<Vec<T>> {
    let cols = &columns().main;
    let mut samples: Vec<Vec<T>> = cols.iter().map(|_| Vec::new()).collect();
    for round in 0..rounds {
        for k in 0..cols.len() {
            let i = (round + k) % cols.len();
            let column = cols[i];
            samples[i].extend(timed_by_watchdog(
                || {
                    format!(
                        "timers {what} {} / {}: round {round}",
                        flavour.label(),
                        column.label()
                    )
                },
                || measure(column),
            ));
        }
        between(round);
    }
    samples
}

/// splitmix64: the same delays for every column, and no dependency.
fn delays(n: usize, max: Duration, mut seed: u64) -> Arc<[Duration]> {
    let max_us = max.as_micros() as u64;
    (0..n)
        .map(|_| {
            seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            Duration::from_micros(z % (max_us + 1))
        })
        .collect()
}

fn sleep_row(plan: &Plan, flavour: Flavour) -> Row<Duration> {
    let delays = delays(SLEEP_TASKS, SLEEP_MAX, 0x70c1_a5ee_d5ee_d001);
    let samples = rotate(
        "sleep_100k",
        flavour,
        plan.sleep_rounds,
        |column| column.sleep_many(flavour, delays.clone(), plan.sleep_iters),
        |_| {},
    );
    Row {
        flavour,
        samples,
        os: Vec::new(),
    }
}

/// The OS floor: the same measurement with `std::thread::sleep` on a plain
/// thread.
fn os_lateness(period: Duration, samples: usize) -> Vec<i64> {
    std::thread::spawn(move || {
        (0..samples)
            .map(|_| {
                let t = Instant::now();
                std::thread::sleep(period);
                t.elapsed().as_nanos() as i64 - period.as_nanos() as i64
            })
            .collect()
    })
    .join()
    .expect("os sleep thread")
}

fn late_row(plan: &Plan, flavour: Flavour) -> Row<i64> {
    let mut os = Vec::new();
    let samples = rotate(
        "late_1ms",
        flavour,
        plan.late_rounds,
        |column| column.sleep_lateness(flavour, LATE_PERIOD, plan.late_samples),
        |round| {
            os.extend(timed_by_watchdog(
                || format!("timers late_1ms / std::thread::sleep: round {round}"),
                || os_lateness(LATE_PERIOD, plan.late_samples),
            ))
        },
    );
    Row {
        flavour,
        samples,
        os,
    }
}

/// Runs `row`, catching a panic (a runtime bug fails its row, not the table)
/// and storing an empty row in its place.
fn record<T>(key: &str, rows: &Mutex<Vec<Row<T>>>, flavour: Flavour, row: impl FnOnce() -> Row<T>) {
    eprintln!("running {key} ...");
    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(row));
    crate::clear_phase();
    rows.lock().unwrap().push(done.unwrap_or(Row {
        flavour,
        samples: Vec::new(),
        os: Vec::new(),
    }));
}

/// Runs every timer row whose key `selected` accepts.
pub fn run(plan: &Plan, selected: &impl Fn(&str) -> bool) {
    for flavour in [Flavour::MultiThread, Flavour::CurrentThread] {
        let key = format!("timers/sleep_100k/{}", flavour.label());
        if selected(&key) {
            record(&key, &SLEEP_ROWS, flavour, || sleep_row(plan, flavour));
        }
    }
    for flavour in [Flavour::MultiThread, Flavour::CurrentThread] {
        let key = format!("timers/late_1ms/{}", flavour.label());
        if selected(&key) {
            record(&key, &LATE_ROWS, flavour, || late_row(plan, flavour));
        }
    }
}

// ---------------------------------------------------------------- printing

/// Nearest-rank percentile (`permille` in 1..=1000), or `None` without samples.
fn percentile<T: Copy + Ord>(samples: &[T], permille: usize) -> Option<T> {
    let mut s = samples.to_vec();
    s.sort_unstable();
    let rank = (permille * s.len()).div_ceil(1000).max(1);
    s.get(rank - 1).copied()
}

fn print_sleep(plan: &Plan, rows: &[Row<Duration>]) {
    println!(
        "\ntimers/sleep_100k: {SLEEP_TASKS} tasks spawned from a task, each sleeping a random 0..={} ms \
         (the same seeded delays on every column), time until the last wakes, in ms\n\
         each row: {} fresh runtimes per column x {} timed iterations; ratios = {} median / that column's, < 1.00 means {} is FASTER\n",
        SLEEP_MAX.as_millis(),
        plan.sleep_rounds,
        plan.sleep_iters,
        subject().label(),
        subject().label(),
    );
    let head = group_head();
    let width = head.len();
    out(&format!(
        "{:<9} {:>5} |{:^width$} |{:^width$}",
        "", "", "median (ms)", "p90 (ms)"
    ));
    out(&format!("{:<9} {:>5} |{head} |{head}", "flavour", "iters"));
    println!("{}", "-".repeat(16 + 2 * (width + 2)));
    for row in rows {
        if row.failed() {
            println!("{:<9} FAILED (panicked; see stderr)", row.flavour.label());
            continue;
        }
        let ms = |i: usize, p| percentile(&row.samples[i], p).map(|d| d.as_secs_f64() * 1e3);
        out(&format!(
            "{:<9} {:>5} |{} |{}",
            row.flavour.label(),
            row.samples[0].len(),
            group(2, |i| ms(i, 500)),
            group(2, |i| ms(i, 900)),
        ));
    }
}

fn print_late(plan: &Plan, rows: &[Row<i64>]) {
    println!(
        "\ntimers/late_1ms: on an idle runtime, one task times `sleep(1 ms)`; lateness = elapsed - 1 ms, in us (the lower the better)\n\
         each row: {} fresh runtimes per column x {} samples; ratios = {} / that column, < 1.00 means {} is more PUNCTUAL\n\
         OS floor: std::thread::sleep(1 ms) on a plain thread, as many samples, taken between the rounds\n",
        plan.late_rounds,
        plan.late_samples,
        subject().label(),
        subject().label(),
    );
    let head = group_head();
    let width = head.len();
    out(&format!(
        "{:<9} {:>7} |{:^width$} |{:^width$} | {:^17}",
        "", "", "lateness p50 (us)", "lateness p99 (us)", "OS floor (us)"
    ));
    out(&format!(
        "{:<9} {:>7} |{head} |{head} | {:>8}{:>8}",
        "flavour", "samples", "p50", "p99"
    ));
    println!("{}", "-".repeat(18 + 2 * (width + 2) + 19));
    for row in rows {
        if row.failed() {
            println!("{:<9} FAILED (panicked; see stderr)", row.flavour.label());
            continue;
        }
        let us = |s: &[i64], p| percentile(s, p).map(|ns| ns as f64 / 1e3);
        out(&format!(
            "{:<9} {:>7} |{} |{} | {:>8}{:>8}",
            row.flavour.label(),
            row.samples[0].len(),
            group(1, |i| us(&row.samples[i], 500)),
            group(1, |i| us(&row.samples[i], 990)),
            fig(us(&row.os, 500), 1),
            fig(us(&row.os, 990), 1),
        ));
    }
}

/// Prints the tables of the rows run so far (none for a table without rows).
/// Called by the hang watchdog too, so it must not block on a held lock.
pub fn print(plan: &Plan) {
    if let Ok(rows) = SLEEP_ROWS.try_lock() {
        if !rows.is_empty() {
            print_sleep(plan, &rows);
        }
    }
    if let Ok(rows) = LATE_ROWS.try_lock() {
        if !rows.is_empty() {
            print_late(plan, &rows);
        }
    }
}

/// The rows run so far, for the report: one table per timer workload.
pub fn tables() -> Vec<Table> {
    let cols = &columns().main;
    let mut tables = Vec::new();
    if let Ok(rows) = SLEEP_ROWS.try_lock() {
        if !rows.is_empty() {
            let rows = rows
                .iter()
                .map(|row| {
                    let key = format!("timers/sleep_100k/{}", row.flavour.label());
                    if row.failed() {
                        return report::Row::failed(key, Family::Timers, "panicked; see stderr");
                    }
                    let ms =
                        |i: usize, p| percentile(&row.samples[i], p).map(|d| d.as_secs_f64() * 1e3);
                    report::Row::new(
                        key,
                        Family::Timers,
                        vec![
                            Figure::new(
                                "time until the last of 100k sleeps wakes, median",
                                "ms",
                                Kind::Time,
                                per_column(cols, |i| ms(i, 500)),
                            ),
                            Figure::new(
                                "the same, p90",
                                "ms",
                                Kind::Other,
                                per_column(cols, |i| ms(i, 900)),
                            ),
                        ],
                    )
                })
                .collect();
            tables.push(Table {
                id: "sleep_100k".into(),
                title: format!(
                    "Timers: {SLEEP_TASKS} concurrent sleeps, time until the last wakes"
                ),
                columns: labels(cols),
                rows,
            });
        }
    }
    if let Ok(rows) = LATE_ROWS.try_lock() {
        if !rows.is_empty() {
            let rows = rows
                .iter()
                .map(|row| {
                    let key = format!("timers/late_1ms/{}", row.flavour.label());
                    if row.failed() {
                        return report::Row::failed(key, Family::Timers, "panicked; see stderr");
                    }
                    let us = |s: &[i64], p| percentile(s, p).map(|ns| ns as f64 / 1e3);
                    let os = |p| us(&row.os, p);
                    let mut p50: Vec<(&str, Option<f64>)> =
                        per_column(cols, |i| us(&row.samples[i], 500)).collect();
                    let mut p99: Vec<(&str, Option<f64>)> =
                        per_column(cols, |i| us(&row.samples[i], 990)).collect();
                    p50.push(("OS floor", os(500)));
                    p99.push(("OS floor", os(990)));
                    report::Row::new(
                        key,
                        Family::Timers,
                        vec![
                            Figure::new("lateness of a 1 ms sleep, p50", "µs", Kind::Other, p50),
                            Figure::new("lateness of a 1 ms sleep, p99", "µs", Kind::P99, p99),
                        ],
                    )
                })
                .collect();
            let mut columns = labels(cols);
            columns.push("OS floor".into());
            tables.push(Table {
                id: "late_1ms".into(),
                title: "Timers: lateness of sleep(1 ms) on an idle runtime (OS floor: std::thread::sleep)".into(),
                columns,
                rows,
            });
        }
    }
    tables
}
