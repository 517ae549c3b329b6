//! The HTTP row: `http_hello`, a hyper HTTP/1.1 hello-world server on
//! each column, loaded over loopback by one cheap, runtime-free load
//! generator.
//!
//! The server (`workloads_http.rs`) is the same hyper code on every
//! column; only the glue differs: tokio runs it through hyper-util's
//! `TokioIo`/`TokioTimer`, tokiwa through tokiwa-compat's
//! `TokiwaIo`/`TokiwaTimer`.
//!
//! The load generator is ONE std thread driving every keep-alive
//! connection (`--http-conns=N`, 16 by default) with non-blocking sockets
//! and a level-triggered `epoll`: closed loop, one request outstanding per
//! connection, latency = just before the request's `write` to the moment
//! the whole response (head to `\r\n\r\n`, then `content-length` bytes)
//! is in and checked. A thread per connection, each blocking in `read`,
//! costs a context switch per request and on a 2-CPU machine saturated
//! the client CPU before the server's: the row measured the load
//! generator. One epoll thread handles many responses per wake-up, so the
//! server is the side that runs out of CPU; the table prints both sides'
//! CPU use so that a reader can check it.
//!
//! The server runtime gets one worker (`SERVER_WORKERS`): with one worker,
//! one CPU serves and the other loads, and every column gets the same
//! split. `--http-pin` makes the split explicit: the load thread on the
//! second allowed CPU, every server runtime thread (through the builder's
//! `on_thread_start`) on the first, alike on every column.
//!
//! Measured on a quiet 2-CPU machine, 16 connections: the server 98-99%
//! on its CPU, the load thread 88% (so the server is the bottleneck), all
//! three columns ~160k requests/s (the 16-thread client capped them at
//! ~84k). A perf profile of the server shows ~80% of its CPU in the
//! kernel's send/recv (loopback TCP) and ~5% in either runtime. While other
//! jobs share the CPUs, both sides wait for a CPU ~40% of the time and
//! requests/s follows the share the process gets; compare the server CPU
//! per request then (a spinning worker pays for its spin there).

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::columns::{columns, fig, group, group_head, out, subject, Column};
use crate::columns::{labels, per_column};
use crate::report::{self, Family, Figure, Kind, Table};
use crate::{on_tokio, on_tokiwa, timed_by_watchdog};

/// The response body.
pub const BODY: &[u8] = b"Hello, World!";

/// The server runtime's workers (see the module docs).
pub const SERVER_WORKERS: usize = 1;

/// One request, as every connection sends it.
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
    /// Keep-alive connections, all driven by the one load thread.
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

/// `--http-conns=N` (0: the plan's).
static CONNS: AtomicUsize = AtomicUsize::new(0);
/// `--http-pin`.
static PIN: AtomicBool = AtomicBool::new(false);

/// Applies the command line's `--http-conns=N` and `--http-pin`.
pub fn configure(conns: Option<usize>, pin: bool) {
    if let Some(n) = conns {
        assert!(n > 0, "--http-conns must be at least 1");
        CONNS.store(n, Ordering::Relaxed);
    }
    PIN.store(pin, Ordering::Relaxed);
}

/// Whether the server and the load generator are pinned (`--http-pin`).
pub fn pinned() -> bool {
    PIN.load(Ordering::Relaxed)
}

/// The plan's shape with the command line's connection count.
fn shape(plan: &Plan) -> HttpShape {
    let mut shape = plan.shape;
    match CONNS.load(Ordering::Relaxed) {
        0 => {}
        n => shape.conns = n,
    }
    shape
}

/// Pins the calling thread to the `nth` CPU this process may run on
/// (wrapping around if there are fewer).
pub fn pin_to(nth: usize) {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the calls get its
    // real size and pid 0 (the calling thread).
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        let size = std::mem::size_of::<libc::cpu_set_t>();
        assert_eq!(
            libc::sched_getaffinity(0, size, &mut allowed),
            0,
            "sched_getaffinity"
        );
        let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &allowed))
            .collect();
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpus[nth % cpus.len()], &mut one);
        assert_eq!(
            libc::sched_setaffinity(0, size, &one),
            0,
            "sched_setaffinity"
        );
    }
}

/// What one round measured.
pub struct HttpRound {
    /// Requests completed in the timed part, per second.
    pub rate: f64,
    /// Every timed request's latency (write to response checked), in ns.
    pub latencies_ns: Vec<u32>,
    /// The load thread's CPU time over the timed part's wall time.
    pub client_cpu: f64,
    /// The rest of the process's (the server runtime's threads') CPU time
    /// over the timed part's wall time.
    pub server_cpu: f64,
    /// Over the timed part's wall time, the time the load thread, and the
    /// server's threads together, were runnable but waiting for a CPU.
    pub client_wait: f64,
    pub server_wait: f64,
    /// tokiwa only: the worker's parks and ring enters per request, over
    /// the whole round (the warm-up is a few % of it).
    pub per_request: Option<(f64, f64)>,
}

/// CPU time (user + system) of `who` (`RUSAGE_THREAD` or `RUSAGE_SELF`).
fn cpu_time(who: libc::c_int) -> Duration {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(who, &mut ru), 0, "getrusage");
        ru
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Scheduler time (`/proc/<tid>/schedstat`: on a CPU, and runnable but
/// waiting for one) of the load thread and of the rest of the process (the
/// server runtime's threads; the main thread and the watchdog only sleep).
#[derive(Clone, Copy, Default)]
struct Sched {
    load_run: u64,
    load_wait: u64,
    server_run: u64,
    server_wait: u64,
}

fn sched() -> Sched {
    // SAFETY: plain syscall.
    let me = unsafe { libc::gettid() }.to_string();
    let mut s = Sched::default();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return s;
    };
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("schedstat")) else {
            continue;
        };
        let mut f = stat
            .split_whitespace()
            .map(|x| x.parse::<u64>().unwrap_or(0));
        let (run, wait) = (f.next().unwrap_or(0), f.next().unwrap_or(0));
        if task.file_name().to_str() == Some(me.as_str()) {
            s.load_run += run;
            s.load_wait += wait;
        } else {
            s.server_run += run;
            s.server_wait += wait;
        }
    }
    s
}

/// Parses the response at the start of `buf`: true once all of it (head
/// and `content-length` body) is in, checked.
fn parse(buf: &[u8]) -> bool {
    let Some(head_end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = &buf[..head_end + 4];
    assert!(
        head.starts_with(b"HTTP/1.1 200"),
        "not a 200: {:?}",
        String::from_utf8_lossy(head)
    );
    let len = head
        .split(|&b| b == b'\n')
        .find_map(|line| {
            let colon = line.iter().position(|&b| b == b':')?;
            let (name, value) = line.split_at(colon);
            if !name.eq_ignore_ascii_case(b"content-length") {
                return None;
            }
            std::str::from_utf8(&value[1..])
                .ok()?
                .trim()
                .parse::<usize>()
                .ok()
        })
        .expect("content-length");
    let end = head.len() + len;
    if buf.len() < end {
        return false;
    }
    assert_eq!(buf.len(), end, "bytes after the response");
    assert_eq!(&buf[head.len()..], BODY, "response body");
    true
}

/// One keep-alive connection of the load generator.
struct Conn {
    stream: TcpStream,
    /// The response so far.
    buf: Vec<u8>,
    sent_at: Instant,
    /// Bytes of `REQUEST` written so far.
    written: usize,
    /// Whether epoll also watches for writability (a short write).
    want_out: bool,
    /// Completed requests.
    done: usize,
}

fn epoll_ctl(ep: libc::c_int, op: libc::c_int, fd: libc::c_int, events: libc::c_int, token: usize) {
    let mut ev = libc::epoll_event {
        events: events as u32,
        u64: token as u64,
    };
    // SAFETY: `ev` is a valid event for the call's duration.
    let rc = unsafe { libc::epoll_ctl(ep, op, fd, &mut ev) };
    assert_eq!(rc, 0, "epoll_ctl: {}", std::io::Error::last_os_error());
}

impl Conn {
    /// Starts the next request.
    fn send(&mut self, ep: libc::c_int, token: usize) {
        self.buf.clear();
        self.written = 0;
        self.sent_at = Instant::now();
        self.flush(ep, token);
    }

    /// Writes what is left of the request; watches for writability if the
    /// socket is full.
    fn flush(&mut self, ep: libc::c_int, token: usize) {
        while self.written < REQUEST.len() {
            match (&self.stream).write(&REQUEST[self.written..]) {
                Ok(0) => panic!("write returned 0"),
                Ok(n) => self.written += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    if !self.want_out {
                        let fd = self.stream.as_raw_fd();
                        epoll_ctl(
                            ep,
                            libc::EPOLL_CTL_MOD,
                            fd,
                            libc::EPOLLIN | libc::EPOLLOUT,
                            token,
                        );
                        self.want_out = true;
                    }
                    return;
                }
                Err(e) => panic!("write request: {e}"),
            }
        }
        if self.want_out {
            epoll_ctl(
                ep,
                libc::EPOLL_CTL_MOD,
                self.stream.as_raw_fd(),
                libc::EPOLLIN,
                token,
            );
            self.want_out = false;
        }
    }

    /// Reads what is there (once: epoll is level-triggered); true when the
    /// whole response is in.
    fn receive(&mut self) -> bool {
        let mut chunk = [0u8; 1024];
        match (&self.stream).read(&mut chunk) {
            Ok(0) => panic!("server closed the connection"),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                parse(&self.buf)
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => false,
            Err(e) => panic!("read response: {e}"),
        }
    }
}

enum Phase {
    /// Connections still in warm-up.
    WarmUp(usize),
    Timed {
        deadline: Instant,
        started: Instant,
        client_cpu: Duration,
        process_cpu: Duration,
        sched: Sched,
    },
    /// Clock stopped; waiting for the requests still in flight.
    Drain { until: Instant },
}

/// Loads the server at `addr` from one thread: `shape.conns` connections,
/// `shape.warm_up` requests each, then `shape.duration` timed. Requests
/// finishing after the clock stops are not counted.
pub fn load(addr: SocketAddr, shape: HttpShape) -> HttpRound {
    std::thread::Builder::new()
        .name("http-load".into())
        .spawn(move || {
            if pinned() {
                pin_to(1);
            }
            drive(addr, shape)
        })
        .expect("spawn the load thread")
        .join()
        .expect("the load thread panicked")
}

fn drive(addr: SocketAddr, shape: HttpShape) -> HttpRound {
    // SAFETY: plain syscall; the fd is closed below.
    let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    assert!(
        ep >= 0,
        "epoll_create1: {}",
        std::io::Error::last_os_error()
    );
    let mut conns: Vec<Conn> = (0..shape.conns)
        .map(|token| {
            let stream = TcpStream::connect(addr).expect("connect");
            stream.set_nodelay(true).expect("nodelay");
            stream.set_nonblocking(true).expect("nonblocking");
            epoll_ctl(
                ep,
                libc::EPOLL_CTL_ADD,
                stream.as_raw_fd(),
                libc::EPOLLIN,
                token,
            );
            Conn {
                stream,
                buf: Vec::with_capacity(256),
                sent_at: Instant::now(),
                written: 0,
                want_out: false,
                done: 0,
            }
        })
        .collect();
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; shape.conns];
    let mut latencies_ns: Vec<u32> = Vec::with_capacity(1 << 20);
    let mut in_flight = 0;
    let mut phase = Phase::WarmUp(shape.conns);
    let mut measured = None;
    let start_timed = |conns: &mut Vec<Conn>, in_flight: &mut usize| {
        let client_cpu = cpu_time(libc::RUSAGE_THREAD);
        let process_cpu = cpu_time(libc::RUSAGE_SELF);
        let sched = sched();
        let started = Instant::now();
        for (token, c) in conns.iter_mut().enumerate() {
            c.send(ep, token);
            *in_flight += 1;
        }
        Phase::Timed {
            deadline: started + shape.duration,
            started,
            client_cpu,
            process_cpu,
            sched,
        }
    };
    if shape.warm_up == 0 {
        phase = start_timed(&mut conns, &mut in_flight);
    } else {
        for (token, c) in conns.iter_mut().enumerate() {
            c.send(ep, token);
            in_flight += 1;
        }
    }
    loop {
        if let Phase::Drain { until } = phase {
            if in_flight == 0 || Instant::now() > until {
                break;
            }
        }
        // SAFETY: `events` has room for `events.len()` entries.
        let n = unsafe { libc::epoll_wait(ep, events.as_mut_ptr(), events.len() as i32, 100) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            assert_eq!(e.kind(), ErrorKind::Interrupted, "epoll_wait: {e}");
            continue;
        }
        for ev in &events[..n as usize] {
            let (bits, token) = (ev.events, ev.u64 as usize);
            let c = &mut conns[token];
            if bits & libc::EPOLLOUT as u32 != 0 && c.written < REQUEST.len() {
                c.flush(ep, token);
            }
            if bits & (libc::EPOLLIN | libc::EPOLLHUP | libc::EPOLLERR) as u32 == 0 || !c.receive()
            {
                continue;
            }
            let now = Instant::now();
            c.done += 1;
            in_flight -= 1;
            match phase {
                Phase::WarmUp(left) => {
                    if c.done < shape.warm_up {
                        c.send(ep, token);
                        in_flight += 1;
                    } else if left > 1 {
                        phase = Phase::WarmUp(left - 1);
                    } else {
                        phase = start_timed(&mut conns, &mut in_flight);
                    }
                }
                Phase::Timed {
                    deadline,
                    started,
                    client_cpu,
                    process_cpu,
                    sched: before,
                } => {
                    if now < deadline {
                        let ns = now.duration_since(c.sent_at).as_nanos();
                        latencies_ns.push(ns.min(u32::MAX as u128) as u32);
                        c.send(ep, token);
                        in_flight += 1;
                    } else {
                        let wall = now.duration_since(started).as_secs_f64();
                        let client = (cpu_time(libc::RUSAGE_THREAD) - client_cpu).as_secs_f64();
                        let process = (cpu_time(libc::RUSAGE_SELF) - process_cpu).as_secs_f64();
                        let after = sched();
                        let ns = |a: u64, b: u64| a.saturating_sub(b) as f64 / 1e9 / wall;
                        measured = Some((
                            client / wall,
                            (process - client) / wall,
                            ns(after.load_wait, before.load_wait),
                            ns(after.server_wait, before.server_wait),
                        ));
                        phase = Phase::Drain {
                            until: now + Duration::from_secs(2),
                        };
                    }
                }
                Phase::Drain { .. } => {}
            }
        }
    }
    drop(conns);
    // SAFETY: `ep` is ours and closed once.
    unsafe { libc::close(ep) };
    let (client_cpu, server_cpu, client_wait, server_wait) =
        measured.expect("the timed part ended");
    HttpRound {
        rate: latencies_ns.len() as f64 / shape.duration.as_secs_f64(),
        latencies_ns,
        client_cpu,
        server_cpu,
        client_wait,
        server_wait,
        per_request: None,
    }
}

/// The row: per main column, each round's rate and every latency.
struct Row {
    rates: Vec<Vec<f64>>,
    latencies: Vec<Vec<u32>>,
    /// Per round, the load thread's and the server's CPU use, and the
    /// server's CPU time per request (µs).
    cpu: Vec<Vec<[f64; 5]>>,
    /// tokiwa columns: per round, parks and ring enters per request.
    counts: Vec<Vec<(f64, f64)>>,
}

static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());

fn key(plan: &Plan) -> String {
    format!("http_hello/c{}/multi({SERVER_WORKERS})", shape(plan).conns)
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
        let mut cpu: Vec<Vec<[f64; 5]>> = cols.iter().map(|_| Vec::new()).collect();
        let mut counts: Vec<Vec<(f64, f64)>> = cols.iter().map(|_| Vec::new()).collect();
        let shape = shape(plan);
        for r in 0..plan.rounds {
            for k in 0..cols.len() {
                let i = (r + k) % cols.len();
                let column = cols[i];
                let got = timed_by_watchdog(
                    || format!("{key} / {}: round {r}", column.label()),
                    || round(column, shape),
                );
                rates[i].push(got.rate);
                latencies[i].extend(got.latencies_ns);
                cpu[i].push([
                    got.client_cpu,
                    got.client_wait,
                    got.server_cpu,
                    got.server_wait,
                    got.server_cpu * 1e6 / got.rate,
                ]);
                counts[i].extend(got.per_request);
            }
        }
        Row {
            rates,
            latencies,
            cpu,
            counts,
        }
    });
    crate::clear_phase();
    ROWS.lock().unwrap().push(done.unwrap_or(Row {
        rates: Vec::new(),
        latencies: Vec::new(),
        cpu: Vec::new(),
        counts: Vec::new(),
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

const LABEL: usize = 26;

/// Prints the row's table (nothing if it did not run). Called by the hang
/// watchdog too, so it must not block on a held lock.
pub fn print(plan: &Plan) {
    let Ok(rows) = ROWS.try_lock() else { return };
    let Some(row) = rows.first() else { return };
    let s = shape(plan);
    println!(
        "\nIN-PROCESS LOAD THREAD http_hello: hyper HTTP/1.1 hello-world ({} B body) on a {SERVER_WORKERS}-worker multi-thread runtime \
         (tokio: hyper-util TokioIo/TokioTimer; tokiwa: tokiwa-compat TokiwaIo/TokiwaTimer)\n\
         load: ONE std thread in this process, epoll over {} non-blocking keep-alive connections, one request \
         in flight each, {} warm-up requests each, then {:?} timed; latency = write to response parsed{}\n\
         each column: {} fresh runtimes; requests/s = median over them, p50/p99 over every timed request\n\
         ratios = {} / that column: requests/s > 1.00 means {} is FASTER, latency < 1.00 means QUICKER\n",
        BODY.len(),
        s.conns,
        s.warm_up,
        s.duration,
        if pinned() {
            "; pinned: load thread on CPU #1, server threads on CPU #0"
        } else {
            ""
        },
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

    println!(
        "\nCPU use in the timed part (median over rounds; 100% = one CPU busy the whole time; \
         the server side = the process minus the load thread; \
         waiting = runnable, not running (schedstat); a side near 100% running + waiting is saturated, \
         and its waiting share is what other threads took from it; \
         on a shared machine, where neither side gets a whole CPU, CPU per request compares the servers best):"
    );
    for (i, c) in columns().main.iter().enumerate() {
        let m = |k: usize| median(&row.cpu[i].iter().map(|x| x[k]).collect::<Vec<_>>());
        let pc = |k: usize| fig(m(k).map(|x| x * 100.0), 0);
        println!(
            "  {:<8} load thread {:>4}% (+{:>3}% waiting for a CPU)   server {:>4}% (+{:>3}% waiting)   \
             server CPU per request {:>6} µs",
            c.label(),
            pc(0),
            pc(1),
            pc(2),
            pc(3),
            fig(m(4), 2),
        );
        if !row.counts[i].is_empty() {
            let parks = median(&row.counts[i].iter().map(|x| x.0).collect::<Vec<_>>());
            let enters = median(&row.counts[i].iter().map(|x| x.1).collect::<Vec<_>>());
            println!(
                "  {:<8} per request: {} worker parks, {} ring enters",
                "",
                fig(parks, 3),
                fig(enters, 3),
            );
        }
    }

    let at = |c: Column| columns().main.iter().position(|&x| x == c);
    let (Some(t), Some(u)) = (at(Column::Tokio), at(Column::Uring)) else {
        println!(
            "\nclaim: io_uring >= 1.10x tokio's requests/s at <= 0.90x its p99: not measured (no uring column)"
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
        "\nclaim: io_uring >= 1.10x tokio's requests/s ({}) at <= 0.90x its p99 ({})",
        verdict(rate, &|x| x >= 1.10),
        verdict(p99, &|x| x <= 0.90),
    );
}

/// The row, for the report: requests/s, latency and the server's CPU time
/// per request.
pub fn tables(plan: &Plan) -> Vec<Table> {
    let Ok(rows) = ROWS.try_lock() else {
        return Vec::new();
    };
    let Some(row) = rows.first() else {
        return Vec::new();
    };
    let cols = &columns().main;
    let key = key(plan);
    let row = if row.rates.is_empty() || row.rates.iter().any(Vec::is_empty) {
        report::Row::failed(key, Family::Http, "panicked; see stderr")
    } else {
        let cpu = |i: usize| median(&row.cpu[i].iter().map(|x| x[4]).collect::<Vec<_>>());
        report::Row::new(
            key,
            Family::Http,
            vec![
                Figure::new(
                    "throughput",
                    "requests/s",
                    Kind::Throughput,
                    per_column(cols, |i| median(&row.rates[i])),
                ),
                Figure::new(
                    "p50",
                    "µs",
                    Kind::Other,
                    per_column(cols, |i| quantile_us(&row.latencies[i], 0.5)),
                ),
                Figure::new(
                    "p99",
                    "µs",
                    Kind::P99,
                    per_column(cols, |i| quantile_us(&row.latencies[i], 0.99)),
                ),
                Figure::new(
                    "server CPU per request",
                    "µs",
                    Kind::Cpu,
                    per_column(cols, cpu),
                ),
            ],
        )
    };
    vec![Table {
        id: "http_hello".into(),
        title: "In-process HTTP: hyper hello world, loaded by one thread of the bench".into(),
        columns: labels(cols),
        rows: vec![row],
    }]
}
