//! `OnceCell`: concurrent initialisers (one runs, every caller sees its
//! value), a cancelled initialiser handing over to the next, and `set`
//! racing `get_or_init`.
use super::{block_on, model, poll_once, thread};
use crate::sync::OnceCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Two `get_or_init` on two threads: one initialiser runs, both callers
/// get its value.
#[test]
fn loom_once_cell_runs_one_of_two_initialisers() {
    model(|| {
        let cell = Arc::new(OnceCell::new());
        // Which initialisers ran (bit 0: ours, bit 1: the other thread's).
        let ran = Arc::new(AtomicUsize::new(0));
        let other = {
            let (cell, ran) = (cell.clone(), ran.clone());
            thread::spawn(move || {
                *block_on(cell.get_or_init(|| async {
                    ran.fetch_or(2, Ordering::SeqCst);
                    2
                }))
            })
        };
        let ours = *block_on(cell.get_or_init(|| async {
            ran.fetch_or(1, Ordering::SeqCst);
            1
        }));
        let theirs = other.join().unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(ran.load(Ordering::SeqCst), ours, "only the winner ran");
    });
}

/// An initialiser polled once (it holds the initialisation permit and
/// waits) and then cancelled, racing another caller: the other caller's
/// initialiser runs, whether it queued before or after the cancel.
#[test]
fn loom_once_cell_cancelled_initialiser_lets_the_next_run() {
    model(|| {
        let cell = Arc::new(OnceCell::<u32>::new());
        let cancelled = {
            let cell = cell.clone();
            thread::spawn(move || {
                let mut init = Box::pin(cell.get_or_init(std::future::pending));
                // Ready only if the other caller's value is already in.
                let _ = poll_once(init.as_mut());
            })
        };
        assert_eq!(*block_on(cell.get_or_init(|| async { 2 })), 2);
        cancelled.join().unwrap();
        assert_eq!(cell.get(), Some(&2));
    });
}

/// `set` racing `get_or_init`: the value the cell ends with is the one
/// `get_or_init` returned, and it is `set`'s exactly when `set` succeeded.
#[test]
fn loom_once_cell_set_racing_get_or_init() {
    model(|| {
        let cell = Arc::new(OnceCell::new());
        let setter = {
            let cell = cell.clone();
            thread::spawn(move || cell.set(1).is_ok())
        };
        let got = *block_on(cell.get_or_init(|| async { 2 }));
        let set = setter.join().unwrap();
        assert_eq!(cell.get(), Some(&got));
        assert_eq!(got == 1, set);
    });
}
