//! What the process tests observe of a child from outside: its state in
//! `/proc/<pid>/stat` and whether it has been reaped.
//!
//! A pid is only reused after it is reaped, so a child is identified by
//! its pid *and* its start time: a pid that is gone, or that now belongs to
//! a process started at another time, was reaped.
use std::time::{Duration, Instant};

/// A child process, identified across pid reuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcId {
    pub pid: u32,
    start: u64,
}

/// The state letter (`R`, `S`, `Z`, ...) and start time of `pid`, or
/// `None` if there is no such process.
pub fn proc_stat(pid: u32) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces and parentheses: the
    // fields after it start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `fields[0]` is field 3 (state); the start time is field 22.
    let state = fields.first()?.chars().next()?;
    let start = fields.get(22 - 3)?.parse().ok()?;
    Some((state, start))
}

/// Identifies the live (or zombie) process `pid`.
#[track_caller]
pub fn proc_id(pid: u32) -> ProcId {
    let (_, start) = proc_stat(pid).expect("the child exists until it is reaped");
    ProcId { pid, start }
}

/// Whether `id` has been reaped (it no longer exists, not even as a
/// zombie).
pub fn is_reaped(id: ProcId) -> bool {
    match proc_stat(id.pid) {
        None => true,
        Some((_, start)) => start != id.start,
    }
}

/// Whether `id` is a zombie: it has exited and nobody has reaped it yet.
pub fn is_zombie(id: ProcId) -> bool {
    matches!(proc_stat(id.pid), Some((state, start)) if state == 'Z' && start == id.start)
}

/// How long the reaping of an orphan, or the exit of a child, may take on
/// a loaded two-core machine.
pub const REAP_LIMIT: Duration = Duration::from_secs(30);

/// Polls `/proc` until `cond` holds, every millisecond, for at most
/// [`REAP_LIMIT`]. Only for what no event reports to the test: the kernel
/// making a child a zombie, and the runtime's reaper thread reaping an
/// orphan.
#[track_caller]
pub fn poll_proc(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < REAP_LIMIT,
            "timed out after {REAP_LIMIT:?} waiting for: {what}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Waits until `id` has been reaped.
#[track_caller]
pub fn wait_reaped(id: ProcId) {
    poll_proc(&format!("pid {} reaped", id.pid), || is_reaped(id));
}

/// Waits until `id` has exited (and is a zombie, not yet reaped).
#[track_caller]
pub fn wait_zombie(id: ProcId) {
    poll_proc(&format!("pid {} a zombie", id.pid), || is_zombie(id));
}

/// Descriptors of this process that are pidfds.
pub fn open_pidfds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter_map(|entry| std::fs::read_link(entry.path()).ok())
                .filter(|target| target.to_string_lossy().contains("[pidfd]"))
                .count()
        })
        .unwrap_or(0)
}
