//! `Barrier`: the last arrival releases the others (one leader per
//! generation), also when the barrier is reused at once.
use super::{block_on, model, thread};
use crate::sync::Barrier;
use std::sync::Arc;

/// Three tasks on three threads: all are released, exactly one leads.
#[test]
fn loom_barrier_releases_every_task_with_one_leader() {
    model(|| {
        let barrier = Arc::new(Barrier::new(3));
        let spawn_waiter = || {
            let barrier = barrier.clone();
            thread::spawn(move || block_on(barrier.wait()).is_leader())
        };
        let first = spawn_waiter();
        let second = spawn_waiter();
        let mut leaders = usize::from(block_on(barrier.wait()).is_leader());
        leaders += usize::from(first.join().unwrap());
        leaders += usize::from(second.join().unwrap());
        assert_eq!(leaders, 1);
    });
}

/// Two tasks through two generations in a row: a task that races ahead
/// into the second generation must not release, or be released by, a
/// task still leaving the first.
#[test]
fn loom_barrier_reused_for_a_second_generation() {
    model(|| {
        let barrier = Arc::new(Barrier::new(2));
        let other = {
            let barrier = barrier.clone();
            thread::spawn(move || {
                let first = block_on(barrier.wait()).is_leader();
                let second = block_on(barrier.wait()).is_leader();
                (first, second)
            })
        };
        let first = block_on(barrier.wait()).is_leader();
        let second = block_on(barrier.wait()).is_leader();
        let (other_first, other_second) = other.join().unwrap();
        assert!(first != other_first, "one leader in the first generation");
        assert!(
            second != other_second,
            "one leader in the second generation"
        );
    });
}
