//! The idle protocol: which workers search for work, which sleep, and whom
//! a notifier wakes. It must never lose a wakeup.
//!
//! Each worker is *running*, *searching* (out of local work, stealing) or
//! *parked*. The shared counts are `num_searching` and `num_parked`, plus
//! the list of parked workers.
//!
//! **Worker going idle** (`Worker::park` in `worker.rs`):
//! 1. announce: leave searching, push itself on the parked list and count
//!    itself parked, then a `SeqCst` fence;
//! 2. re-check every source of work: its own queue, the injection queues,
//!    the other workers' queues, the shutdown flag;
//! 3. if anything was found, withdraw (`unannounce`); if the withdrawal
//!    fails, a notifier picked it meanwhile and counted it as searching, so
//!    it continues as a searcher (any leftover unpark token only causes one
//!    spurious return later);
//! 4. else block on its parker until unparked or the next timer deadline.
//!
//! **Notifier** (after making work visible, `notify_one`):
//! 1. `SeqCst` fence; if a worker is searching, stop: it will find the work
//!    (or, if it gives up, its own step 2 sees it);
//! 2. else, if a worker is parked, take it off the list under the lock and
//!    count it searching (so concurrent notifiers coalesce onto it);
//! 3. unpark it.
//!
//! **Why nothing is lost.** The pusher does *store work, fence, load
//! counts*; the idler does *store counts, fence, load work*. With the two
//! `SeqCst` fences, at least one of them sees the other's store: either the
//! idler sees the work in step 2, or the notifier sees the idler parked (or
//! searching, which is handed on by the last searcher: when it finds work it
//! wakes another worker, `transition_from_searching`). The loom model in
//! `src/loom_tests/park.rs` checks exactly this.
//!
//! Searching is capped at half the workers so that a burst of wakeups does
//! not make every worker hammer the others' queues.
use crate::loom::sync::atomic::{fence, AtomicUsize, Ordering::SeqCst};
use crate::loom::sync::Mutex;

/// What happened in [`Idle::park_worker`].
pub(crate) struct ParkOutcome {
    /// The worker was chosen by a notifier and now counts as searching.
    pub(crate) searching: bool,
}

pub(crate) struct Idle {
    num_searching: AtomicUsize,
    num_parked: AtomicUsize,
    parked: Mutex<Vec<usize>>,
    num_workers: usize,
}

impl Idle {
    pub(crate) fn new(num_workers: usize) -> Idle {
        Idle {
            num_searching: AtomicUsize::new(0),
            num_parked: AtomicUsize::new(0),
            parked: Mutex::new(Vec::with_capacity(num_workers)),
            num_workers,
        }
    }

    /// Picks a parked worker to wake, if no worker is searching. The
    /// returned worker is already counted as searching.
    pub(crate) fn worker_to_notify(&self) -> Option<usize> {
        fence(SeqCst);
        if self.num_searching.load(SeqCst) != 0 || self.num_parked.load(SeqCst) == 0 {
            return None;
        }
        let mut parked = self.parked.lock().unwrap();
        // Re-check under the lock: another notifier may have just woken one.
        if self.num_searching.load(SeqCst) != 0 {
            return None;
        }
        let worker = parked.pop()?;
        self.num_parked.fetch_sub(1, SeqCst);
        self.num_searching.fetch_add(1, SeqCst);
        Some(worker)
    }

    /// Every parked worker, for shutdown. Each is counted as searching, as
    /// for `worker_to_notify`, so its failed `unannounce` stays consistent.
    pub(crate) fn take_all_parked(&self) -> Vec<usize> {
        let mut parked = self.parked.lock().unwrap();
        self.num_parked.fetch_sub(parked.len(), SeqCst);
        self.num_searching.fetch_add(parked.len(), SeqCst);
        std::mem::take(&mut *parked)
    }

    /// A worker with no local work asks to search. Refused when half the
    /// workers already search.
    pub(crate) fn transition_to_searching(&self) -> bool {
        self.num_searching
            .fetch_update(SeqCst, SeqCst, |searching| {
                (2 * searching < self.num_workers).then_some(searching + 1)
            })
            .is_ok()
    }

    /// A worker about to spin for events before parking
    /// (`Context::spin_for_completions`) counts as searching, past the cap.
    pub(crate) fn transition_to_searching_uncapped(&self) {
        self.num_searching.fetch_add(1, SeqCst);
    }

    /// A searcher stops searching. Returns `true` if it was the last one
    /// (the caller then wakes another worker if it found work).
    pub(crate) fn transition_from_searching(&self) -> bool {
        self.num_searching.fetch_sub(1, SeqCst) == 1
    }

    /// A searcher stops searching to run work of its own that it found
    /// (readiness it reaped into its own queue while it spun), rather than
    /// work another thread made visible. Returns whether the caller must
    /// wake a parked worker.
    ///
    /// A notifier that pushed meanwhile may have seen this worker still
    /// searching and woken nobody, counting on it to find the push; it
    /// will not, as it goes back to its own queue. So the last searcher to
    /// leave looks at the shared queues again (`has_remote_work`) after
    /// the decrement and a fence, Dekker-style against the notifier's
    /// *push, fence, load counts*: either the notifier saw no searcher and
    /// woke a worker itself, or this look sees its push. A last searcher
    /// that sees nothing wakes nobody: its own readiness is not worth a
    /// wakeup that would only make another worker spin and park again.
    pub(crate) fn stop_searching_for_own_work(
        &self,
        has_remote_work: impl FnOnce() -> bool,
    ) -> bool {
        if !self.transition_from_searching() {
            return false;
        }
        fence(SeqCst);
        has_remote_work()
    }

    /// Step 1 of going idle. `searching`: whether the worker was searching.
    fn announce_parked(&self, worker: usize, searching: bool) {
        {
            let mut parked = self.parked.lock().unwrap();
            parked.push(worker);
            self.num_parked.fetch_add(1, SeqCst);
        }
        if searching {
            self.num_searching.fetch_sub(1, SeqCst);
        }
        fence(SeqCst);
    }

    /// Goes idle: steps 1-4 above. `has_work` re-checks every source of
    /// work, `block` sleeps on the worker's parker. Returns whether the
    /// worker comes back as a searcher (a notifier chose it).
    pub(crate) fn park_worker(
        &self,
        worker: usize,
        searching: bool,
        has_work: impl FnOnce() -> bool,
        block: impl FnOnce(),
    ) -> ParkOutcome {
        // 1. announce (the fence is inside)
        self.announce_parked(worker, searching);
        // 2. re-check
        let found = has_work();
        if !found {
            // 4. block until unparked (or the timer deadline)
            block();
        }
        // 3. (or after waking) withdraw; failing means a notifier chose us
        // and counted us as searching.
        let withdrawn = self.unannounce(worker);
        if withdrawn && found && searching {
            // A searcher that finds work at the re-check goes on as a
            // searcher, so that running the work hands the search on
            // (`transition_from_searching` wakes a parked worker when the
            // last searcher finds work). Notifiers that ran while it still
            // counted as searching woke nobody, trusting it to do that:
            // without this, four tasks pushed at once behind a barrier were
            // run by one worker while the other three stayed parked (the
            // `panicking_join_waker` test hung about once in 20 runs).
            self.num_searching.fetch_add(1, SeqCst);
            return ParkOutcome { searching: true };
        }
        ParkOutcome {
            searching: !withdrawn,
        }
    }

    /// Takes the worker off the parked list. `false` when a notifier did
    /// first (it then counted the worker as searching).
    fn unannounce(&self, worker: usize) -> bool {
        let mut parked = self.parked.lock().unwrap();
        match parked.iter().position(|&w| w == worker) {
            Some(pos) => {
                parked.swap_remove(pos);
                self.num_parked.fetch_sub(1, SeqCst);
                true
            }
            None => false,
        }
    }
}
