//! What the workloads count, and the first failure any of them saw.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// One counter per kind of work; the monitor reads them every period.
/// Relaxed everywhere: they are statistics, and the stop flag and the
/// failure are read again after every task was joined.
#[derive(Default)]
pub struct Stats {
    pub echo_messages: AtomicU64,
    pub echo_bytes: AtomicU64,
    pub echo_disconnects: AtomicU64,
    pub timers: AtomicU64,
    pub sync_rounds: AtomicU64,
    pub blocking_jobs: AtomicU64,
    pub signals: AtomicU64,
    pub children: AtomicU64,
    /// Per echo client: messages done, and what it is doing now
    /// ([`ClientPhase`] in the high 32 bits, the message length below),
    /// so a single stuck connection shows among busy ones.
    pub echo_clients: [AtomicU64; ECHO_CLIENTS],
    pub echo_phases: [AtomicU64; ECHO_CLIENTS],
    stop: AtomicBool,
    failure: Mutex<Option<String>>,
}

/// Echo client connections open at once.
pub const ECHO_CLIENTS: usize = 16;

/// What an echo client is doing, for the report of a stuck one.
#[derive(Clone, Copy, Debug)]
pub enum ClientPhase {
    Connecting = 0,
    Writing = 1,
    Reading = 2,
    Aborting = 3,
    Done = 4,
}

impl ClientPhase {
    pub fn name(code: u64) -> &'static str {
        match code {
            0 => "connecting",
            1 => "writing",
            2 => "reading",
            3 => "aborting",
            _ => "done",
        }
    }
}

/// The counters a progress check looks at, by name.
pub const WORKLOADS: [&str; 7] = [
    "echo",
    "timers",
    "contention",
    "blocking",
    "signals",
    "children",
    "disconnects",
];

impl Stats {
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// The counters in [`WORKLOADS`]' order.
    pub fn progress(&self) -> [u64; 7] {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        [
            get(&self.echo_messages),
            get(&self.timers),
            get(&self.sync_rounds),
            get(&self.blocking_jobs),
            get(&self.signals),
            get(&self.children),
            get(&self.echo_disconnects),
        ]
    }

    /// Records a broken invariant (the first one is kept) and stops the
    /// load.
    pub fn fail(&self, what: String) {
        let mut failure = self.failure.lock().unwrap();
        if failure.is_none() {
            *failure = Some(what);
        }
        drop(failure);
        self.stop();
    }

    pub fn set_phase(&self, client: usize, phase: ClientPhase, len: usize) {
        self.echo_phases[client].store(((phase as u64) << 32) | len as u64, Ordering::Relaxed);
    }

    /// The echo clients' message counts.
    pub fn client_progress(&self) -> [u64; ECHO_CLIENTS] {
        std::array::from_fn(|i| self.echo_clients[i].load(Ordering::Relaxed))
    }

    /// What echo client `i` is doing, in words.
    pub fn client_phase(&self, i: usize) -> String {
        let word = self.echo_phases[i].load(Ordering::Relaxed);
        format!(
            "{} ({} bytes)",
            ClientPhase::name(word >> 32),
            word & 0xffff_ffff
        )
    }

    pub fn failure(&self) -> Option<String> {
        self.failure.lock().unwrap().clone()
    }

    pub fn stop(&self) {
        // SeqCst: a rare write; workloads poll it between units of work.
        self.stop.store(true, Ordering::SeqCst);
    }

    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}
