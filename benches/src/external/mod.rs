//! The external-load rows: each server runs in a process of its own, and
//! the load comes from another process on the same CPUs, unpinned, as a
//! user's servers and clients share cores.
//!
//! * the TCP echo server, loaded by this crate's load generator
//!   (`loadgen.rs`: `tokiwa-benches --loadgen-echo ...`);
//! * hyper's hello-world server, loaded by `wrk`;
//! * a Redis-protocol `GET`/`SET` server (`redis.rs`), loaded by
//!   `redis-benchmark`, with and without pipelining;
//! * connection churn: `wrk` with `Connection: close`, and the load
//!   generator's connect, one echo, close loop (`--loadgen-churn`); their
//!   "requests" are connections, so CPU per request is CPU per
//!   connection.
//!
//! The server process is this same binary, started with `--serve KIND
//! COLUMN FLAVOUR` (`serve`): it builds the column's runtime, prints its
//! port, answers each `COUNTERS` line on its stdin with its runtime's count
//! of readiness waits that crossed workers (the `cross/r` column, io_uring
//! only: `RuntimeMetrics::worker_foreign_io_wait_count`), and serves until
//! the bench closes its stdin. Its CPU time (user +
//! system, every thread, from `/proc/<pid>/stat`) over the load tool's
//! measured run, divided by the requests served, is the **CPU per
//! request**, what a user pays for. Unlike the in-process rows (`echo.rs`,
//! `http_rows.rs`), the client shares no runtime with the server, so a
//! worker that spins before parking pays for the CPU it takes from the
//! client instead of finding the client's next message for free.
//!
//! Beside CPU time, each row reports counters that do not move with a
//! shared machine's noise: the server's **context switches** per request
//! (`/proc/<pid>/task/*/status`, every round) and its **syscalls** per
//! request (`perf stat -e raw_syscalls:sys_enter`, in one extra short
//! round per server whose CPU and rate are not reported, because the
//! tracepoint slows every syscall while attached). Full mode takes five
//! rounds, rotating which column goes first, and gives each CPU ratio to
//! tokio as the mean over rounds paired with tokio's and its 95% interval.
//!
//! Where io_uring runs, each row also has a `uring-c` column: the io_uring
//! driver with completion I/O (`Builder::uring_completion_io`), in the
//! same rounds as the default readiness I/O, so the two compare paired.
//!
//! The echo rows also run two **floor** servers (`limit/`): hand-written
//! one-thread echo servers over epoll and over io_uring, the least a server
//! can do per message, so a reader sees how far each runtime is from it.
//!
//! `wrk` and `redis-benchmark` come from Debian's `wrk` and `redis-tools`
//! packages: when one is missing the bench installs it if it runs as root,
//! else it says how and skips those rows.

pub mod limit;
pub mod loadgen;
pub mod redis;
mod report;
mod steal;
mod tools;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::columns::{columns, Column};
use crate::{on_tokio, on_tokiwa, timed_by_watchdog, Flavour};

pub use report::{print, tables};

/// Which server a row loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerKind {
    Echo,
    Http,
    Redis,
}

impl ServerKind {
    fn name(self) -> &'static str {
        match self {
            ServerKind::Echo => "echo",
            ServerKind::Http => "http",
            ServerKind::Redis => "redis",
        }
    }

    fn parse(s: &str) -> Option<ServerKind> {
        [ServerKind::Echo, ServerKind::Http, ServerKind::Redis]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

/// The load a row applies.
#[derive(Clone, Copy, Debug)]
pub enum Load {
    /// The echo load generator: connections, message bytes.
    Echo { conns: usize, msg: usize },
    /// `wrk`: connections; `close` adds `Connection: close` (a new
    /// connection per request).
    Wrk { conns: usize, close: bool },
    /// `redis-benchmark -t get`: connections, pipeline depth.
    Redis { conns: usize, pipeline: usize },
    /// The churn load generator: this many connections at a time, each
    /// connect, one 64-byte echo, close.
    Churn { conns: usize },
    /// The echo load generator paced at `rate` round trips/s in all (see
    /// `loadgen.rs`): every driver that keeps up serves the same load, so
    /// their latencies compare at equal throughput.
    Paced {
        conns: usize,
        msg: usize,
        rate: usize,
    },
}

impl Load {
    fn server(self) -> ServerKind {
        match self {
            Load::Echo { .. } | Load::Churn { .. } | Load::Paced { .. } => ServerKind::Echo,
            Load::Wrk { .. } => ServerKind::Http,
            Load::Redis { .. } => ServerKind::Redis,
        }
    }

    /// The row's name in the table and for `FILTER`.
    fn label(self, flavour: Flavour) -> String {
        let what = match self {
            Load::Echo { conns, msg } => {
                format!("echo c{conns}/{}", crate::echo_round::msg_label(msg))
            }
            Load::Wrk {
                conns,
                close: false,
            } => format!("http wrk c{conns}"),
            Load::Wrk { conns, close: true } => format!("http wrk c{conns} close"),
            Load::Redis { conns, pipeline: 1 } => format!("redis GET c{conns}"),
            Load::Redis { conns, pipeline } => format!("redis GET c{conns} P{pipeline}"),
            Load::Churn { conns } => format!("churn c{conns}"),
            Load::Paced { conns, msg, rate } => format!(
                "echo c{conns}/{} at {}k/s",
                crate::echo_round::msg_label(msg),
                rate / 1000
            ),
        };
        format!("{what} {}", flavour.label())
    }
}

/// One measured run of a load tool against a server.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    /// Requests (round trips) per second.
    pub rate: f64,
    pub p50_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub p999_us: Option<f64>,
    /// Mean latency (the echo load generator only).
    pub mean_us: Option<f64>,
    /// The server process's CPU time per request.
    pub cpu_us: f64,
    /// Readiness waits that crossed workers, per request (tokiwa only).
    pub cross: Option<f64>,
    /// The server's context switches per request (all threads, voluntary
    /// and not).
    pub switches: Option<f64>,
    /// The server's syscalls per request (`perf stat`; `None` without it).
    pub syscalls: Option<f64>,
    /// Whether this was the counting round (`perf` attached: only its
    /// counters are reported, not its CPU, rate or latency).
    pub counted: bool,
    /// The share of the machine's CPU time the hypervisor took during the
    /// run, in percent (`steal.rs`).
    pub steal_pct: Option<f64>,
}

/// How much a mode runs.
pub struct Plan {
    /// Rounds per row and column (the median is reported, and in full mode
    /// the 95% interval of the CPU ratios).
    pub rounds: usize,
    /// The load tools' measured run.
    pub window: Duration,
    pub rows: &'static [(Load, Flavour)],
    /// Rows of this mode only.
    pub more_rows: &'static [(Load, Flavour)],
}

const MT: Flavour = Flavour::MultiThread;
const CT: Flavour = Flavour::CurrentThread;

/// The rows both modes run.
const ROWS: &[(Load, Flavour)] = &[
    (Load::Echo { conns: 1, msg: 64 }, MT),
    (Load::Echo { conns: 16, msg: 64 }, MT),
    (Load::Echo { conns: 16, msg: 64 }, CT),
    (
        Load::Echo {
            conns: 256,
            msg: 64,
        },
        MT,
    ),
    (
        Load::Echo {
            conns: 16,
            msg: 16384,
        },
        MT,
    ),
    (
        Load::Wrk {
            conns: 1,
            close: false,
        },
        MT,
    ),
    (
        Load::Wrk {
            conns: 64,
            close: false,
        },
        MT,
    ),
    (
        Load::Redis {
            conns: 1,
            pipeline: 1,
        },
        MT,
    ),
    (
        Load::Redis {
            conns: 50,
            pipeline: 1,
        },
        MT,
    ),
    (
        Load::Redis {
            conns: 50,
            pipeline: 16,
        },
        MT,
    ),
    (
        Load::Wrk {
            conns: 16,
            close: true,
        },
        MT,
    ),
    (
        Load::Wrk {
            conns: 64,
            close: true,
        },
        MT,
    ),
    (Load::Churn { conns: 16 }, MT),
    // Seed 002's claim, io_uring against legacy at equal throughput: a
    // rate every column keeps up with on two shared CPUs.
    (
        Load::Paced {
            conns: 16,
            msg: 64,
            rate: 30_000,
        },
        MT,
    ),
];

pub const QUICK: Plan = Plan {
    rounds: 1,
    window: Duration::from_millis(1000),
    rows: ROWS,
    more_rows: &[],
};

pub const FULL: Plan = Plan {
    rounds: 5,
    window: Duration::from_millis(3000),
    rows: ROWS,
    more_rows: &[
        (
            Load::Echo {
                conns: 1,
                msg: 16384,
            },
            MT,
        ),
        (
            Load::Echo {
                conns: 256,
                msg: 16384,
            },
            MT,
        ),
    ],
};

/// A row's samples, per column, in the order of `columns().main`.
pub struct RowResult {
    pub label: String,
    pub load: Load,
    pub samples: Vec<(Column, Vec<Sample>)>,
    /// The floor servers' samples (echo rows only; `limit/`).
    pub limits: Vec<(limit::Limit, Vec<Sample>)>,
    /// Runs made again because the hypervisor took too much CPU during
    /// them (`steal.rs`).
    pub reruns: usize,
    /// Why the row did not run, if it did not.
    pub skipped: Option<String>,
}

pub(crate) static RESULTS: Mutex<Vec<RowResult>> = Mutex::new(Vec::new());

/// The server side: `tokiwa-benches --serve KIND COLUMN FLAVOUR`.
pub fn serve_main(args: &[String]) {
    let [kind, column, flavour] = args else {
        eprintln!("usage: --serve echo|http|redis tokio|legacy|uring|uring-c multi|current");
        std::process::exit(2);
    };
    let kind = ServerKind::parse(kind).expect("server kind");
    let column = [
        Column::Tokio,
        Column::Legacy,
        Column::Uring,
        Column::UringCompletion,
    ]
    .into_iter()
    .find(|c| c.label() == column)
    .expect("column");
    let flavour = match flavour.as_str() {
        "multi" => Flavour::MultiThread,
        "current" => Flavour::CurrentThread,
        other => panic!("flavour {other}"),
    };
    match column {
        Column::Tokio => on_tokio::servers::serve(kind, column, flavour),
        _ => on_tokiwa::servers::serve(kind, column, flavour),
    }
}

/// A server process; stopped (its stdin closed, then waited for) on drop.
struct Server {
    child: Child,
    port: u16,
    /// Its stdin and stdout, to ask for its counters (`COUNTERS`).
    talk: Mutex<Option<(ChildStdin, BufReader<ChildStdout>)>>,
    /// Whether this round counts its syscalls (`tools::Syscalls`).
    counting: bool,
}

/// What a server has done so far.
#[derive(Clone, Copy)]
struct Snapshot {
    /// CPU time (user + system, all threads).
    cpu: Duration,
    /// Readiness waits that crossed workers (tokiwa's
    /// `worker_foreign_io_wait_count`, summed), `None` on tokio.
    cross: Option<u64>,
    /// Context switches, all threads.
    switches: u64,
}

impl Server {
    fn start(kind: ServerKind, column: Column, flavour: Flavour) -> Result<Server, String> {
        let flavour = match flavour {
            Flavour::MultiThread => "multi",
            Flavour::CurrentThread => "current",
        };
        Server::spawn(&["--serve", kind.name(), column.label(), flavour])
    }

    /// A floor echo server (`limit/`).
    fn start_limit(limit: limit::Limit) -> Result<Server, String> {
        Server::spawn(&["--serve-limit", limit.label()])
    }

    /// Starts this binary with `args` and reads the port it serves on.
    fn spawn(args: &[&str]) -> Result<Server, String> {
        let mut child = Command::new(std::env::current_exe().map_err(|e| e.to_string())?)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting the server: {e}"))?;
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
        stdout.read_line(&mut line).map_err(|e| e.to_string())?;
        let port = line
            .strip_prefix("PORT ")
            .and_then(|p| p.trim().parse().ok())
            .ok_or_else(|| format!("the server said {line:?}"))?;
        let stdin = child.stdin.take().expect("piped");
        Ok(Server {
            child,
            port,
            talk: Mutex::new(Some((stdin, stdout))),
            counting: false,
        })
    }

    /// The CPU time and counters so far.
    fn snapshot(&self) -> Snapshot {
        let cpu = tools::process_cpu(self.child.id());
        let switches = tools::process_switches(self.child.id());
        let mut talk = self.talk.lock().unwrap();
        let cross = talk.as_mut().and_then(|(stdin, stdout)| {
            writeln!(stdin, "COUNTERS").ok()?;
            stdin.flush().ok()?;
            let mut line = String::new();
            stdout.read_line(&mut line).ok()?;
            line.trim().strip_prefix("COUNTERS cross=")?.parse().ok()
        });
        Snapshot {
            cpu,
            cross,
            switches,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.talk.lock().unwrap().take());
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Who serves a round: a runtime's column, or a floor server.
#[derive(Clone, Copy)]
enum Serving {
    Column(Column),
    Limit(limit::Limit),
}

/// Runs one load against a fresh server; `counting`: the round that
/// counts syscalls.
fn round(
    load: Load,
    flavour: Flavour,
    serving: Serving,
    window: Duration,
    counting: bool,
) -> Result<Sample, String> {
    let mut server = match serving {
        Serving::Column(column) => Server::start(load.server(), column, flavour)?,
        Serving::Limit(limit) => Server::start_limit(limit)?,
    };
    server.counting = counting;
    let addr = format!("127.0.0.1:{}", server.port);
    let sample = match load {
        Load::Echo { conns, msg } => tools::echo(&server, &addr, conns, msg, None, window),
        Load::Paced { conns, msg, rate } => {
            tools::echo(&server, &addr, conns, msg, Some(rate), window)
        }
        Load::Wrk { conns, close } => tools::wrk(&server, &addr, conns, close, window),
        Load::Redis { conns, pipeline } => {
            tools::redis(&server, server.port, conns, pipeline, window)
        }
        Load::Churn { conns } => tools::churn(&server, &addr, conns, window),
    };
    drop(server);
    sample
}

/// The counting round's run: counts need no long window.
const COUNT_WINDOW: Duration = Duration::from_millis(500);

/// Runs the rows `selected` keeps, rotating which column goes first.
pub fn run(plan: &Plan, selected: &impl Fn(&str) -> bool) {
    let mut cols = columns().main.clone();
    if cols.contains(&Column::Uring) {
        // Completion I/O beside readiness, on the same rows and rounds.
        cols.push(Column::UringCompletion);
    }
    let mut rotation = 0;
    for &(load, flavour) in plan.rows.iter().chain(plan.more_rows) {
        let label = load.label(flavour);
        let key = format!("ext/{label}").replace(' ', "/");
        if !selected(&key) {
            continue;
        }
        let mut result = RowResult {
            label: label.clone(),
            load,
            samples: cols.iter().map(|&c| (c, Vec::new())).collect(),
            limits: match load {
                Load::Echo { .. } => limit::Limit::ALL.map(|l| (l, Vec::new())).to_vec(),
                _ => Vec::new(),
            },
            skipped: tools::missing(load).err(),
            reruns: 0,
        };
        // A run, made again while the hypervisor took more than
        // `steal_limit` of the CPU during it.
        let mut reruns = 0;
        let steal_limit = match load {
            Load::Paced { .. } => steal::TAIL_RERUN_ABOVE_PCT,
            _ => steal::RERUN_ABOVE_PCT,
        };
        let mut measured = |serving: Serving, name: &str| {
            let mut tries = 0;
            loop {
                let sample = timed_by_watchdog(
                    || format!("{key} on {name}"),
                    || round(load, flavour, serving, plan.window, false),
                );
                let stolen =
                    matches!(&sample, Ok(s) if s.steal_pct.is_some_and(|p| p > steal_limit));
                if !stolen || tries == steal::RERUNS {
                    return sample;
                }
                tries += 1;
                reruns += 1;
            }
        };
        if result.skipped.is_none() {
            'rounds: for _ in 0..plan.rounds {
                for k in 0..cols.len() {
                    let i = (k + rotation) % cols.len();
                    let column = cols[i];
                    match measured(Serving::Column(column), column.label()) {
                        Ok(s) => result.samples[i].1.push(s),
                        Err(e) => {
                            result.skipped = Some(format!("{}: {e}", column.label()));
                            break 'rounds;
                        }
                    }
                }
                // The floor servers, in the same round; one that cannot run
                // here (no io_uring) just has no samples.
                for (limit, samples) in &mut result.limits {
                    if let Ok(s) = measured(Serving::Limit(*limit), limit.label()) {
                        samples.push(s);
                    }
                }
                rotation += 1;
            }
            result.reruns = reruns;
            // One short round more per server, to count its syscalls.
            if result.skipped.is_none() && tools::can_count_syscalls() {
                let count = |serving: Serving, name: &str| {
                    timed_by_watchdog(
                        || format!("{key} on {name}, counting syscalls"),
                        || round(load, flavour, serving, COUNT_WINDOW, true),
                    )
                };
                for (column, samples) in &mut result.samples {
                    samples.extend(count(Serving::Column(*column), column.label()).ok());
                }
                for (limit, samples) in &mut result.limits {
                    samples.extend(count(Serving::Limit(*limit), limit.label()).ok());
                }
            }
        }
        eprint!(".");
        let _ = std::io::stderr().flush();
        RESULTS.lock().unwrap().push(result);
    }
}
