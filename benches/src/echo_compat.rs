//! The `echo_compat` rows (from issue 6): what tokiwa-compat's futures-io
//! adapter costs in the `tcp_echo` workload.
//!
//! Each row runs, on each tokiwa column (legacy, and uring when the kernel
//! allows it), the echo twice: `plain` is the `tcp_echo` round itself
//! (`rt::io::{AsyncReadExt, AsyncWriteExt}` on `tokiwa::net::TcpStream`),
//! `compat` the same round with the server's and the clients' streams
//! wrapped by `TokioAsyncReadCompatExt::compat()` and driven with
//! `futures::io::{AsyncReadExt, AsyncWriteExt}` (`workloads_echo_compat.rs`,
//! compiled for tokiwa only). A round runs a column's two variants back to
//! back on fresh runtimes, which one first alternating from round to round
//! and the column order rotating, so drift and background load hit both
//! variants alike.
//!
//! The acceptance line: the adapter's overhead is "within noise" when, on
//! every line, the median over the rounds of each round's own compat/plain
//! trips/s is within 5% of 1.00 (pairing within a round cancels the drift of
//! a shared machine, which pooling all rounds does not). The pooled ratios,
//! the paired quartiles and each variant's round-to-round spread are
//! printed either way.

use std::sync::Mutex;
use std::time::Duration;

use crate::columns::{columns, out, Column};
use crate::echo_round::{msg_label, percentile, EchoRound, EchoShape};
use crate::report::{self, Family, Figure, Kind, Table};
use crate::{on_tokiwa, timed_by_watchdog, Flavour, MULTI_THREAD_WORKERS};

/// How much of each row a mode runs.
pub struct Plan {
    /// Fresh runtimes per (column, variant) for each row.
    pub rounds: usize,
    pub window: Duration,
    pub warmup: usize,
}

pub const QUICK: Plan = Plan {
    rounds: 4,
    window: Duration::from_millis(100),
    warmup: 5,
};

/// Many short paired rounds rather than a few long ones: the paired median
/// needs rounds, and a window of 0.3 s still holds >10k round trips.
pub const FULL: Plan = Plan {
    rounds: 12,
    window: Duration::from_millis(300),
    warmup: 100,
};

const CONNS: [usize; 2] = [1, 16];
const MSGS: [usize; 2] = [64, 16 * 1024];
/// |1 - compat/plain| on trips/s below this is "within noise".
const NOISE: f64 = 0.05;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Variant {
    Plain = 0,
    Compat = 1,
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
    /// Each round's trips/s, in round order.
    per_round: Vec<f64>,
    /// The process's CPU time per round trip (us), all rounds pooled.
    cpu_us: f64,
    /// Each round's CPU time per round trip (us), in round order.
    cpu_per_round: Vec<f64>,
}

struct Line {
    column: Column,
    /// Quartiles (p25, median, p75) of the rounds' compat/plain trips/s,
    /// each round's two variants having run back to back: the figure the
    /// acceptance reads, as it cancels the drift that moves both alike.
    paired: [f64; 3],
    /// The same quartiles of each round's compat/plain CPU time per trip.
    paired_cpu: [f64; 3],
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
    let cpu_per_round: Vec<f64> = rounds
        .iter()
        .map(|r| us(r.cpu) / r.rtts_ns.len().max(1) as f64)
        .collect();
    let cpu: Duration = rounds.iter().map(|r| r.cpu).sum();
    let elapsed: Duration = rounds.iter().map(|r| r.elapsed).sum();
    let mut rtts: Vec<u64> = rounds.into_iter().flat_map(|r| r.rtts_ns).collect();
    rtts.sort_unstable();
    let at = |permille| Duration::from_nanos(percentile(&rtts, permille));
    Stats {
        trips_per_s: rtts.len() as f64 / elapsed.as_secs_f64(),
        rtt: [at(500), at(990)],
        spread: (max - min) / mean,
        per_round,
        cpu_us: us(cpu) / rtts.len().max(1) as f64,
        cpu_per_round,
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

/// p25, median, p75 of the per-round ratios `compat[i] / plain[i]`
/// (linear interpolation between the closest ranks).
fn quartiles(compat: &[f64], plain: &[f64]) -> [f64; 3] {
    let mut ratios: Vec<f64> = compat.iter().zip(plain).map(|(c, p)| c / p).collect();
    ratios.sort_by(f64::total_cmp);
    let q = |f: f64| {
        let pos = f * (ratios.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        ratios[lo] + (ratios[hi] - ratios[lo]) * (pos - lo as f64)
    };
    [q(0.25), q(0.5), q(0.75)]
}

fn row(plan: &Plan, conns: usize, msg: usize) -> Row {
    let shape = EchoShape {
        conns,
        msg,
        warmup: plan.warmup,
        window: plan.window,
    };
    let cols = tokiwa_columns();
    // rounds[column][variant]
    let mut rounds: Vec<[Vec<EchoRound>; 2]> = cols.iter().map(|_| Default::default()).collect();
    for round in 0..plan.rounds {
        for k in 0..cols.len() {
            // The column order rotates; within a column the two variants run
            // back to back, the first one alternating, so that each round's
            // pair saw the same machine.
            let i = (round + k) % cols.len();
            let column = cols[i];
            let mut order = [Variant::Plain, Variant::Compat];
            if round % 2 == 1 {
                order.reverse();
            }
            for variant in order {
                let v = variant as usize;
                rounds[i][v].push(timed_by_watchdog(
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
    }
    let lines = cols
        .into_iter()
        .zip(rounds)
        .map(|(column, [plain, compat])| {
            let (plain, compat) = (stats(plain), stats(compat));
            Line {
                column,
                paired: quartiles(&compat.per_round, &plain.per_round),
                paired_cpu: quartiles(&compat.cpu_per_round, &plain.cpu_per_round),
                plain,
                compat,
            }
        })
        .collect();
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
        "\necho_compat: tcp_echo on one multi({MULTI_THREAD_WORKERS}) tokiwa runtime, plain vs through tokiwa-compat's futures-io adapter\n\
         plain = rt::io::{{AsyncReadExt, AsyncWriteExt}} on TcpStream (the tcp_echo round); \
         compat = server and clients on stream.compat(), futures::io::{{AsyncReadExt, AsyncWriteExt}}\n\
         each row: {} rounds per column, a round = plain and compat back to back on fresh runtimes \
         (which goes first alternating, the column order rotating), {:.2} s window each, after {} untimed round trips per client\n\
         compat / plain: all rounds pooled (trips/s < 1.00 or RTT > 1.00 is the adapter's cost); \
         paired = median [p25, p75] of each round's own compat/plain trips/s (drift cancels within a round);\n\
         spread = (max - min) / mean of each variant's per-round trips/s, the run's own noise\n",
        plan.rounds,
        plan.window.as_secs_f64(),
        plan.warmup,
    );
    out(&format!(
        "{:<20}|{:^26} |{:^26} |{:^20} |{:^22} |{:^14}",
        "", "plain", "compat", "compat / plain", "paired trips", "spread"
    ));
    out(&format!(
        "{:<5}{:<6}{:<9}|{:>10}{:>8}{:>8} |{:>10}{:>8}{:>8} |{:>8}{:>6}{:>6} |{:>7}{:>15} |{:>7}{:>7}",
        "C", "M", "column", "trips/s", "p50us", "p99us", "trips/s", "p50us", "p99us", "trips", "p50", "p99",
        "median", "[p25, p75]", "plain", "compat"
    ));
    println!("{}", "-".repeat(20 + 28 + 28 + 22 + 24 + 14));
    for row in rows {
        let label = format!("{:<5}{:<6}", row.conns, msg_label(row.msg));
        if row.lines.is_empty() {
            println!("{label}FAILED (panicked; see stderr)");
            continue;
        }
        for (i, l) in row.lines.iter().enumerate() {
            let (p, c) = (&l.plain, &l.compat);
            out(&format!(
                "{:<11}{:<9}|{:>10.0}{:>8.1}{:>8.1} |{:>10.0}{:>8.1}{:>8.1} |{:>8.3}{:>6.2}{:>6.2} |{:>7.3}{:>15} |{:>6.1}%{:>6.1}%",
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
                l.paired[1],
                format!("[{:.3}, {:.3}]", l.paired[0], l.paired[2]),
                100.0 * p.spread,
                100.0 * c.spread,
            ));
        }
    }
    println!(
        "\nCPU per round trip: the process's CPU time (user + system, every thread: clients, server, \
         poll thread) over each window / its round trips;\n\
         unlike trips/s it does not move with how much CPU a shared machine lends, so it shows the adapter's own cost\n"
    );
    out(&format!(
        "{:<20}|{:>10}{:>10} |{:>8} |{:^22} |",
        "", "plain", "compat", "pooled", "paired compat / plain"
    ));
    out(&format!(
        "{:<5}{:<6}{:<9}|{:>10}{:>10} |{:>8} |{:>7}{:>15} |",
        "C", "M", "column", "us/trip", "us/trip", "ratio", "median", "[p25, p75]"
    ));
    println!("{}", "-".repeat(20 + 21 + 10 + 24));
    for row in rows {
        let mut label = format!("{:<5}{:<6}", row.conns, msg_label(row.msg));
        for l in &row.lines {
            out(&format!(
                "{label:<11}{:<9}|{:>10.2}{:>10.2} |{:>8.3} |{:>7.3}{:>15} |",
                l.column.label(),
                l.plain.cpu_us,
                l.compat.cpu_us,
                l.compat.cpu_us / l.plain.cpu_us,
                l.paired_cpu[1],
                format!("[{:.3}, {:.3}]", l.paired_cpu[0], l.paired_cpu[2]),
            ));
            label.clear();
        }
    }
}

/// The claim that the adapter costs nothing measurable (issue 6's
/// acceptance), read off every line's paired median.
fn print_acceptance(rows: &[Row]) {
    let lines: Vec<(&Row, &Line)> = rows
        .iter()
        .flat_map(|r| r.lines.iter().map(move |l| (r, l)))
        .collect();
    if lines.is_empty() {
        return;
    }
    let off = |l: &Line| 1.0 - l.paired[1];
    let (worst_row, worst) = lines
        .iter()
        .max_by(|a, b| off(a.1).abs().total_cmp(&off(b.1).abs()))
        .expect("not empty");
    let mean = lines.iter().map(|(_, l)| l.paired[1]).sum::<f64>() / lines.len() as f64;
    let pooled = lines
        .iter()
        .map(|(_, l)| l.compat.trips_per_s / l.plain.trips_per_s)
        .sum::<f64>()
        / lines.len() as f64;
    let failed = rows.iter().filter(|r| r.lines.is_empty()).count();
    let outside: Vec<&(&Row, &Line)> = lines
        .iter()
        .filter(|(_, l)| off(l).abs() >= NOISE)
        .collect();
    // Lines outside 5% whose paired quartiles still straddle 1.00: the
    // rounds disagree on the sign, so the gap is the machine's noise.
    let straddle = outside
        .iter()
        .filter(|(_, l)| l.paired[0] <= 1.0 && 1.0 <= l.paired[2])
        .count();
    let verdict = if failed > 0 {
        "NOT MEASURED (a row failed)"
    } else if outside.is_empty() {
        "adapter overhead within noise"
    } else {
        "adapter overhead NOT within noise"
    };
    println!(
        "\nclaim: tokiwa-compat's futures-io adapter costs nothing measurable \
         (every line's paired median compat/plain trips/s within {:.0}% of 1.00): {verdict}\n\
         measured: mean over {} lines of the paired medians {mean:.3} (pooled ratios: {pooled:.3}); \
         furthest from 1.00: {:.3} ({}x{} {})",
        100.0 * NOISE,
        lines.len(),
        worst.paired[1],
        worst_row.conns,
        msg_label(worst_row.msg),
        worst.column.label(),
    );
    let cpu = lines.iter().map(|(_, l)| l.paired_cpu[1]).sum::<f64>() / lines.len() as f64;
    let (cpu_row, cpu_worst) = lines
        .iter()
        .max_by(|a, b| {
            (a.1.paired_cpu[1] - 1.0)
                .abs()
                .total_cmp(&(b.1.paired_cpu[1] - 1.0).abs())
        })
        .expect("not empty");
    println!(
        "CPU per round trip, compat / plain (paired medians): mean {cpu:.3}; furthest from 1.00: {:.3} ({}x{} {})",
        cpu_worst.paired_cpu[1],
        cpu_row.conns,
        msg_label(cpu_row.msg),
        cpu_worst.column.label(),
    );
    if !outside.is_empty() {
        println!(
            "{} of {} lines outside {:.0}%; on {straddle} of them the paired [p25, p75] still straddles 1.00 \
             (rounds disagree on the sign: noise, not a consistent cost)",
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

/// The rows run so far, for the report: per tokiwa column, plain against
/// compat (no tokio column: the adapter is tokiwa's).
pub fn tables() -> Vec<Table> {
    let Ok(rows) = ROWS.try_lock() else {
        return Vec::new();
    };
    if rows.is_empty() {
        return Vec::new();
    }
    let mut out_rows = Vec::new();
    for row in rows.iter() {
        let key = format!(
            "echo_compat/c{}/{}/multi({MULTI_THREAD_WORKERS})",
            row.conns,
            msg_label(row.msg)
        );
        if row.lines.is_empty() {
            out_rows.push(report::Row::failed(
                key,
                Family::EchoCompat,
                "panicked; see stderr",
            ));
            continue;
        }
        for l in &row.lines {
            let both = |f: &dyn Fn(&Stats) -> f64| {
                [("plain", Some(f(&l.plain))), ("compat", Some(f(&l.compat)))]
            };
            out_rows.push(report::Row::new(
                format!("{key} {}", l.column.label()),
                Family::EchoCompat,
                vec![
                    Figure::new(
                        "throughput",
                        "round trips/s",
                        Kind::Throughput,
                        both(&|s| s.trips_per_s),
                    ),
                    Figure::new("RTT p99", "µs", Kind::P99, both(&|s| us(s.rtt[1]))),
                    Figure::new("CPU per round trip", "µs", Kind::Cpu, both(&|s| s.cpu_us)),
                ],
            ));
        }
    }
    vec![Table {
        id: "echo_compat".into(),
        title: "tokiwa-compat's futures-io adapter: tcp_echo plain vs through the adapter".into(),
        columns: vec!["plain".into(), "compat".into()],
        rows: out_rows,
    }]
}
