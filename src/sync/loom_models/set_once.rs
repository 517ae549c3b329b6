//! `SetOnce`: `wait` racing `set`, and two `set`s racing (tokio's
//! `loom_set_once.rs`).
use super::{block_on, model, thread, DropCounter};
use crate::sync::SetOnce;
use std::sync::Arc;

#[test]
fn loom_set_once_set_wakes_a_waiting_task() {
    model(|| {
        let cell = Arc::new(SetOnce::new());
        let setter = {
            let cell = cell.clone();
            thread::spawn(move || cell.set(2).is_ok())
        };
        assert_eq!(*block_on(cell.wait()), 2);
        assert!(setter.join().unwrap());
    });
}

/// Two `set`s on two threads: exactly one wins, the loser's value comes
/// back in the error, and every value is dropped exactly once.
#[test]
fn loom_set_once_one_of_two_sets_wins() {
    model(|| {
        let drops = DropCounter::default();
        let cell = Arc::new(SetOnce::new());
        let other = {
            let cell = cell.clone();
            let value = drops.value();
            thread::spawn(move || cell.set(value).is_ok())
        };
        let ours = cell.set(drops.value()).is_ok();
        let theirs = other.join().unwrap();
        assert!(ours != theirs, "exactly one set wins");
        // The loser's value was returned in its error and dropped.
        assert_eq!(drops.drops(), 1);
        assert!(cell.get().is_some());
        drop(cell);
        assert_eq!(drops.drops(), 2);
    });
}
