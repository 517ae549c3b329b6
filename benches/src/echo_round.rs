//! What an echo round is and what it measured, shared by the workloads
//! (compiled once per runtime), the columns that run them, and the rows
//! that report them: `EchoShape` in, `EchoRound` out, the `Counters` of
//! tokiwa's `RuntimeMetrics`, and the small helpers they are read with.
//! It imports nothing of the bench, so every part can depend on it.

use std::ops::Sub;
use std::time::Duration;

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
    /// What the runtime's workers did meanwhile (tokiwa only).
    pub counters: Option<Counters>,
    /// The process's CPU time (user + system, every thread) over the same
    /// window: what the round trips cost, however many CPUs the machine
    /// lent.
    pub cpu: Duration,
}

/// The process's CPU time so far (`CLOCK_PROCESS_CPUTIME_ID`).
pub fn process_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Per-runtime sums over the workers of tokiwa's `RuntimeMetrics` counts.
#[derive(Clone, Copy, Default, Debug)]
pub struct Counters {
    pub ring_enters: u64,
    pub cqes: u64,
    pub eventfd_writes: u64,
    pub coalesced_notifies: u64,
    pub taskrun_enters: u64,
    pub wake_rearms: u64,
    pub parks: u64,
    pub polls: u64,
    pub steals: u64,
    pub foreign_io_waits: u64,
    pub io_rehomes: u64,
}

impl Sub for Counters {
    type Output = Counters;

    fn sub(self, before: Counters) -> Counters {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        Counters {
            ring_enters: d(self.ring_enters, before.ring_enters),
            cqes: d(self.cqes, before.cqes),
            eventfd_writes: d(self.eventfd_writes, before.eventfd_writes),
            coalesced_notifies: d(self.coalesced_notifies, before.coalesced_notifies),
            taskrun_enters: d(self.taskrun_enters, before.taskrun_enters),
            wake_rearms: d(self.wake_rearms, before.wake_rearms),
            parks: d(self.parks, before.parks),
            polls: d(self.polls, before.polls),
            steals: d(self.steals, before.steals),
            foreign_io_waits: d(self.foreign_io_waits, before.foreign_io_waits),
            io_rehomes: d(self.io_rehomes, before.io_rehomes),
        }
    }
}

impl Counters {
    pub fn add(&mut self, other: Counters) {
        self.ring_enters += other.ring_enters;
        self.cqes += other.cqes;
        self.eventfd_writes += other.eventfd_writes;
        self.coalesced_notifies += other.coalesced_notifies;
        self.taskrun_enters += other.taskrun_enters;
        self.wake_rearms += other.wake_rearms;
        self.parks += other.parks;
        self.polls += other.polls;
        self.steals += other.steals;
        self.foreign_io_waits += other.foreign_io_waits;
        self.io_rehomes += other.io_rehomes;
    }
}

/// Nearest-rank percentile of the sorted `sorted`, `permille` in 1..=1000.
pub fn percentile(sorted: &[u64], permille: usize) -> u64 {
    let rank = (permille * sorted.len()).div_ceil(1000).max(1);
    sorted[rank - 1]
}

pub fn msg_label(msg: usize) -> String {
    if msg >= 1024 && msg.is_multiple_of(1024) {
        format!("{}KiB", msg / 1024)
    } else {
        format!("{msg}B")
    }
}
