//! The network and timer rows: `tcp_echo` and `timers`.
//!
//! The workloads live in `workloads_net.rs` and `workloads_time.rs`, compiled
//! once per runtime by `main.rs` like `workloads.rs`. Their entry points
//! build a fresh runtime each, so this driver reaches them through a table of
//! plain functions per runtime (`Side`) and never names a runtime type.
//!
//! Rounds alternate which runtime goes first. Unlike the runtime rows, the
//! alternation is per round rather than per iteration, since each side owns
//! its runtime for the whole round.
//!
//! Every ratio in these tables is tokiwa / tokio: above 1.00 is better for a
//! throughput, below 1.00 is better for a time or a latency. Each ratio
//! column says which.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::{timed_by_watchdog, Flavour, MULTI_THREAD_WORKERS};

/// What one `tcp_echo` round runs.
#[derive(Clone, Copy, Debug)]
pub struct EchoShape {
    /// Client connections, each with its own server task.
    pub conns: usize,
    /// Bytes per message, written and then read back.
    pub msg: usize,
    /// Untimed round trips per client before the window opens.
    pub warmup: usize,
    /// How long the clients keep starting round trips.
    pub window: Duration,
}

/// What one `tcp_echo` round measured.
pub struct EchoRound {
    /// Every round trip's time, in nanoseconds, from all clients.
    pub rtts_ns: Vec<u64>,
    /// From the window's opening until the last client finished its last trip.
    pub elapsed: Duration,
}

/// How much of each row a mode runs.
pub struct Plan {
    /// Fresh runtimes per side for each `tcp_echo` row.
    pub echo_rounds: usize,
    pub echo_window: Duration,
    pub echo_warmup: usize,
    /// Fresh runtimes per side for `sleep_100k`, and timed iterations on each.
    pub sleep_rounds: usize,
    pub sleep_iters: usize,
    /// Fresh runtimes per side for `late_1ms`, and samples on each.
    pub late_rounds: usize,
    pub late_samples: usize,
}

pub const QUICK: Plan = Plan {
    echo_rounds: 2,
    echo_window: Duration::from_millis(400),
    echo_warmup: 20,
    sleep_rounds: 2,
    sleep_iters: 3,
    late_rounds: 2,
    late_samples: 25,
};

pub const FULL: Plan = Plan {
    echo_rounds: 4,
    echo_window: Duration::from_millis(1500),
    echo_warmup: 100,
    sleep_rounds: 4,
    sleep_iters: 5,
    late_rounds: 4,
    late_samples: 50,
};

const ECHO_CONNS: [usize; 3] = [1, 16, 256];
const ECHO_MSGS: [usize; 2] = [64, 16 * 1024];
const SLEEP_TASKS: usize = 100_000;
const SLEEP_MAX: Duration = Duration::from_millis(10);
const LATE_PERIOD: Duration = Duration::from_millis(1);

/// One runtime's entry points into the twice-compiled workload files.
struct Side {
    name: &'static str,
    tcp_echo_round: fn(EchoShape) -> EchoRound,
    sleep_many: fn(Flavour, Arc<[Duration]>, usize) -> Vec<Duration>,
    sleep_lateness: fn(Flavour, Duration, usize) -> Vec<i64>,
}

const TOKIO: Side = Side {
    name: crate::on_tokio::w::NAME,
    tcp_echo_round: crate::on_tokio::net::tcp_echo_round,
    sleep_many: crate::on_tokio::timers::sleep_many,
    sleep_lateness: crate::on_tokio::timers::sleep_lateness,
};

const TOKIWA: Option<Side> = Some(Side {
    name: crate::on_tokiwa::w::NAME,
    tcp_echo_round: crate::on_tokiwa::net::tcp_echo_round,
    sleep_many: crate::on_tokiwa::timers::sleep_many,
    sleep_lateness: crate::on_tokiwa::timers::sleep_lateness,
});

/// Runs `f` for tokio and (when built) tokiwa, the order flipping with `round`.
fn both<T>(round: usize, mut f: impl FnMut(&Side) -> T) -> (T, Option<T>) {
    match &TOKIWA {
        Some(tokiwa) if round % 2 == 1 => {
            let w = f(tokiwa);
            (f(&TOKIO), Some(w))
        }
        Some(tokiwa) => {
            let t = f(&TOKIO);
            (t, Some(f(tokiwa)))
        }
        None => (f(&TOKIO), None),
    }
}

// ---------------------------------------------------------------- tcp_echo

struct EchoStats {
    round_trips_per_s: f64,
    /// p50, p99, p99.9 of the round-trip time.
    rtt: [Duration; 3],
}

struct EchoRow {
    conns: usize,
    msg: usize,
    tokio: Option<EchoStats>,
    tokiwa: Option<EchoStats>,
    failed: bool,
}

fn echo_stats(rounds: Vec<EchoRound>) -> EchoStats {
    let elapsed: Duration = rounds.iter().map(|r| r.elapsed).sum();
    let mut rtts: Vec<u64> = rounds.into_iter().flat_map(|r| r.rtts_ns).collect();
    rtts.sort_unstable();
    let at = |permille| Duration::from_nanos(percentile(&rtts, permille));
    EchoStats {
        round_trips_per_s: rtts.len() as f64 / elapsed.as_secs_f64(),
        rtt: [at(500), at(990), at(999)],
    }
}

fn msg_label(msg: usize) -> String {
    if msg >= 1024 && msg.is_multiple_of(1024) {
        format!("{}KiB", msg / 1024)
    } else {
        format!("{msg}B")
    }
}

fn echo_row(plan: &Plan, conns: usize, msg: usize) -> EchoRow {
    let shape = EchoShape {
        conns,
        msg,
        warmup: plan.echo_warmup,
        window: plan.echo_window,
    };
    let mut tokio = Vec::new();
    let mut tokiwa = Vec::new();
    for round in 0..plan.echo_rounds {
        let (t, w) = both(round, |side| {
            timed_by_watchdog(
                || {
                    format!(
                        "tcp_echo c={conns} m={} / {}: round {round}",
                        msg_label(msg),
                        side.name
                    )
                },
                || (side.tcp_echo_round)(shape),
            )
        });
        tokio.push(t);
        tokiwa.extend(w);
    }
    EchoRow {
        conns,
        msg,
        tokio: Some(echo_stats(tokio)),
        tokiwa: (!tokiwa.is_empty()).then(|| echo_stats(tokiwa)),
        failed: false,
    }
}

// ------------------------------------------------------------------ timers

struct SleepRow {
    flavour: Flavour,
    tokio: Vec<Duration>,
    tokiwa: Vec<Duration>,
    failed: bool,
}

struct LateRow {
    flavour: Flavour,
    tokio: Vec<i64>,
    tokiwa: Vec<i64>,
    os: Vec<i64>,
    failed: bool,
}

/// splitmix64: the same delays for both runtimes, and no dependency.
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

fn sleep_row(plan: &Plan, flavour: Flavour) -> SleepRow {
    let delays = delays(SLEEP_TASKS, SLEEP_MAX, 0x70c1_a5ee_d5ee_d001);
    let mut tokio = Vec::new();
    let mut tokiwa = Vec::new();
    for round in 0..plan.sleep_rounds {
        let (t, w) = both(round, |side| {
            timed_by_watchdog(
                || {
                    format!(
                        "timers sleep_100k {} / {}: round {round}",
                        flavour.label(),
                        side.name
                    )
                },
                || (side.sleep_many)(flavour, delays.clone(), plan.sleep_iters),
            )
        });
        tokio.extend(t);
        tokiwa.extend(w.into_iter().flatten());
    }
    SleepRow {
        flavour,
        tokio,
        tokiwa,
        failed: false,
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

fn late_row(plan: &Plan, flavour: Flavour) -> LateRow {
    let mut tokio = Vec::new();
    let mut tokiwa = Vec::new();
    let mut os = Vec::new();
    for round in 0..plan.late_rounds {
        let (t, w) = both(round, |side| {
            timed_by_watchdog(
                || {
                    format!(
                        "timers late_1ms {} / {}: round {round}",
                        flavour.label(),
                        side.name
                    )
                },
                || (side.sleep_lateness)(flavour, LATE_PERIOD, plan.late_samples),
            )
        });
        tokio.extend(t);
        tokiwa.extend(w.into_iter().flatten());
        os.extend(timed_by_watchdog(
            || format!("timers late_1ms / std::thread::sleep: round {round}"),
            || os_lateness(LATE_PERIOD, plan.late_samples),
        ));
    }
    LateRow {
        flavour,
        tokio,
        tokiwa,
        os,
        failed: false,
    }
}

// ------------------------------------------------------------- the driver

static ECHO_ROWS: Mutex<Vec<EchoRow>> = Mutex::new(Vec::new());
static SLEEP_ROWS: Mutex<Vec<SleepRow>> = Mutex::new(Vec::new());
static LATE_ROWS: Mutex<Vec<LateRow>> = Mutex::new(Vec::new());

/// Runs `row`, catching a panic (a runtime bug fails its row, not the table)
/// and storing `failed` in its place.
fn record<R>(key: &str, rows: &Mutex<Vec<R>>, row: impl FnOnce() -> R, failed: impl FnOnce() -> R) {
    eprintln!("running {key} ...");
    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(row));
    crate::clear_phase();
    rows.lock().unwrap().push(done.unwrap_or_else(|_| failed()));
}

/// Runs every net and timer row whose key `selected` accepts.
pub fn run(plan: &Plan, selected: impl Fn(&str) -> bool) {
    for conns in ECHO_CONNS {
        for msg in ECHO_MSGS {
            let key = format!(
                "tcp_echo/c{conns}/{}/{}",
                msg_label(msg),
                Flavour::MultiThread.label()
            );
            if selected(&key) {
                record(
                    &key,
                    &ECHO_ROWS,
                    || echo_row(plan, conns, msg),
                    || EchoRow {
                        conns,
                        msg,
                        tokio: None,
                        tokiwa: None,
                        failed: true,
                    },
                );
            }
        }
    }
    for flavour in [Flavour::MultiThread, Flavour::CurrentThread] {
        let key = format!("timers/sleep_100k/{}", flavour.label());
        if selected(&key) {
            record(
                &key,
                &SLEEP_ROWS,
                || sleep_row(plan, flavour),
                || SleepRow {
                    flavour,
                    tokio: Vec::new(),
                    tokiwa: Vec::new(),
                    failed: true,
                },
            );
        }
    }
    for flavour in [Flavour::MultiThread, Flavour::CurrentThread] {
        let key = format!("timers/late_1ms/{}", flavour.label());
        if selected(&key) {
            record(
                &key,
                &LATE_ROWS,
                || late_row(plan, flavour),
                || LateRow {
                    flavour,
                    tokio: Vec::new(),
                    tokiwa: Vec::new(),
                    os: Vec::new(),
                    failed: true,
                },
            );
        }
    }
}

// ---------------------------------------------------------------- printing

/// Nearest-rank percentile of the sorted `sorted`, `permille` in 1..=1000.
fn percentile<T: Copy>(sorted: &[T], permille: usize) -> T {
    let rank = (permille * sorted.len()).div_ceil(1000).max(1);
    sorted[rank - 1]
}

fn sorted<T: Copy + Ord>(samples: &[T]) -> Vec<T> {
    let mut s = samples.to_vec();
    s.sort_unstable();
    s
}

fn us(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e3
}

/// `tokiwa / tokio` to two places, or "n/a" without a tokiwa figure.
fn ratio(tokio: f64, tokiwa: Option<f64>) -> String {
    match tokiwa {
        Some(w) if tokio != 0.0 => format!("{:.2}", w / tokio),
        _ => "n/a".into(),
    }
}

/// A figure, or "-" when that side did not run.
fn fig(x: Option<f64>, decimals: usize) -> String {
    match x {
        Some(x) => format!("{x:.decimals$}"),
        None => "-".into(),
    }
}

/// Prints `text` without the padding its last column leaves.
fn out(text: &str) {
    println!("{}", text.trim_end());
}

fn print_echo(plan: &Plan, rows: &[EchoRow]) {
    println!(
        "\ntcp_echo: loopback echo server + C client connections on one multi({MULTI_THREAD_WORKERS}) runtime; \
         each client writes M bytes, reads them back, repeats (TCP_NODELAY)\n\
         each row: {} fresh runtimes per side, {:.2} s window each, after {} untimed round trips per client\n\
         round trips/s, MB/s (= M x round trips/s, one way): ratio = tokiwa / tokio, > 1.00 means tokiwa is FASTER\n\
         round-trip time percentiles (every trip of every round): ratio = tokiwa / tokio, < 1.00 means tokiwa is FASTER\n",
        plan.echo_rounds,
        plan.echo_window.as_secs_f64(),
        plan.echo_warmup,
    );
    out(&format!(
        "{:<12}|{:^30}|{:^17}|{:^24}|{:^24}|{:^24}",
        "", "round trips / s", "MB/s", "RTT p50 (us)", "RTT p99 (us)", "RTT p99.9 (us)"
    ));
    let rtt_head = format!("{:>8}{:>8}{:>6}  ", "tokio", "tokiwa", "ratio");
    out(&format!(
        "{:<5}{:<7}|{:>11}{:>11}{:>6}  |{:>8}{:>8} |{rtt_head}|{rtt_head}|{rtt_head}",
        "C", "M", "tokio", "tokiwa", "ratio", "tokio", "tokiwa"
    ));
    println!("{}", "-".repeat(12 + 31 + 18 + 3 * 25));
    for row in rows {
        let label = format!("{:<5}{:<7}", row.conns, msg_label(row.msg));
        let (Some(t), false) = (&row.tokio, row.failed) else {
            println!("{label}| FAILED (panicked; see stderr)");
            continue;
        };
        let w = row.tokiwa.as_ref();
        let mb = |s: &EchoStats| s.round_trips_per_s * row.msg as f64 / 1e6;
        let mut line = format!(
            "{label}|{:>11}{:>11}{:>6}  |{:>8}{:>8} |",
            fig(Some(t.round_trips_per_s), 0),
            fig(w.map(|w| w.round_trips_per_s), 0),
            ratio(t.round_trips_per_s, w.map(|w| w.round_trips_per_s)),
            fig(Some(mb(t)), 1),
            fig(w.map(mb), 1),
        );
        for i in 0..3 {
            let tw = w.map(|w| us(w.rtt[i]));
            line += &format!(
                "{:>8}{:>8}{:>6}  |",
                fig(Some(us(t.rtt[i])), 1),
                fig(tw, 1),
                ratio(us(t.rtt[i]), tw)
            );
        }
        out(line.trim_end_matches('|'));
    }
}

fn fmt_ms(d: Option<Duration>) -> String {
    fig(d.map(|d| d.as_secs_f64() * 1e3), 2)
}

fn print_sleep(plan: &Plan, rows: &[SleepRow]) {
    println!(
        "\ntimers/sleep_100k: {SLEEP_TASKS} tasks spawned from a task, each sleeping a random 0..={} ms (the same seeded delays on both), \
         time until the last wakes\n\
         each row: {} fresh runtimes per side x {} timed iterations (ms); ratio = tokiwa / tokio median, < 1.00 means tokiwa is FASTER\n",
        SLEEP_MAX.as_millis(),
        plan.sleep_rounds,
        plan.sleep_iters,
    );
    println!(
        "{:<9} {:>5} {:>10} {:>10} {:>10} {:>10} {:>7}",
        "flavour", "iters", "tokio med", "tokio p90", "tokiwa med", "tokiwa p90", "ratio"
    );
    println!("{}", "-".repeat(67));
    for row in rows {
        if row.failed || row.tokio.is_empty() {
            println!("{:<9} FAILED (panicked; see stderr)", row.flavour.label());
            continue;
        }
        let (t, w) = (sorted(&row.tokio), sorted(&row.tokiwa));
        let at = |s: &[Duration], p| (!s.is_empty()).then(|| percentile(s, p));
        println!(
            "{:<9} {:>5} {:>10} {:>10} {:>10} {:>10} {:>7}",
            row.flavour.label(),
            row.tokio.len(),
            fmt_ms(at(&t, 500)),
            fmt_ms(at(&t, 900)),
            fmt_ms(at(&w, 500)),
            fmt_ms(at(&w, 900)),
            ratio(us(percentile(&t, 500)), at(&w, 500).map(us)),
        );
    }
}

fn print_late(plan: &Plan, rows: &[LateRow]) {
    println!(
        "\ntimers/late_1ms: on an idle runtime, one task times `sleep(1 ms)`; lateness = elapsed - 1 ms, in us (the lower the better)\n\
         each row: {} fresh runtimes per side x {} samples; ratio = tokiwa / tokio, < 1.00 means tokiwa is more PUNCTUAL\n\
         OS floor: std::thread::sleep(1 ms) on a plain thread, as many samples, taken between the rounds\n",
        plan.late_rounds,
        plan.late_samples,
    );
    out(&format!(
        "{:<9} {:>7} |{:^24}|{:^24}| {:^17}",
        "", "", "lateness p50 (us)", "lateness p99 (us)", "OS floor (us)"
    ));
    let head = format!("{:>8}{:>8}{:>6}  ", "tokio", "tokiwa", "ratio");
    println!(
        "{:<9} {:>7} |{head}|{head}| {:>8}{:>8}",
        "flavour", "samples", "p50", "p99"
    );
    println!("{}", "-".repeat(18 + 2 * 25 + 19));
    for row in rows {
        if row.failed || row.tokio.is_empty() {
            println!("{:<9} FAILED (panicked; see stderr)", row.flavour.label());
            continue;
        }
        let (t, w, os) = (sorted(&row.tokio), sorted(&row.tokiwa), sorted(&row.os));
        let at = |s: &[i64], p| (!s.is_empty()).then(|| percentile(s, p) as f64 / 1e3);
        let mut line = format!("{:<9} {:>7} |", row.flavour.label(), row.tokio.len());
        for p in [500, 990] {
            let tp = percentile(&t, p) as f64 / 1e3;
            line += &format!(
                "{:>8}{:>8}{:>6}  |",
                fig(Some(tp), 1),
                fig(at(&w, p), 1),
                ratio(tp, at(&w, p))
            );
        }
        line += &format!(" {:>8}{:>8}", fig(at(&os, 500), 1), fig(at(&os, 990), 1));
        println!("{line}");
    }
}

/// Prints the tables of the rows run so far (none for a table without rows).
/// Called by the hang watchdog too, so it must not block on a held lock.
pub fn print_tables(plan: &Plan) {
    if let Ok(rows) = ECHO_ROWS.try_lock() {
        if !rows.is_empty() {
            print_echo(plan, &rows);
        }
    }
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
