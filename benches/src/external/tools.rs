//! Running the load tools and reading what they and the server did.

use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::steal::CpuTicks;
use super::{Load, Sample, Server, Snapshot};

/// A measured run, opened right before the load starts: the server's
/// snapshot then, and, in a counting round (`Server::counting`), its
/// syscall count since.
pub struct Window {
    before: Snapshot,
    syscalls: Option<Syscalls>,
    ticks: Option<CpuTicks>,
}

impl Window {
    pub fn open(server: &Server) -> Window {
        let before = server.snapshot();
        let syscalls = server.counting.then(|| Syscalls::start(server.child.id()));
        Window {
            before,
            syscalls,
            ticks: CpuTicks::now(),
        }
    }

    /// The figures of the run, with the server's snapshot now.
    fn close(
        self,
        server: &Server,
        requests: f64,
        rate: f64,
        (p50_us, p99_us, p999_us): (Option<f64>, Option<f64>, Option<f64>),
    ) -> Sample {
        let counted = self.syscalls.is_some();
        let syscalls = self.syscalls.and_then(Syscalls::stop);
        let after = server.snapshot();
        let steal_pct = self
            .ticks
            .zip(CpuTicks::now())
            .and_then(|(a, b)| a.steal_pct(b));
        let before = self.before;
        let requests = requests.max(1.0);
        let per = |n: u64| n as f64 / requests;
        Sample {
            rate,
            mean_us: None,
            p50_us,
            p99_us,
            p999_us,
            cpu_us: after.cpu.saturating_sub(before.cpu).as_secs_f64() * 1e6 / requests,
            cross: before
                .cross
                .zip(after.cross)
                .map(|(b, a)| per(a.saturating_sub(b))),
            switches: Some(per(after.switches.saturating_sub(before.switches))),
            syscalls: syscalls.map(per),
            counted,
            steal_pct,
        }
    }
}

/// `perf stat -e raw_syscalls:sys_enter` attached to the server over a
/// measured run: every syscall any of its threads enters. A tracepoint
/// count, so it does not move with the machine's noise (unlike CPU time),
/// and needs no hardware counters. Attached, it slows every syscall of the
/// server (by about 15% of an echo server's CPU here), so it runs in a
/// round of its own whose CPU and throughput are not reported. Absent
/// (`None`) where `perf` cannot run here.
pub struct Syscalls(Option<std::process::Child>);

impl Syscalls {
    fn start(pid: u32) -> Syscalls {
        let child = Command::new("perf")
            .args(["stat", "-x", ",", "-e", "raw_syscalls:sys_enter", "-p"])
            .arg(pid.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .ok();
        Syscalls(child)
    }

    /// Stops counting (`perf` prints its count on SIGINT) and returns the
    /// count.
    fn stop(self) -> Option<u64> {
        let child = self.0?;
        // SAFETY: a plain syscall on our own child's pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let out = child.wait_with_output().ok()?;
        // CSV: `count,unit,event,...`; `<not counted>` when nothing ran.
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .find(|l| l.contains("raw_syscalls:sys_enter"))
            .and_then(|l| l.split(',').next()?.trim().parse().ok())
    }
}

/// Whether `perf` can count the servers' syscalls here (installing it if
/// this process may).
pub fn can_count_syscalls() -> bool {
    have("perf", "linux-perf").is_ok()
}

/// Context switches so far, voluntary and not, summed over the process's
/// threads (`/proc/<pid>/task/*/status`).
pub fn process_switches(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("status")).ok())
        .map(|status| {
            status
                .lines()
                .filter(|l| l.contains("ctxt_switches:"))
                .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                .sum::<u64>()
        })
        .sum()
}

/// A process's CPU time so far: user + system of every thread, from
/// `/proc/<pid>/stat` (fields 14 and 15, in clock ticks).
pub fn process_cpu(pid: u32) -> Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // The command name (field 2) may hold spaces: count from its `)`.
    let after = &stat[stat.rfind(')').map_or(0, |i| i + 1)..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // Fields 14 and 15 are at 11 and 12 counting from field 3.
    let total = ticks(11) + ticks(12);
    // SAFETY: a plain query of a constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_nanos(total * 1_000_000_000 / hz)
}

/// Whether `tool` runs; installs its Debian package when it does not and
/// this process may (root), once per run.
fn have(tool: &'static str, package: &'static str) -> Result<(), String> {
    static WRK: OnceLock<Result<(), String>> = OnceLock::new();
    static REDIS: OnceLock<Result<(), String>> = OnceLock::new();
    static PERF: OnceLock<Result<(), String>> = OnceLock::new();
    let cell = match tool {
        "wrk" => &WRK,
        "perf" => &PERF,
        _ => &REDIS,
    };
    cell.get_or_init(|| {
        let runs = |tool: &str| {
            Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        if runs(tool) {
            return Ok(());
        }
        // SAFETY: a plain query.
        if unsafe { libc::geteuid() } == 0 {
            eprintln!("installing {package} (for {tool}) ...");
            let _ = Command::new("apt-get")
                .args(["install", "-y", "-q", package])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            if runs(tool) {
                return Ok(());
            }
        }
        Err(format!(
            "{tool} not found: install it with `apt-get install {package}`"
        ))
    })
    .clone()
}

/// Why `load`'s tool cannot run, if it cannot.
pub fn missing(load: Load) -> Result<(), String> {
    match load {
        Load::Echo { .. } | Load::Churn { .. } | Load::Paced { .. } => Ok(()),
        Load::Wrk { .. } => have("wrk", "wrk"),
        Load::Redis { .. } => have("redis-benchmark", "redis-tools"),
    }
}

/// `key=value` fields of a line.
fn field(line: &str, key: &str) -> Option<f64> {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

/// The echo load generator, a second instance of this binary.
pub fn echo(
    server: &Server,
    addr: &str,
    conns: usize,
    msg: usize,
    rate: Option<usize>,
    window: Duration,
) -> Result<Sample, String> {
    let args = [addr.to_string(), conns.to_string(), msg.to_string()];
    let pace: Vec<String> = rate.iter().map(usize::to_string).collect();
    load_generator(server, "--loadgen-echo", &args, &pace, window)
}

/// Runs this binary as a load generator (`mode`, then `args`, then the
/// warm-up and the window in milliseconds, then `tail`) and reads its
/// result line.
fn load_generator(
    server: &Server,
    mode: &str,
    args: &[String],
    tail: &[String],
    window: Duration,
) -> Result<Sample, String> {
    let warmup = Duration::from_millis(200);
    let child = Command::new(std::env::current_exe().map_err(|e| e.to_string())?)
        .arg(mode)
        .args(args)
        .args([warmup, window].map(|d| d.as_millis().to_string()))
        .args(tail)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting the load generator: {e}"))?;
    // The server's CPU over the measured window only (not the connects
    // and the warm-up): sampled when the window opens and when the load
    // generator exits, right after it closes.
    let opens = Instant::now() + warmup;
    std::thread::sleep(opens.saturating_duration_since(Instant::now()));
    let window = Window::open(server);
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let line = String::from_utf8_lossy(&out.stdout).to_string();
    if !out.status.success() {
        return Err(format!("load generator failed: {line}"));
    }
    let trips = field(&line, "trips").ok_or_else(|| format!("load generator said {line:?}"))?;
    let elapsed_s = field(&line, "elapsed_ns").unwrap_or(0.0) / 1e9;
    let us = |key| field(&line, key).map(|ns| ns / 1e3);
    let latency = (us("p50_ns"), us("p99_ns"), us("p999_ns"));
    let mut sample = window.close(server, trips, trips / elapsed_s.max(1e-9), latency);
    sample.mean_us = us("mean_ns");
    Ok(sample)
}

/// The churn load generator, a second instance of this binary.
pub fn churn(
    server: &Server,
    addr: &str,
    conns: usize,
    window: Duration,
) -> Result<Sample, String> {
    load_generator(
        server,
        "--loadgen-churn",
        &[addr.to_string(), conns.to_string()],
        &[],
        window,
    )
}

/// `wrk`'s end-of-run hook: percentiles (in microseconds) and counts on
/// one line.
const WRK_SCRIPT: &str = r#"
done = function(summary, latency, requests)
  io.write(string.format("TOKIWA requests=%d errors=%d p50_us=%d p99_us=%d p999_us=%d\n",
    summary.requests,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
"#;

/// `wrk` against hyper's hello server.
pub fn wrk(
    server: &Server,
    addr: &str,
    conns: usize,
    close: bool,
    window: Duration,
) -> Result<Sample, String> {
    let script = std::env::temp_dir().join(format!("tokiwa-wrk-{}.lua", std::process::id()));
    std::fs::write(&script, WRK_SCRIPT).map_err(|e| e.to_string())?;
    let secs = window.as_secs().max(1);
    let mut cmd = Command::new("wrk");
    cmd.arg(format!("-t{}", conns.min(2)))
        .arg(format!("-c{conns}"))
        .arg(format!("-d{secs}s"))
        .arg("-s")
        .arg(&script);
    if close {
        cmd.args(["-H", "Connection: close"]);
    }
    cmd.arg(format!("http://{addr}/"));
    let window = Window::open(server);
    let out = cmd.output().map_err(|e| format!("wrk: {e}"))?;
    let _ = std::fs::remove_file(&script);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let line = text
        .lines()
        .find(|l| l.starts_with("TOKIWA "))
        .ok_or_else(|| format!("wrk said: {text}"))?;
    let requests = field(line, "requests").unwrap_or(0.0);
    if field(line, "errors").unwrap_or(0.0) > 0.0 && !close {
        return Err(format!("wrk saw errors: {line}"));
    }
    let latency = (
        field(line, "p50_us"),
        field(line, "p99_us"),
        field(line, "p999_us"),
    );
    Ok(window.close(server, requests, requests / secs as f64, latency))
}

/// `redis-benchmark -t get` against the Redis-protocol server; the request
/// count is sized for about `window` at this machine's rates.
pub fn redis(
    server: &Server,
    port: u16,
    conns: usize,
    pipeline: usize,
    window: Duration,
) -> Result<Sample, String> {
    // Roughly 20k requests/s per connection alone, 150k with 50, more when
    // pipelined: aim for the window, never below a few thousand.
    let rate = match (conns, pipeline) {
        (1, 1) => 25_000.0,
        (_, 1) => 150_000.0,
        _ => 600_000.0,
    };
    let requests = ((rate * window.as_secs_f64()) as usize).max(5_000);
    let window = Window::open(server);
    let out = Command::new("redis-benchmark")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(["-c", &conns.to_string(), "-n", &requests.to_string()])
        .args(["-P", &pipeline.to_string(), "-t", "get", "--csv"])
        .output()
        .map_err(|e| format!("redis-benchmark: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",
    // "p95_latency_ms","p99_latency_ms","max_latency_ms"
    let row = text
        .lines()
        .find(|l| l.starts_with("\"GET\""))
        .ok_or_else(|| format!("redis-benchmark said: {text}"))?;
    let cells: Vec<f64> = row
        .split(',')
        .skip(1)
        .filter_map(|c| c.trim_matches('"').parse().ok())
        .collect();
    if cells.len() < 7 {
        return Err(format!("redis-benchmark row: {row}"));
    }
    let latency = (Some(cells[3] * 1e3), Some(cells[5] * 1e3), None);
    Ok(window.close(server, requests as f64, cells[0], latency))
}
