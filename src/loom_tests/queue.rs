//! Model of the local queue overflowing into the injection side while
//! another worker steals.
use super::{model, TestScheduler};
use crate::loom::thread;
use crate::runtime::scheduler::deque::Worker;
use crate::runtime::scheduler::inject::{retry, Inject};
use crate::runtime::scheduler::multi_thread::worker::push_with_overflow;
use crate::runtime::task::Id;
use std::collections::HashSet;
use std::sync::Arc;

#[test]
fn loom_queue_overflow_and_steal() {
    model(|| {
        let sched = TestScheduler::new();
        let inject = Arc::new(Inject::new(1));
        let local = Worker::new_fifo();
        let stealer = local.stealer();
        // Capacity is 4 under loom: six pushes overflow once.
        let tasks: Vec<_> = (0..6).map(|_| sched.notified()).collect();
        let ids: HashSet<Id> = tasks.iter().map(|t| t.id()).collect();

        let thief_inject = inject.clone();
        let thief = thread::spawn(move || {
            let mine = Worker::new_fifo();
            let mut seen = Vec::new();
            if let Some(t) = retry(|| stealer.steal_batch_and_pop(&mine)) {
                seen.push(t);
            }
            if let Some(t) = thief_inject.pop(None, 0) {
                seen.push(t);
            }
            while let Some(t) = mine.pop() {
                seen.push(t);
            }
            seen
        });

        // Whether the queue overflows depends on how much the thief took
        // first; loom explores both.
        for task in tasks {
            push_with_overflow(&local, &inject, Some(0), task);
        }

        let mut seen = thief.join().unwrap();
        while let Some(t) = local.pop() {
            seen.push(t);
        }
        while let Some(t) = inject.pop(Some(0), 0) {
            seen.push(t);
        }
        let got: HashSet<Id> = seen.iter().map(|t| t.id()).collect();
        assert_eq!(seen.len(), 6, "every task exactly once");
        assert_eq!(got, ids);
        drop(seen);
        sched.shutdown();
    });
}
