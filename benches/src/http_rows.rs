//! The HTTP row: `http_hello`, a hyper HTTP/1.1 hello-world server on
//! each column, loaded over loopback by blocking keep-alive clients.
//!
//! The server (`workloads_http.rs`) is the same hyper code on every
//! column; only the glue differs: tokio runs it through hyper-util's
//! `TokioIo`/`TokioTimer`, tokiwa through tokiwa-compat's
//! `TokiwaIo`/`TokiwaTimer`. The client is runtime-free: `CONNS` std
//! threads, each with one `std::net::TcpStream`, write a GET, read the
//! response (headers to `\r\n\r\n`, then `content-length` bytes), check
//! it, and time it, for a fixed time after a warm-up.
//!
//! The server runtime gets one worker (`SERVER_WORKERS`): the client
//! threads need CPU too, and on a 2-CPU machine a 2-worker server would
//! measure the scheduler's fight with its own load generator more than
//! the runtime. With one worker, one CPU serves and the other loads, and
//! every column gets the same split.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use crate::columns::{bases, columns, fig, out, ratio, subject, Column};
use crate::{on_tokio, on_tokiwa, timed_by_watchdog};

/// The response body.
pub const BODY: &[u8] = b"Hello, World!";

/// The server runtime's workers (see the module docs).
pub const SERVER_WORKERS: usize = 1;

/// One request, as every client sends it.
const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nhost: bench\r\n\r\n";

/// How much of the row a mode runs.
pub struct Plan {
    /// Fresh runtimes per column.
    pub rounds: usize,
    pub shape: HttpShape,
}

/// The load of one round.
#[derive(Clone, Copy, Debug)]
pub struct HttpShape {
    /// Client threads, one keep-alive connection each.
    pub conns: usize,
    /// Untimed requests per connection before the clock starts.
    pub warm_up: usize,
    /// How long the timed part lasts.
    pub duration: Duration,
}

pub const QUICK: Plan = Plan {
    rounds: 1,
    shape: HttpShape {
        conns: 16,
        warm_up: 50,
        duration: Duration::from_secs(1),
    },
};

pub const FULL: Plan = Plan {
    rounds: 3,
    shape: HttpShape {
        conns: 16,
        warm_up: 200,
        duration: Duration::from_secs(3),
    },
};

/// What one round measured.
pub struct HttpRound {
    /// Requests completed in the timed part, per second.
    pub rate: f64,
    /// Every timed request's latency (write to last byte read), in ns.
    pub latencies_ns: Vec<u32>,
}

/// One request/response on `stream`; checks the response.
fn exchange(stream: &mut TcpStream, buf: &mut Vec<u8>) {
    stream.write_all(REQUEST).expect("write request");
    buf.clear();
    let mut chunk = [0u8; 1024];
    let head_end = loop {
        let n = stream.read(&mut chunk).expect("read response");
        assert!(n > 0, "server closed the connection");
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = std::str::from_utf8(&buf[..head_end]).expect("ASCII head");
    assert!(head.starts_with("HTTP/1.1 200"), "not a 200: {head:?}");
    let len: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .expect("content-length");
    while buf.len() < head_end + len {
        let n = stream.read(&mut chunk).expect("read body");
        assert!(n > 0, "server closed the connection mid-body");
        buf.extend_from_slice(&chunk[..n]);
    }
    assert_eq!(&buf[head_end..], BODY, "response body");
}

/// Loads the server at `addr`: `shape.conns` threads, warm-up, then
/// `shape.duration` timed. Requests finishing after the clock stops are
/// not counted.
pub fn load(addr: SocketAddr, shape: HttpShape) -> HttpRound {
    let start = Arc::new(Barrier::new(shape.conns + 1));
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..shape.conns)
        .map(|i| {
            let (start, stop) = (start.clone(), stop.clone());
            std::thread::Builder::new()
                .name(format!("http-client-{i}"))
                .spawn(move || {
                    let mut stream = TcpStream::connect(addr).expect("connect");
                    stream.set_nodelay(true).expect("nodelay");
                    let mut buf = Vec::with_capacity(256);
                    for _ in 0..shape.warm_up {
                        exchange(&mut stream, &mut buf);
                    }
                    start.wait();
                    let mut latencies = Vec::with_capacity(1 << 16);
                    loop {
                        let t = Instant::now();
                        exchange(&mut stream, &mut buf);
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        latencies.push(t.elapsed().as_nanos().min(u32::MAX as u128) as u32);
                    }
                    latencies
                })
                .expect("spawn client thread")
        })
        .collect();
    start.wait();
    let started = Instant::now();
    std::thread::sleep(shape.duration);
    stop.store(true, Ordering::Relaxed);
    let elapsed = started.elapsed();
    let mut latencies_ns = Vec::new();
    for client in clients {
        latencies_ns.extend(client.join().expect("client thread panicked"));
    }
    HttpRound {
        rate: latencies_ns.len() as f64 / elapsed.as_secs_f64(),
        latencies_ns,
    }
}

/// The row: per main column, each round's rate and every latency.
struct Row {
    rates: Vec<Vec<f64>>,
    latencies: Vec<Vec<u32>>,
}

static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());

fn key(plan: &Plan) -> String {
    format!("http_hello/c{}/multi({SERVER_WORKERS})", plan.shape.conns)
}

fn round(column: Column, shape: HttpShape) -> HttpRound {
    match column {
        Column::Tokio => on_tokio::http_hello::http_hello_round(column, shape),
        _ => on_tokiwa::http_hello::http_hello_round(column, shape),
    }
}

/// Runs the row if `selected` accepts its key; rounds rotate which column
/// goes first.
pub fn run(plan: &Plan, selected: &impl Fn(&str) -> bool) {
    let key = key(plan);
    if !selected(&key) {
        return;
    }
    eprintln!("running {key} ...");
    let cols = &columns().main;
    let done = std::panic::catch_unwind(|| {
        let mut rates: Vec<Vec<f64>> = cols.iter().map(|_| Vec::new()).collect();
        let mut latencies: Vec<Vec<u32>> = cols.iter().map(|_| Vec::new()).collect();
        for r in 0..plan.rounds {
            for k in 0..cols.len() {
                let i = (r + k) % cols.len();
                let column = cols[i];
                let got = timed_by_watchdog(
                    || format!("{key} / {}: round {r}", column.label()),
                    || round(column, plan.shape),
                );
                rates[i].push(got.rate);
                latencies[i].extend(got.latencies_ns);
            }
        }
        Row { rates, latencies }
    });
    crate::clear_phase();
    ROWS.lock().unwrap().push(done.unwrap_or(Row {
        rates: Vec::new(),
        latencies: Vec::new(),
    }));
}

fn median(samples: &[f64]) -> Option<f64> {
    let mut s = samples.to_vec();
    s.sort_unstable_by(f64::total_cmp);
    s.get(s.len().saturating_sub(1) / 2).copied()
}

/// The `q` quantile of `latencies_ns`, in µs.
fn quantile_us(latencies_ns: &[u32], q: f64) -> Option<f64> {
    if latencies_ns.is_empty() {
        return None;
    }
    let mut s = latencies_ns.to_vec();
    s.sort_unstable();
    let i = ((s.len() as f64 * q).ceil() as usize).clamp(1, s.len()) - 1;
    Some(s[i] as f64 / 1000.0)
}

fn value(c: Column, figure: &impl Fn(usize) -> Option<f64>) -> Option<f64> {
    figure(columns().main.iter().position(|&x| x == c)?)
}

/// A figure per main column, then the subject's ratio to each base.
fn group(decimals: usize, figure: impl Fn(usize) -> Option<f64>) -> String {
    let mut cells: String = columns()
        .main
        .iter()
        .map(|&c| format!("{:>9}", fig(value(c, &figure), decimals)))
        .collect();
    for b in bases() {
        cells += &format!("{:>9}", ratio(value(subject(), &figure), value(b, &figure)));
    }
    cells
}

fn group_head() -> String {
    let mut head: String = columns()
        .main
        .iter()
        .map(|c| format!("{:>9}", c.label()))
        .collect();
    for b in bases() {
        head += &format!("{:>9}", format!("/{}", b.label()));
    }
    head
}

const LABEL: usize = 26;

/// Prints the row's table (nothing if it did not run). Called by the hang
/// watchdog too, so it must not block on a held lock.
pub fn print(plan: &Plan) {
    let Ok(rows) = ROWS.try_lock() else { return };
    let Some(row) = rows.first() else { return };
    let s = plan.shape;
    println!(
        "\nhttp_hello: hyper HTTP/1.1 hello-world ({} B body) on a {SERVER_WORKERS}-worker multi-thread runtime \
         (tokio: hyper-util TokioIo/TokioTimer; tokiwa: tokiwa-compat TokiwaIo/TokiwaTimer)\n\
         load: {} blocking std client threads in this process, one keep-alive connection each, \
         {} warm-up requests each, then {:?} timed; latency = write to last byte read\n\
         each column: {} fresh runtimes; requests/s = median over them, p50/p99 over every timed request\n\
         ratios = {} / that column: requests/s > 1.00 means {} is FASTER, latency < 1.00 means QUICKER\n",
        BODY.len(),
        s.conns,
        s.warm_up,
        s.duration,
        plan.rounds,
        subject().label(),
        subject().label(),
    );
    let head = group_head();
    let width = head.len();
    out(&format!(
        "{:<LABEL$} |{:^width$} |{:^width$} |{:^width$}",
        "", "requests/s", "p50 (µs)", "p99 (µs)"
    ));
    out(&format!("{:<LABEL$} |{head} |{head} |{head}", "row"));
    println!("{}", "-".repeat(LABEL + 3 * (width + 2)));
    let key = key(plan);
    if row.rates.is_empty() || row.rates.iter().any(Vec::is_empty) {
        println!("{key:<LABEL$} FAILED (panicked; see stderr)");
        return;
    }
    out(&format!(
        "{key:<LABEL$} |{} |{} |{}",
        group(0, |i| median(&row.rates[i])),
        group(1, |i| quantile_us(&row.latencies[i], 0.5)),
        group(1, |i| quantile_us(&row.latencies[i], 0.99)),
    ));

    let at = |c: Column| columns().main.iter().position(|&x| x == c);
    let (Some(t), Some(u)) = (at(Column::Tokio), at(Column::Uring)) else {
        println!(
            "\nissue 6 target (uring >= 1.10x tokio requests/s, p99 <= 0.90x): no uring column"
        );
        return;
    };
    let rate = median(&row.rates[u])
        .zip(median(&row.rates[t]))
        .map(|(u, t)| u / t);
    let p99 = quantile_us(&row.latencies[u], 0.99)
        .zip(quantile_us(&row.latencies[t], 0.99))
        .map(|(u, t)| u / t);
    // Judged on the figures as printed (two places).
    let verdict = |x: Option<f64>, ok: &dyn Fn(f64) -> bool| match x {
        Some(x) if ok((x * 100.0).round() / 100.0) => format!("{x:.2}: met"),
        Some(x) => format!("{x:.2}: MISSED"),
        None => "-".into(),
    };
    println!(
        "\nissue 6 target: uring/tokio requests/s >= 1.10 ({}), p99 <= 0.90 ({})",
        verdict(rate, &|x| x >= 1.10),
        verdict(p99, &|x| x <= 0.90),
    );
}
