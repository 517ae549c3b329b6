//! How often a worker about to sleep reaps what may well be empty
//! ([`ReapBackoff`]): its sleeping peers' epolls, and its own.
//!
//! **Peers.** Before it parks, a worker reaps the epoll of every peer that
//! sleeps (`driver::Handle::reap_sleeping`): readiness the kernel already
//! has then runs on a worker that is awake, with no poll-thread hop and no
//! peer woken. When the peers' sockets are quiet that reap is one
//! `epoll_wait` that finds nothing, paid on every park: on a
//! one-connection echo it was one of the 9.7-9.9 syscalls of each round
//! trip (tokio makes 3.3), and it never found an event.
//!
//! **Its own, last.** The same holds for the worker's own last reap before
//! it sleeps: when the peer of a connection answers in more time than the
//! worker takes to park (a paced client, or one that computes), that reap
//! finds nothing at every park, an `epoll_wait` of the 8 syscalls of each
//! round trip (paced one-connection echo; tokio makes 3). It is not needed
//! for correctness: arming the poll thread's one-shot watch makes the
//! kernel re-check the worker's epoll, so an event already there fires it
//! at once (`poll_gate.rs`); a skipped reap that would have found events
//! costs a poll-thread hop, never an event.
//!
//! So a worker backs off each of them: after [`QUIET_AFTER`] empty reaps
//! in a row it reaps only one park in [`MAX_SKIPPED`]` + 1`, until a reap
//! finds events again. Nothing waits longer for a skipped reap: a sleeping
//! worker's watch is armed, so its poll thread delivers those events as it
//! does for any sleeper; the reap only shortens their way. Under load from
//! a closed loop the last reap finds the next request most of the time, so
//! it never backs off there.
//!
//! Why a threshold and not a back-off that starts at the first miss: under
//! `wrk` at 64 connections the peers' epolls have events often but not at
//! every park, and a back-off from the first miss skipped reaps that would
//! have found them (p99 8-19% higher in three interleaved pairs).
use crate::loom::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Empty reaps in a row after which a worker backs off.
const QUIET_AFTER: u32 = 8;

/// Reaps skipped between two tries once backed off.
const MAX_SKIPPED: u32 = 15;

/// A worker's back-off on one kind of reap (its sleeping peers', or its
/// own last one).
///
/// Used only by the thread that holds the worker's core (a core moves
/// between threads only through a hand-off that orders everything before
/// it), so its loads and stores are `Relaxed`: the value orders nothing
/// else.
#[derive(Debug, Default)]
pub(crate) struct ReapBackoff {
    /// Empty reaps in a row (at most `QUIET_AFTER`).
    misses: AtomicU32,
    /// Parks still to skip before the next reap.
    skip: AtomicU32,
}

impl ReapBackoff {
    /// Whether this park should reap; a skipped one counts down.
    pub(crate) fn due(&self) -> bool {
        let skip = self.skip.load(Relaxed);
        if skip == 0 {
            return true;
        }
        self.skip.store(skip - 1, Relaxed);
        false
    }

    /// The reap found events (`true`) or nothing.
    pub(crate) fn record(&self, found: bool) {
        let misses = if found {
            0
        } else {
            (self.misses.load(Relaxed) + 1).min(QUIET_AFTER)
        };
        self.misses.store(misses, Relaxed);
        let skip = if misses == QUIET_AFTER {
            MAX_SKIPPED
        } else {
            0
        };
        self.skip.store(skip, Relaxed);
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests {
    use super::*;

    /// How many of the next `n` parks reap, when every reap finds nothing.
    fn reaps_in(backoff: &ReapBackoff, n: usize) -> usize {
        (0..n)
            .filter(|_| {
                let due = backoff.due();
                if due {
                    backoff.record(false);
                }
                due
            })
            .count()
    }

    #[test]
    fn quiet_peers_are_reaped_one_park_in_sixteen() {
        let backoff = ReapBackoff::default();
        // Every park reaps until QUIET_AFTER reaps found nothing.
        assert_eq!(
            reaps_in(&backoff, QUIET_AFTER as usize),
            QUIET_AFTER as usize
        );
        // From then on one reap in 16.
        assert_eq!(reaps_in(&backoff, 16 * 10), 10);
    }

    #[test]
    fn a_reap_that_finds_events_resets_it() {
        let backoff = ReapBackoff::default();
        reaps_in(&backoff, 100);
        // Wait for the next due reap; it finds events.
        while !backoff.due() {}
        backoff.record(true);
        assert!(backoff.due());
        assert!(backoff.due(), "nothing is skipped after a hit");
    }
}
