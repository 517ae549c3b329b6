//! The `echo_compat` rows (issue 6): what tokiwa-compat's futures-io
//! adapter costs in the `tcp_echo` workload.
//!
//! Each row runs, on each tokiwa column (legacy, and uring when the kernel
//! allows it), the echo twice: `plain` is the `tcp_echo` round itself
//! (`rt::io::{AsyncReadExt, AsyncWriteExt}` on `tokiwa::net::TcpStream`),
//! `compat` the same round with the server's and the clients' streams
//! wrapped by `TokioAsyncReadCompatExt::compat()` and driven with
//! `futures::io::{AsyncReadExt, AsyncWriteExt}` (`workloads_echo_compat.rs`,
//! compiled for tokiwa only). Rounds rotate which (column, variant) runs
//! first, so drift and background load hit both variants alike.
//!
//! The acceptance line: the adapter's overhead is "within noise" when
//! compat/plain trips/s is within 5% of 1.00 on every line; the measured
//! ratios and the plain rounds' own spread are printed either way.

use std::sync::Mutex;
use std::time::Duration;

use crate::columns::{columns, out, Column};
use crate::echo::{msg_label, percentile, EchoRound, EchoShape};
use crate::{on_tokiwa, timed_by_watchdog, Flavour, MULTI_THREAD_WORKERS};

/// How much of each row a mode runs.
pub struct Plan {
    /// Fresh runtimes per (column, variant) for each row.
    pub rounds: usize,
    pub window: Duration,
    pub warmup: usize,
}

pub const QUICK: Plan = Plan {
    rounds: 2,
    window: Duration::from_millis(150),
    warmup: 5,
};

pub const FULL: Plan = Plan {
    rounds: 4,
    window: Duration::from_millis(1000),
    warmup: 100,
};

const CONNS: [usize; 2] = [1, 16];
const MSGS: [usize; 2] = [64, 16 * 1024];
/// |1 - compat/plain| on trips/s below this is "within noise".
const NOISE: f64 = 0.05;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Variant {
    Plain,
    Compat,
}

impl Variant {
    fn label(self) -> &'static str {
        match self {
            Variant::Plain => "plain",
            Variant::Compat => "compat",
        }
    }

    fn round(self, column: Column, shape: EchoShape) -> EchoRound {
        match self {
            Variant::Plain => on_tokiwa::echo_compat::plain_round(shape, column),
            Variant::Compat => on_tokiwa::echo_compat::compat_round(shape, column),
        }
    }
}

/// One variant's figures on one column.
struct Stats {
    trips_per_s: f64,
    /// p50, p99 of the round-trip time.
    rtt: [Duration; 2],
    /// (max - min) / mean of the rounds' own trips/s.
    spread: f64,
}

struct Line {
    column: Column,
    plain: Stats,
    compat: Stats,
}

struct Row {
    conns: usize,
    msg: usize,
    /// One line per tokiwa column; empty if the row failed.
    lines: Vec<Line>,
}

static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());

fn stats(rounds: Vec<EchoRound>) -> Stats {
    let per_round: Vec<f64> = rounds
        .iter()
        .map(|r| r.rtts_ns.len() as f64 / r.elapsed.as_secs_f64())
        .collect();
    let mean = per_round.iter().sum::<f64>() / per_round.len() as f64;
    let (min, max) = per_round
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let elapsed: Duration = rounds.iter().map(|r| r.elapsed).sum();
    let mut rtts: Vec<u64> = rounds.into_iter().flat_map(|r| r.rtts_ns).collect();
    rtts.sort_unstable();
    let at = |permille| Duration::from_nanos(percentile(&rtts, permille));
    Stats {
        trips_per_s: rtts.len() as f64 / elapsed.as_secs_f64(),
        rtt: [at(500), at(990)],
        spread: (max - min) / mean,
    }
}

/// The tokiwa columns: legacy, and uring when the kernel allows it.
fn tokiwa_columns() -> Vec<Column> {
    columns()
        .main
        .iter()
        .copied()
        .filter(|&c| c != Column::Tokio)
        .collect()
}

fn row(plan: &Plan, conns: usize, msg: usize) -> Row {
    let shape = EchoShape {
        conns,
        msg,
        warmup: plan.warmup,
        window: plan.window,
    };
    let jobs: Vec<(Column, Variant)> = tokiwa_columns()
        .into_iter()
        .flat_map(|c| [(c, Variant::Plain), (c, Variant::Compat)])
        .collect();
    let mut rounds: Vec<Vec<EchoRound>> = jobs.iter().map(|_| Vec::new()).collect();
    for round in 0..plan.rounds {
        for k in 0..jobs.len() {
            let i = (round + k) % jobs.len();
            let (column, variant) = jobs[i];
            rounds[i].push(timed_by_watchdog(
                || {
                    format!(
                        "echo_compat c={conns} m={} / {} {}: round {round}",
                        msg_label(msg),
                        column.label(),
                        variant.label()
                    )
                },
                || variant.round(column, shape),
            ));
        }
    }
    let mut rounds = rounds.into_iter();
    let mut lines = Vec::new();
    for pair in jobs.chunks(2) {
        let (plain, compat) = (rounds.next().unwrap(), rounds.next().unwrap());
        lines.push(Line {
            column: pair[0].0,
            plain: stats(plain),
            compat: stats(compat),
        });
    }
    Row { conns, msg, lines }
}

/// Runs every `echo_compat` row whose key `selected` accepts.
pub fn run(plan: &Plan, selected: &impl Fn(&str) -> bool) {
    for conns in CONNS {
        for msg in MSGS {
            let key = format!(
                "echo_compat/c{conns}/{}/{}",
                msg_label(msg),
                Flavour::MultiThread.label()
            );
            if !selected(&key) {
                continue;
            }
            eprintln!("running {key} ...");
            // A runtime or adapter bug fails its row, not the table.
            let done = std::panic::catch_unwind(|| row(plan, conns, msg));
            crate::clear_phase();
            ROWS.lock().unwrap().push(done.unwrap_or(Row {
                conns,
                msg,
                lines: Vec::new(),
            }));
        }
    }
}

fn us(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e3
}

fn print_rows(plan: &Plan, rows: &[Row]) {
    println!(
        "\necho_compat (issue 6): tcp_echo on one multi({MULTI_THREAD_WORKERS}) tokiwa runtime, plain vs through tokiwa-compat's futures-io adapter\n\
         plain = rt::io::{{AsyncReadExt, AsyncWriteExt}} on TcpStream (the tcp_echo round); \
         compat = server and clients on stream.compat(), futures::io::{{AsyncReadExt, AsyncWriteExt}}\n\
         each row: {} fresh runtimes per column and variant (the order rotating), {:.2} s window each, after {} untimed round trips per client\n\
         ratio = compat / plain: trips/s < 1.00 is the adapter's cost; RTT > 1.00 likewise; \
         spread = (max - min) / mean of each variant's per-round trips/s, the run's own noise\n",
        plan.rounds,
        plan.window.as_secs_f64(),
        plan.warmup,
    );
    out(&format!(
        "{:<20}|{:^26} |{:^26} |{:^20} |{:^14}",
        "", "plain", "compat", "compat / plain", "spread"
    ));
    out(&format!(
        "{:<5}{:<6}{:<9}|{:>10}{:>8}{:>8} |{:>10}{:>8}{:>8} |{:>8}{:>6}{:>6} |{:>7}{:>7}",
        "C",
        "M",
        "column",
        "trips/s",
        "p50us",
        "p99us",
        "trips/s",
        "p50us",
        "p99us",
        "trips",
        "p50",
        "p99",
        "plain",
        "compat"
    ));
    println!("{}", "-".repeat(20 + 28 + 28 + 22 + 14));
    for row in rows {
        let label = format!("{:<5}{:<6}", row.conns, msg_label(row.msg));
        if row.lines.is_empty() {
            println!("{label}FAILED (panicked; see stderr)");
            continue;
        }
        for (i, l) in row.lines.iter().enumerate() {
            let (p, c) = (&l.plain, &l.compat);
            out(&format!(
                "{:<11}{:<9}|{:>10.0}{:>8.1}{:>8.1} |{:>10.0}{:>8.1}{:>8.1} |{:>8.3}{:>6.2}{:>6.2} |{:>6.1}%{:>6.1}%",
                if i == 0 { label.as_str() } else { "" },
                l.column.label(),
                p.trips_per_s,
                us(p.rtt[0]),
                us(p.rtt[1]),
                c.trips_per_s,
                us(c.rtt[0]),
                us(c.rtt[1]),
                c.trips_per_s / p.trips_per_s,
                us(c.rtt[0]) / us(p.rtt[0]),
                us(c.rtt[1]) / us(p.rtt[1]),
                100.0 * p.spread,
                100.0 * c.spread,
            ));
        }
    }
}

/// Issue 6's acceptance, read off every line.
fn print_acceptance(rows: &[Row]) {
    let lines: Vec<(&Row, &Line)> = rows
        .iter()
        .flat_map(|r| r.lines.iter().map(move |l| (r, l)))
        .collect();
    if lines.is_empty() {
        return;
    }
    let off = |l: &Line| 1.0 - l.compat.trips_per_s / l.plain.trips_per_s;
    let (worst_row, worst) = lines
        .iter()
        .max_by(|a, b| off(a.1).abs().total_cmp(&off(b.1).abs()))
        .expect("not empty");
    let mean = lines
        .iter()
        .map(|(_, l)| l.compat.trips_per_s / l.plain.trips_per_s)
        .sum::<f64>()
        / lines.len() as f64;
    let failed = rows.iter().filter(|r| r.lines.is_empty()).count();
    let within = lines.iter().all(|(_, l)| off(l).abs() < NOISE) && failed == 0;
    // Lines outside 5% whose gap is no larger than their own rounds' spread:
    // the machine's noise cannot be told from the adapter's cost there.
    let outside: Vec<&(&Row, &Line)> = lines
        .iter()
        .filter(|(_, l)| off(l).abs() >= NOISE)
        .collect();
    let inside_spread = outside
        .iter()
        .filter(|(_, l)| off(l).abs() <= l.plain.spread.max(l.compat.spread))
        .count();
    println!(
        "\nissue 6 acceptance (|1 - compat/plain trips/s| < {:.0}% on every line): {}\n\
         measured: mean compat/plain trips/s {mean:.3} over {} lines; furthest from 1.00: {:.3} \
         ({}x{} {}){}",
        100.0 * NOISE,
        if within {
            "adapter overhead within noise"
        } else {
            "adapter overhead NOT within noise"
        },
        lines.len(),
        1.0 - off(worst),
        worst_row.conns,
        msg_label(worst_row.msg),
        worst.column.label(),
        if failed > 0 {
            format!("; {failed} row(s) FAILED")
        } else {
            String::new()
        },
    );
    if !outside.is_empty() {
        println!(
            "{} of {} lines outside {:.0}%; {inside_spread} of them by no more than their own rounds' spread \
             (run-to-run noise at least as large as the gap)",
            outside.len(),
            lines.len(),
            100.0 * NOISE,
        );
    }
}

/// Prints the rows run so far and the acceptance line (nothing without
/// rows). Called by the hang watchdog too, so it must not block on a held
/// lock.
pub fn print(plan: &Plan) {
    if let Ok(rows) = ROWS.try_lock() {
        if !rows.is_empty() {
            print_rows(plan, &rows);
            print_acceptance(&rows);
        }
    }
}
