//! Starts the workloads, checks the invariants once a second while they
//! run, then stops them and checks that everything came back.
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokiwa::runtime::Runtime;

use crate::alloc::live_bytes;
use crate::stats::{Stats, WORKLOADS};
use crate::{contention, echo, processes, timers};

/// A workload whose counter does not move for this long is stuck: its
/// tasks wait for a wakeup that was lost. (Every workload completes many
/// units per second.)
const STALL: Duration = Duration::from_secs(10);

/// How much descriptors may exceed the most seen in warm-up: connections
/// and pipes come and go, in numbers the workloads bound.
const FD_SLACK: usize = 32;

/// Workloads that must join within this once told to stop.
const STOP_BOUND: Duration = Duration::from_secs(30);

pub fn run(runtime: &Runtime, stats: &Arc<Stats>, duration: Duration) -> Result<String, String> {
    let fds_before = count_fds()?;
    let heap_before = live_bytes();
    let workloads = [
        ("echo", runtime.spawn(echo::run(stats.clone()))),
        ("timers", runtime.spawn(timers::run(stats.clone()))),
        ("contention", runtime.spawn(contention::run(stats.clone()))),
        (
            "blocking",
            runtime.spawn(processes::blocking(stats.clone())),
        ),
        ("signals", runtime.spawn(processes::signals(stats.clone()))),
        (
            "children",
            runtime.spawn(processes::children(stats.clone())),
        ),
    ];

    let start = Instant::now();
    let warm_up = (duration / 10).max(Duration::from_secs(5));
    let mut warm = Peak::default();
    let mut last_moved = [start; WORKLOADS.len()];
    let mut last_progress = stats.progress();
    let mut clients_moved = [start; crate::stats::ECHO_CLIENTS];
    let mut last_clients = stats.client_progress();
    let mut last_line = (start, wakes(runtime));
    let checked = loop {
        std::thread::sleep(Duration::from_secs(1));
        let now = Instant::now();
        if let Some(e) = stats.failure() {
            break Err(e);
        }
        let fds = count_fds()?;
        let heap = live_bytes();
        let progress = stats.progress();
        // The last counter (disconnects) is random and rare: reported only.
        for i in 0..WORKLOADS.len() - 1 {
            if progress[i] != last_progress[i] {
                last_moved[i] = now;
            }
        }
        if let Some(i) = (0..WORKLOADS.len() - 1).find(|&i| now - last_moved[i] > STALL) {
            break Err(format!(
                "{} made no progress for {STALL:?} (stuck at {})",
                WORKLOADS[i], progress[i]
            ));
        }
        last_progress = progress;
        let clients = stats.client_progress();
        for i in 0..clients.len() {
            if clients[i] != last_clients[i] {
                clients_moved[i] = now;
            }
        }
        last_clients = clients;
        if let Some(i) = (0..clients.len()).find(|&i| now - clients_moved[i] > STALL) {
            break Err(format!(
                "echo client {i} made no progress for {STALL:?}: {}",
                stats.client_phase(i)
            ));
        }
        let elapsed = now - start;
        if elapsed < warm_up {
            warm.update(fds, heap);
        } else if fds > warm.fds + FD_SLACK {
            break Err(format!(
                "descriptors grew: {fds} open, at most {} in warm-up",
                warm.fds
            ));
        } else if heap > warm.heap + warm.heap / 2 + (8 << 20) {
            break Err(format!(
                "heap grew: {} KiB live, at most {} KiB in warm-up",
                heap >> 10,
                warm.heap >> 10
            ));
        }
        if now - last_line.0 >= Duration::from_secs(10) || elapsed >= duration {
            let total = wakes(runtime);
            let rate = (total - last_line.1) as f64 / (now - last_line.0).as_secs_f64();
            println!(
                "{:>5.0} s  wakes/s {:>9.0}  echo msgs {:>10}  fds {fds:>4}  heap {:>7} KiB  rss {:>7} KiB",
                elapsed.as_secs_f64(),
                rate,
                progress[0],
                heap >> 10,
                rss_kib()
            );
            last_line = (now, total);
        }
        if elapsed >= duration {
            break Ok(());
        }
    };

    // Stop, join every workload, and check what is left.
    stats.stop();
    let joined = runtime.block_on(async {
        let deadline = tokiwa::time::Instant::now() + STOP_BOUND;
        for (name, workload) in workloads {
            match tokiwa::time::timeout_at(deadline, workload).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(format!("{name}: its task failed: {e}")),
                Err(_) if name == "echo" => {
                    let phases: Vec<String> = (0..crate::stats::ECHO_CLIENTS)
                        .map(|i| stats.client_phase(i))
                        .collect();
                    return Err(format!(
                        "echo did not stop within {STOP_BOUND:?}; its clients: {}",
                        phases.join(", ")
                    ));
                }
                Err(_) => return Err(format!("{name} did not stop within {STOP_BOUND:?}")),
            }
        }
        Ok(())
    });
    checked?;
    joined?;
    if let Some(e) = stats.failure() {
        return Err(e);
    }
    // A joined task leaves the runtime's count just after its join handle
    // saw it finish (as in tokio), so the count is given a moment to settle.
    let settle = Instant::now();
    let mut alive = runtime.metrics().num_alive_tasks();
    while alive != 0 && settle.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
        alive = runtime.metrics().num_alive_tasks();
    }
    if alive != 0 {
        return Err(format!(
            "{alive} tasks still alive 5 s after every workload was joined"
        ));
    }
    let fds_after = count_fds()?;
    // The signal driver keeps the descriptors it made for the first
    // listener (as tokio's does) for the life of the process.
    if fds_after > fds_before + 2 {
        return Err(format!(
            "descriptors not given back: {fds_before} before the load, {fds_after} after"
        ));
    }
    let heap_after = live_bytes();
    if heap_after > heap_before + (4 << 20) {
        return Err(format!(
            "heap not given back: {} KiB before the load, {} KiB after",
            heap_before >> 10,
            heap_after >> 10
        ));
    }
    Ok(summary(
        stats,
        runtime,
        start.elapsed(),
        [fds_before, fds_after],
        [heap_before, heap_after],
    ))
}

/// The most descriptors and heap bytes seen in warm-up.
#[derive(Default)]
struct Peak {
    fds: usize,
    heap: usize,
}

impl Peak {
    fn update(&mut self, fds: usize, heap: usize) {
        self.fds = self.fds.max(fds);
        self.heap = self.heap.max(heap);
    }
}

/// Task polls on every worker so far: each one follows a wake (or the
/// task's spawn).
fn wakes(runtime: &Runtime) -> u64 {
    let metrics = runtime.metrics();
    (0..metrics.num_workers())
        .map(|w| metrics.worker_poll_count(w))
        .sum()
}

fn count_fds() -> Result<usize, String> {
    std::fs::read_dir("/proc/self/fd")
        .map(|dir| dir.count())
        .map_err(|e| format!("read /proc/self/fd: {e}"))
}

fn rss_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4
}

fn summary(
    stats: &Stats,
    runtime: &Runtime,
    elapsed: Duration,
    fds: [usize; 2],
    heap: [usize; 2],
) -> String {
    let secs = elapsed.as_secs_f64();
    let total = wakes(runtime);
    let progress = stats.progress();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "soak: {secs:.0} s, {total} wakes ({:.0}/s)",
        total as f64 / secs
    );
    for (name, count) in WORKLOADS.iter().zip(progress) {
        let _ = writeln!(
            out,
            "  {name:<12} {count:>12}  ({:.0}/s)",
            count as f64 / secs
        );
    }
    let _ = writeln!(
        out,
        "  echo bytes   {:>12}",
        stats.echo_bytes.load(std::sync::atomic::Ordering::Relaxed)
    );
    let _ = write!(
        out,
        "  descriptors {} before, {} after; live heap {} KiB before, {} KiB after",
        fds[0],
        fds[1],
        heap[0] >> 10,
        heap[1] >> 10
    );
    out
}
