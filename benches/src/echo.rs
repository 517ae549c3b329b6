//! The `tcp_echo` rows, their ablation and the per-driver breakdown.
//!
//! The workload lives in `workloads_net.rs`, compiled once per runtime by
//! `main.rs`; each round builds a fresh runtime for one column. Rounds
//! rotate which column goes first, so drift and background load hit every
//! column alike.
//!
//! Rows print one line per column, every line with its ratios to tokio and
//! to legacy, so `uring / tokio` and `uring / legacy` (issue 4's targets)
//! read straight off the uring line. The ablation adds a `no-defer` line to
//! a few rows: the same uring driver built with `SINGLE_ISSUER` only, so
//! the gap between `uring` and `no-defer` is what `DEFER_TASKRUN |
//! TASKRUN_FLAG` bring. The breakdown then shows, for one row, what each
//! tokiwa driver did per round trip, from `RuntimeMetrics` deltas taken
//! when the window opens and when the last client finishes.

use std::sync::Mutex;
use std::time::Duration;

use crate::columns::{columns, fig, labels, out, per_column, ratio, Column};
use crate::echo_round::{msg_label, percentile, Counters, EchoRound, EchoShape};
use crate::report::{self, Family, Figure, Kind, Table};
use crate::{timed_by_watchdog, Flavour, MULTI_THREAD_WORKERS};

/// How much of each row a mode runs.
pub struct Plan {
    /// Fresh runtimes per column for each row.
    pub rounds: usize,
    pub window: Duration,
    pub warmup: usize,
    /// Whether the rows of `ABLATION` get the `no-defer` column.
    pub ablation: bool,
}

pub const QUICK: Plan = Plan {
    rounds: 2,
    window: Duration::from_millis(150),
    warmup: 5,
    ablation: true,
};

pub const FULL: Plan = Plan {
    rounds: 4,
    window: Duration::from_millis(1000),
    warmup: 100,
    ablation: true,
};

const CONNS: [usize; 3] = [1, 16, 256];
const MSGS: [usize; 2] = [64, 16 * 1024];
/// The (conns, msg) rows that also run the `no-defer` column.
const ABLATION: [(usize, usize); 2] = [(1, 64), (16, 64)];
/// The (conns, msg) rows whose counters the breakdown shows (else the first
/// row that ran): one message in flight at a time, then many.
const BREAKDOWN: [(usize, usize); 2] = [(1, 64), (16, 64)];

/// One column's figures for one row.
struct Stats {
    column: Column,
    round_trips_per_s: f64,
    /// p50, p99, p99.9 of the round-trip time.
    rtt: [Duration; 3],
    /// Summed over the rounds, with the round trips they cover.
    counters: Option<(Counters, u64)>,
}

struct Row {
    conns: usize,
    msg: usize,
    /// One entry per column that ran, in column order; empty if it failed.
    stats: Vec<Stats>,
}

static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());

fn stats(column: Column, rounds: Vec<EchoRound>) -> Stats {
    let elapsed: Duration = rounds.iter().map(|r| r.elapsed).sum();
    let mut counters: Option<(Counters, u64)> = None;
    for r in &rounds {
        if let Some(c) = r.counters {
            let (sum, trips) = counters.get_or_insert_with(Default::default);
            sum.add(c);
            *trips += r.rtts_ns.len() as u64;
        }
    }
    let mut rtts: Vec<u64> = rounds.into_iter().flat_map(|r| r.rtts_ns).collect();
    rtts.sort_unstable();
    let at = |permille| Duration::from_nanos(percentile(&rtts, permille));
    Stats {
        column,
        round_trips_per_s: rtts.len() as f64 / elapsed.as_secs_f64(),
        rtt: [at(500), at(990), at(999)],
        counters,
    }
}

fn row(plan: &Plan, conns: usize, msg: usize) -> Row {
    let shape = EchoShape {
        conns,
        msg,
        warmup: plan.warmup,
        window: plan.window,
    };
    let mut cols = columns().main.clone();
    if plan.ablation && columns().ablation && ABLATION.contains(&(conns, msg)) {
        cols.push(Column::UringNoDefer);
    }
    let mut rounds: Vec<Vec<EchoRound>> = cols.iter().map(|_| Vec::new()).collect();
    for round in 0..plan.rounds {
        for k in 0..cols.len() {
            let i = (round + k) % cols.len();
            let column = cols[i];
            rounds[i].push(timed_by_watchdog(
                || {
                    format!(
                        "tcp_echo c={conns} m={} / {}: round {round}",
                        msg_label(msg),
                        column.label()
                    )
                },
                || column.tcp_echo_round(shape),
            ));
        }
    }
    Row {
        conns,
        msg,
        stats: cols
            .into_iter()
            .zip(rounds)
            .map(|(c, r)| stats(c, r))
            .collect(),
    }
}

/// Runs every `tcp_echo` row whose key `selected` accepts.
pub fn run(plan: &Plan, selected: &impl Fn(&str) -> bool) {
    for conns in CONNS {
        for msg in MSGS {
            let key = format!(
                "tcp_echo/c{conns}/{}/{}",
                msg_label(msg),
                Flavour::MultiThread.label()
            );
            if !selected(&key) {
                continue;
            }
            eprintln!("running {key} ...");
            // A runtime bug fails its row, not the table.
            let done = std::panic::catch_unwind(|| row(plan, conns, msg));
            crate::clear_phase();
            ROWS.lock().unwrap().push(done.unwrap_or(Row {
                conns,
                msg,
                stats: Vec::new(),
            }));
        }
    }
}

fn us(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e3
}

/// Throughput, then p50, p99, p99.9 in microseconds.
fn figures(s: &Stats) -> [f64; 4] {
    [
        s.round_trips_per_s,
        us(s.rtt[0]),
        us(s.rtt[1]),
        us(s.rtt[2]),
    ]
}

fn print_rows(plan: &Plan, rows: &[Row]) {
    println!(
        "\nIN-PROCESS tcp_echo (the clients run inside the measured runtime): loopback echo server + C client connections on one multi({MULTI_THREAD_WORKERS}) runtime; \
         each client writes M bytes, reads them back, repeats (TCP_NODELAY)\n\
         each row: {} fresh runtimes per column (the order rotating), {:.2} s window each, after {} untimed round trips per client\n\
         ratios = this line / the tokio (or legacy) line of its row: trips/s > 1.00 is FASTER; RTT percentiles < 1.00 is FASTER",
        plan.rounds,
        plan.window.as_secs_f64(),
        plan.warmup,
    );
    if plan.ablation && columns().ablation {
        let rows: Vec<String> = ABLATION
            .iter()
            .map(|&(c, m)| format!("{c}x{}", msg_label(m)))
            .collect();
        println!(
            "no-defer (ablation, rows {}): the uring driver with SINGLE_ISSUER only, without DEFER_TASKRUN | TASKRUN_FLAG",
            rows.join(", ")
        );
    }
    println!();
    let ratio_head = format!("{:>6}{:>6}{:>6}{:>7}", "trips", "p50", "p99", "p99.9");
    out(&format!(
        "{:<20}|{:^17} |{:^24} | {:^25} | {:^25}",
        "", "round trips", "RTT (us)", "ratio to tokio", "ratio to legacy"
    ));
    out(&format!(
        "{:<5}{:<6}{:<9}|{:>9}{:>8} |{:>8}{:>8}{:>8} | {ratio_head} | {ratio_head}",
        "C", "M", "column", "per s", "MB/s", "p50", "p99", "p99.9"
    ));
    println!("{}", "-".repeat(20 + 19 + 26 + 2 * 28));
    for row in rows {
        let label = format!("{:<5}{:<6}", row.conns, msg_label(row.msg));
        if row.stats.is_empty() {
            println!("{label}FAILED (panicked; see stderr)");
            continue;
        }
        let base = |c: Column| row.stats.iter().find(|s| s.column == c).map(figures);
        let (tokio, legacy) = (base(Column::Tokio), base(Column::Legacy));
        for (i, s) in row.stats.iter().enumerate() {
            let f = figures(s);
            let mut line = format!(
                "{:<11}{:<9}|{:>9.0}{:>8.1} |{:>8.1}{:>8.1}{:>8.1} |",
                if i == 0 { label.as_str() } else { "" },
                s.column.label(),
                f[0],
                f[0] * row.msg as f64 / 1e6,
                f[1],
                f[2],
                f[3],
            );
            for (base, skip) in [(tokio, Column::Tokio), (legacy, Column::Legacy)] {
                line += " ";
                for (k, width) in [6, 6, 6, 7].into_iter().enumerate() {
                    let r = if s.column == skip {
                        String::new()
                    } else {
                        ratio(Some(f[k]), base.map(|b| b[k]))
                    };
                    line += &format!("{r:>width$}");
                }
                line += " |";
            }
            out(line.trim_end_matches('|'));
        }
    }
}

/// The claims on `tcp_echo`, read off the uring lines (from issue 4).
fn print_targets(rows: &[Row]) {
    if !columns().main.contains(&Column::Uring) {
        return;
    }
    println!(
        "\nclaims for io_uring: >= 1.00x legacy's round trips/s at <= 0.85x its p99 on every row; \
         >= 1.10x tokio's round trips/s at <= 0.90x its p99 at 16 and 256 connections"
    );
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    // (row, trips/s ratio, p99 ratio, met) vs tokio at 16+ connections.
    let mut vs_tokio: Vec<(String, f64, f64, bool)> = Vec::new();
    for row in rows {
        let get = |c: Column| row.stats.iter().find(|s| s.column == c).map(figures);
        let (Some(u), Some(l), Some(t)) =
            (get(Column::Uring), get(Column::Legacy), get(Column::Tokio))
        else {
            continue;
        };
        let (trips, p99) = (u[0] / l[0], u[2] / l[2]);
        let mut line = format!(
            "{:<5}{:<6} vs legacy: trips/s {trips:.2}, p99 {p99:.2}: {:<6}",
            row.conns,
            msg_label(row.msg),
            verdict(trips >= 1.0 && p99 <= 0.85),
        );
        if row.conns >= 16 {
            let (trips, p99) = (u[0] / t[0], u[2] / t[2]);
            let met = trips >= 1.1 && p99 <= 0.9;
            line += &format!(
                " | vs tokio: trips/s {trips:.2}, p99 {p99:.2}: {}",
                verdict(met)
            );
            let name = format!("c{}/{}", row.conns, msg_label(row.msg));
            vs_tokio.push((name, trips, p99, met));
        }
        out(&line);
    }
    if !vs_tokio.is_empty() {
        let figures: Vec<String> = vs_tokio
            .iter()
            .map(|(name, trips, p99, _)| format!("{trips:.2}x at p99 {p99:.2}x ({name})"))
            .collect();
        let missed: Vec<&str> = vs_tokio
            .iter()
            .filter(|v| !v.3)
            .map(|v| v.0.as_str())
            .collect();
        println!(
            "io_uring >= 1.10x tokio's round trips/s at <= 0.90x its p99, at 16 and 256 connections: {}: {}",
            figures.join(" / "),
            if missed.is_empty() {
                "met".to_string()
            } else {
                format!("missed at {}", missed.join(", "))
            }
        );
    }
}

/// The per-round-trip counters of the `BREAKDOWN` rows (else of the first
/// row that has counters), one line per tokiwa column.
fn print_breakdown(rows: &[Row]) {
    let with_counters = |r: &&Row| r.stats.iter().any(|s| s.counters.is_some());
    let mut shown: Vec<&Row> = rows
        .iter()
        .filter(with_counters)
        .filter(|r| BREAKDOWN.contains(&(r.conns, r.msg)))
        .collect();
    if shown.is_empty() {
        shown.extend(rows.iter().find(with_counters));
    }
    if shown.is_empty() {
        return;
    }
    println!(
        "\nwhere the time goes, per round trip, summed over the workers \
         (tokiwa's RuntimeMetrics, deltas over each window; tokio's equivalents are unstable API)\n\
         1 conn: one message in flight at a time; 16 conns: many, so one enter can reap several completions\n\
         enters = io_uring_enter calls; CQEs = completions reaped; eventfd = wake-up writes; \
         coalesced = notifications needing no write;\n\
         taskrun = enters because the kernel flagged deferred completions; re-arms = multishot wake polls re-armed; \
         parks = a worker went idle; polls = tasks polled\n",
    );
    println!(
        "{:<5}{:<6}{:<9}{:>9} {:>8} {:>8} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "C",
        "M",
        "column",
        "trips",
        "enters",
        "CQEs",
        "eventfd",
        "coalesced",
        "taskrun",
        "re-arms",
        "parks",
        "polls",
        "steals"
    );
    println!("{}", "-".repeat(20 + 9 + 10 + 9 * 8));
    for row in shown {
        let mut label = format!("{:<5}{:<6}", row.conns, msg_label(row.msg));
        for s in &row.stats {
            let Some((c, trips)) = s.counters else {
                continue;
            };
            let uring = s.column != Column::Legacy;
            let per = |n: u64, applies: bool| {
                let x = (applies && trips > 0).then(|| n as f64 / trips as f64);
                fig(x, 3)
            };
            println!(
                "{label:<11}{:<9}{:>9} {:>8} {:>8} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}",
                s.column.label(),
                trips,
                per(c.ring_enters, uring),
                per(c.cqes, uring),
                per(c.eventfd_writes, uring),
                per(c.coalesced_notifies, uring),
                per(c.taskrun_enters, uring),
                per(c.wake_rearms, uring),
                per(c.parks, true),
                per(c.polls, true),
                per(c.steals, true),
            );
            label.clear();
        }
    }
    println!(
        "(ring columns are '-' for legacy: it has no ring; its poll threads' epoll_wait calls are not counted)"
    );
}

/// Prints the rows run so far, then the breakdown (nothing without rows).
/// Called by the hang watchdog too, so it must not block on a held lock.
pub fn print(plan: &Plan) {
    if let Ok(rows) = ROWS.try_lock() {
        if !rows.is_empty() {
            print_rows(plan, &rows);
            print_targets(&rows);
            print_breakdown(&rows);
        }
    }
}

/// The rows run so far, for the report: trips/s and the RTT percentiles
/// (the `no-defer` ablation column is left to the table).
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
            let key = format!(
                "tcp_echo/c{}/{}/multi({MULTI_THREAD_WORKERS})",
                row.conns,
                msg_label(row.msg)
            );
            if row.stats.is_empty() {
                return report::Row::failed(key, Family::Echo, "panicked; see stderr");
            }
            let get = |i: usize, k: usize| {
                row.stats
                    .iter()
                    .find(|s| s.column == cols[i])
                    .map(|s| figures(s)[k])
            };
            report::Row::new(
                key,
                Family::Echo,
                vec![
                    Figure::new(
                        "throughput",
                        "round trips/s",
                        Kind::Throughput,
                        per_column(cols, |i| get(i, 0)),
                    ),
                    Figure::new(
                        "RTT p50",
                        "µs",
                        Kind::Other,
                        per_column(cols, |i| get(i, 1)),
                    ),
                    Figure::new("RTT p99", "µs", Kind::P99, per_column(cols, |i| get(i, 2))),
                    Figure::new(
                        "RTT p99.9",
                        "µs",
                        Kind::Other,
                        per_column(cols, |i| get(i, 3)),
                    ),
                ],
            )
        })
        .collect();
    vec![Table {
        id: "tcp_echo".into(),
        title: "In-process TCP echo: clients inside the measured runtime".into(),
        columns: labels(cols),
        rows,
    }]
}
