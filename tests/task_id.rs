#![cfg(feature = "full")]
//! Task ids: `task::id()` inside a task is its `JoinHandle::id`, `try_id()`
//! is `None` outside tasks, ids are unique, and the id is current while the
//! task's future is dropped.

#[macro_use]
mod support;

use std::collections::HashSet;
use std::future::pending;
use std::panic;
use std::sync::{Arc, Mutex};

use support::{panic_message, quiet_panics, Counter, Flavor};
use tokiwa::sync::{oneshot, Notify};
use tokiwa::task::{self, Id, LocalSet};

/// Records `task::try_id()` when dropped.
struct RecordIdOnDrop(Arc<Mutex<Vec<Option<Id>>>>, Arc<Notify>);

impl Drop for RecordIdOnDrop {
    fn drop(&mut self) {
        self.0.lock().unwrap().push(task::try_id());
        self.1.notify_one();
    }
}

rt_test! {
    fn id_inside_task_is_join_handle_id() {
        let rt = rt();
        let jh = rt.spawn(async { task::id() });
        let expected = jh.id();
        assert_eq!(rt.block_on(jh).unwrap(), expected);

        let (inside, expected) = rt.block_on(async {
            let jh = tokiwa::spawn(async { (task::id(), task::try_id()) });
            let id = jh.id();
            (jh.await.unwrap(), id)
        });
        assert_eq!(inside, (expected, Some(expected)));
    }

    fn id_is_stable_across_awaits_and_nested_spawns() {
        let rt = rt();
        let jh = rt.spawn(async {
            let before = task::id();
            let inner = tokiwa::spawn(async {
                task::yield_now().await;
                task::id()
            });
            let inner_id = inner.id();
            let inner_seen = inner.await.unwrap();
            task::yield_now().await;
            let after = task::id();
            (before, after, inner_id, inner_seen)
        });
        let outer_id = jh.id();
        let (before, after, inner_id, inner_seen) = rt.block_on(jh).unwrap();
        assert_eq!(before, outer_id);
        assert_eq!(after, outer_id, "the id changed across an await");
        assert_eq!(inner_seen, inner_id);
        assert_ne!(inner_id, outer_id);
    }

    fn try_id_outside_tasks() {
        assert_eq!(task::try_id(), None);
        let rt = rt();
        // `block_on`'s future is not a task.
        assert_eq!(rt.block_on(async { task::try_id() }), None);
        let _guard = rt.enter();
        assert_eq!(task::try_id(), None);
        drop(_guard);
        // After a task ran, the id is not left behind on this thread.
        rt.block_on(async { tokiwa::spawn(async {}).await.unwrap() });
        assert_eq!(task::try_id(), None);
        assert_eq!(rt.block_on(async { task::try_id() }), None);
    }

    fn id_panics_outside_tasks() {
        quiet_panics(&["Can't get a task id when not inside a task"]);
        let payload = panic::catch_unwind(task::id).unwrap_err();
        assert_eq!(panic_message(&*payload), "Can't get a task id when not inside a task");
    }

    fn ids_are_unique() {
        let rt = rt();
        let handles: Vec<_> = (0..1000).map(|_| rt.spawn(async { task::id() })).collect();
        let from_handles: Vec<Id> = handles.iter().map(|jh| jh.id()).collect();
        let from_tasks: Vec<Id> = rt.block_on(async {
            let mut ids = Vec::new();
            for jh in handles {
                ids.push(jh.await.unwrap());
            }
            ids
        });
        assert_eq!(from_handles, from_tasks);
        let unique: HashSet<Id> = from_tasks.iter().copied().collect();
        assert_eq!(unique.len(), 1000);
        // Blocking tasks draw from the same space.
        let blocking = rt.spawn_blocking(|| {});
        assert!(!unique.contains(&blocking.id()));
        rt.block_on(blocking).unwrap();
    }

    fn id_inside_spawn_blocking() {
        // As in tokio, a blocking closure runs as a task with an id.
        let rt = rt();
        let jh = rt.spawn_blocking(task::try_id);
        let id = jh.id();
        assert_eq!(rt.block_on(jh).unwrap(), Some(id));
    }

    fn id_current_while_future_dropped() {
        // Dropped by abort, and dropped at shutdown: either way the task's
        // id is current in the destructor.
        let rt = rt();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let notify = Arc::new(Notify::new());
        let (ready_tx, ready_rx) = oneshot::channel::<()>();
        let guard = RecordIdOnDrop(seen.clone(), notify.clone());
        let aborted = rt.spawn(async move {
            let _guard = guard;
            ready_tx.send(()).unwrap();
            pending::<()>().await
        });
        let aborted_id = aborted.id();
        rt.block_on(async { ready_rx.await.unwrap() });
        aborted.abort();
        rt.block_on(async {
            while seen.lock().unwrap().is_empty() {
                notify.notified().await;
            }
        });
        assert_eq!(seen.lock().unwrap().as_slice(), &[Some(aborted_id)]);

        let guard = RecordIdOnDrop(seen.clone(), notify.clone());
        let at_shutdown = rt.spawn(async move {
            let _guard = guard;
            pending::<()>().await
        });
        let shutdown_id = at_shutdown.id();
        drop(rt);
        assert_eq!(
            seen.lock().unwrap().as_slice(),
            &[Some(aborted_id), Some(shutdown_id)]
        );
        drop(at_shutdown);
    }

    fn join_error_id_matches() {
        quiet_panics(&["boom"]);
        let rt = rt();
        let jh = rt.spawn(async { panic!("boom") });
        let id = jh.id();
        assert_eq!(rt.block_on(jh).unwrap_err().id(), id);
        let jh = rt.spawn(pending::<()>());
        let id = jh.id();
        jh.abort();
        assert_eq!(rt.block_on(jh).unwrap_err().id(), id);
    }

    fn id_inside_local_set() {
        let rt = rt();
        let local = LocalSet::new();
        let counter = Counter::new();
        let c = counter.clone();
        let (a, b) = local.block_on(&rt, async move {
            let jh = task::spawn_local(async move {
                c.inc();
                task::id()
            });
            let id = jh.id();
            (jh.await.unwrap(), id)
        });
        assert_eq!(a, b);
        assert_eq!(counter.get(), 1);
        // The `run_until` future itself is not a task.
        assert_eq!(local.block_on(&rt, async { task::try_id() }), None);
    }
}

#[test]
fn id_display_and_debug() {
    let rt = Flavor::current_thread().build();
    let jh = rt.spawn(async {});
    let id = jh.id();
    let display = id.to_string();
    assert!(
        display.parse::<u64>().is_ok(),
        "Display is the number: {display}"
    );
    assert_eq!(format!("{id:?}"), format!("Id({display})"));
    rt.block_on(jh).unwrap();
}
