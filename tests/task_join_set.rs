#![cfg(feature = "full")]
//! `JoinSet`: completion order, abort, drop, detach, shutdown, ids, the
//! non-async `try_join_*` calls, large sets, and both runtime flavours.
//!
//! Only runtime-independent helpers are used (no timers, no `sync`), so the
//! file runs unchanged against tokio with `tokiwa` renamed to `tokio`.

use std::collections::HashMap;
use std::future::{pending, poll_fn, Future};
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant};

use futures::channel::oneshot;
use tokiwa::runtime::{self, Runtime};
use tokiwa::task::{JoinSet, LocalSet};

/// Yields to the scheduler once.
async fn yield_now() {
    let mut yielded = false;
    poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await
}

/// Yields until `done()` holds, failing the test after ten seconds.
async fn yield_until(mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(10), "timed out");
        yield_now().await;
    }
}

/// Counts drops of the values it guards.
struct DropCounter(Arc<AtomicUsize>);

impl Drop for DropCounter {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A waker that records that it was woken.
struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn multi_thread() -> Runtime {
    runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

fn current_thread() -> Runtime {
    runtime::Builder::new_current_thread().build().unwrap()
}

/// Spawns tasks that yield a varying number of times and checks that every
/// output comes back exactly once and the length shrinks by one each time.
async fn join_all_outputs(n: usize) {
    let mut set = JoinSet::new();
    for i in 0..n {
        set.spawn(async move {
            for _ in 0..(i % 7) {
                yield_now().await;
            }
            i
        });
    }
    assert_eq!(set.len(), n);
    let mut seen = vec![false; n];
    while let Some(res) = set.join_next().await {
        let i = res.unwrap();
        assert!(!seen[i], "output {i} returned twice");
        seen[i] = true;
        assert_eq!(set.len(), n - seen.iter().filter(|s| **s).count());
    }
    assert!(seen.iter().all(|s| *s));
    assert!(set.is_empty());
    assert!(set.join_next().await.is_none());
}

#[tokiwa::test]
async fn join_next_returns_every_output() {
    join_all_outputs(64).await;
}

#[test]
fn join_next_returns_every_output_multi_thread() {
    multi_thread().block_on(join_all_outputs(256));
}

#[tokiwa::test]
async fn empty_set() {
    let mut set: JoinSet<()> = JoinSet::default();
    assert!(set.is_empty());
    assert_eq!(set.len(), 0);
    assert_eq!(format!("{set:?}"), "JoinSet { len: 0 }");
    assert!(set.join_next().await.is_none());
    assert!(set.join_next_with_id().await.is_none());
    assert!(set.try_join_next().is_none());
    assert!(set.try_join_next_with_id().is_none());
    set.shutdown().await;
    assert!(set.join_all().await.is_empty());
}

#[tokiwa::test]
async fn completion_order() {
    // Task `i` finishes only after task `i - 1` has, so outputs come back in
    // completion order, not spawn order (spawned in reverse here).
    let mut set = JoinSet::new();
    let mut senders = Vec::new();
    let mut receivers = Vec::new();
    for _ in 0..5 {
        let (tx, rx) = oneshot::channel::<()>();
        senders.push(tx);
        receivers.push(rx);
    }
    for (i, rx) in receivers.into_iter().enumerate().rev() {
        set.spawn(async move {
            rx.await.unwrap();
            i
        });
    }
    yield_now().await;
    for (i, tx) in senders.into_iter().enumerate() {
        tx.send(()).unwrap();
        assert_eq!(set.join_next().await.unwrap().unwrap(), i);
    }
    assert!(set.join_next().await.is_none());
}

#[tokiwa::test]
async fn abort_all_yields_cancelled() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut set = JoinSet::new();
    for _ in 0..20 {
        let guard = DropCounter(drops.clone());
        set.spawn(async move {
            let _guard = guard;
            pending::<()>().await;
        });
    }
    yield_now().await;
    set.abort_all();
    assert_eq!(set.len(), 20, "abort_all keeps the tasks in the set");
    let mut cancelled = 0;
    while let Some(res) = set.join_next().await {
        let err = res.unwrap_err();
        assert!(err.is_cancelled());
        cancelled += 1;
    }
    assert_eq!(cancelled, 20);
    assert_eq!(drops.load(Ordering::SeqCst), 20);
}

#[tokiwa::test]
async fn abort_handle_from_spawn() {
    let mut set = JoinSet::new();
    let handle = set.spawn(pending::<()>());
    set.spawn(async {});
    handle.abort();
    let mut ok = 0;
    let mut cancelled = 0;
    while let Some(res) = set.join_next_with_id().await {
        match res {
            Ok(_) => ok += 1,
            Err(err) => {
                assert!(err.is_cancelled());
                assert_eq!(err.id(), handle.id());
                cancelled += 1;
            }
        }
    }
    assert_eq!((ok, cancelled), (1, 1));
    assert!(handle.is_finished());
}

#[tokiwa::test]
async fn drop_aborts_every_task() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut set = JoinSet::new();
    let mut handles = Vec::new();
    for _ in 0..50 {
        let guard = DropCounter(drops.clone());
        handles.push(set.spawn(async move {
            let _guard = guard;
            pending::<()>().await;
        }));
    }
    yield_now().await;
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(set);
    yield_until(|| drops.load(Ordering::SeqCst) == 50).await;
    yield_until(|| handles.iter().all(|h| h.is_finished())).await;
}

#[test]
fn drop_aborts_every_task_multi_thread() {
    let rt = multi_thread();
    let drops = Arc::new(AtomicUsize::new(0));
    let started = Arc::new(AtomicUsize::new(0));
    let set = rt.block_on(async {
        let mut set = JoinSet::new();
        for _ in 0..50 {
            let guard = DropCounter(drops.clone());
            let started = started.clone();
            set.spawn(async move {
                let _guard = guard;
                started.fetch_add(1, Ordering::SeqCst);
                pending::<()>().await;
            });
        }
        yield_until(|| started.load(Ordering::SeqCst) == 50).await;
        set
    });
    // Dropped outside the runtime, on a thread that is not a worker.
    drop(set);
    let start = Instant::now();
    while drops.load(Ordering::SeqCst) != 50 {
        assert!(start.elapsed() < Duration::from_secs(10), "timed out");
        thread::sleep(Duration::from_millis(1));
    }
}

#[tokiwa::test]
async fn try_join_next() {
    let mut set = JoinSet::new();
    assert!(set.try_join_next().is_none());

    let (tx, rx) = oneshot::channel::<u32>();
    set.spawn(async move { rx.await.unwrap() });
    yield_now().await;
    assert!(set.try_join_next().is_none(), "task is still running");
    assert_eq!(set.len(), 1);

    tx.send(7).unwrap();
    let mut value = None;
    yield_until(|| {
        value = set.try_join_next();
        value.is_some()
    })
    .await;
    assert_eq!(value.unwrap().unwrap(), 7);
    assert!(set.is_empty());
    assert!(set.try_join_next().is_none());
}

#[tokiwa::test]
async fn try_join_next_many_finished() {
    // More finished tasks than one cooperative budget: `try_join_next` must
    // still return all of them without yielding in between.
    let done = Arc::new(AtomicUsize::new(0));
    let mut set = JoinSet::new();
    for i in 0..500 {
        let done = done.clone();
        set.spawn(async move {
            done.fetch_add(1, Ordering::SeqCst);
            i
        });
    }
    yield_until(|| done.load(Ordering::SeqCst) == 500).await;
    // Let the last task finish its poll (current-thread runtime: it has).
    let mut sum = 0;
    for _ in 0..500 {
        sum += set.try_join_next().expect("task finished").unwrap();
    }
    assert_eq!(sum, (0..500).sum::<i32>());
    assert!(set.try_join_next().is_none());
}

#[tokiwa::test]
async fn try_join_next_with_id() {
    let mut set = JoinSet::new();
    let handle = set.spawn(async { 5 });
    let mut res = None;
    yield_until(|| {
        res = set.try_join_next_with_id();
        res.is_some()
    })
    .await;
    let (id, value) = res.unwrap().unwrap();
    assert_eq!((id, value), (handle.id(), 5));
}

async fn ids_match(n: usize) {
    let mut set = JoinSet::new();
    let mut expected = HashMap::new();
    let mut aborted = HashMap::new();
    for i in 0..n {
        if i % 5 == 4 {
            let handle = set.spawn(async move {
                pending::<()>().await;
                i
            });
            handle.abort();
            aborted.insert(handle.id(), i);
        } else {
            let handle = set.spawn(async move {
                yield_now().await;
                i
            });
            expected.insert(handle.id(), i);
        }
    }
    assert_eq!(expected.len() + aborted.len(), n, "ids are unique");
    while let Some(res) = set.join_next_with_id().await {
        match res {
            Ok((id, value)) => assert_eq!(expected.remove(&id), Some(value)),
            Err(err) => {
                assert!(err.is_cancelled());
                assert!(aborted.remove(&err.id()).is_some());
            }
        }
    }
    assert!(expected.is_empty());
    assert!(aborted.is_empty());
}

#[tokiwa::test]
async fn join_next_with_id_matches_spawned_ids() {
    ids_match(100).await;
}

#[test]
fn join_next_with_id_matches_spawned_ids_multi_thread() {
    multi_thread().block_on(ids_match(500));
}

#[tokiwa::test]
async fn detach_all_leaves_tasks_running() {
    let finished = Arc::new(AtomicUsize::new(0));
    let mut set = JoinSet::new();
    let mut senders = Vec::new();
    for _ in 0..10 {
        let (tx, rx) = oneshot::channel::<()>();
        senders.push(tx);
        let finished = finished.clone();
        set.spawn(async move {
            rx.await.unwrap();
            finished.fetch_add(1, Ordering::SeqCst);
        });
    }
    yield_now().await;
    set.detach_all();
    assert!(set.is_empty());
    assert!(set.join_next().await.is_none());
    drop(set);
    for tx in senders {
        tx.send(()).unwrap();
    }
    yield_until(|| finished.load(Ordering::SeqCst) == 10).await;
}

#[tokiwa::test]
async fn set_reusable_after_detach_all() {
    let mut set = JoinSet::new();
    for i in 0..10 {
        set.spawn(async move { i });
    }
    set.detach_all();
    for i in 10..20 {
        set.spawn(async move { i });
    }
    let mut out = Vec::new();
    while let Some(res) = set.join_next().await {
        out.push(res.unwrap());
    }
    out.sort();
    assert_eq!(out, (10..20).collect::<Vec<_>>());
}

#[tokiwa::test]
async fn shutdown_aborts_and_waits() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut set = JoinSet::new();
    for _ in 0..30 {
        let guard = DropCounter(drops.clone());
        set.spawn(async move {
            let _guard = guard;
            pending::<()>().await;
        });
    }
    set.spawn(async { panic!("ignored by shutdown") });
    yield_now().await;
    set.shutdown().await;
    assert!(set.is_empty());
    assert_eq!(drops.load(Ordering::SeqCst), 30);
}

#[test]
fn shutdown_multi_thread() {
    multi_thread().block_on(async {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut set = JoinSet::new();
        for _ in 0..200 {
            let guard = DropCounter(drops.clone());
            set.spawn(async move {
                let _guard = guard;
                loop {
                    yield_now().await;
                }
            });
        }
        set.shutdown().await;
        assert!(set.is_empty());
        assert_eq!(drops.load(Ordering::SeqCst), 200);
    });
}

#[tokiwa::test]
async fn join_all_returns_every_output() {
    let mut set = JoinSet::new();
    for i in 0..100u64 {
        set.spawn(async move {
            yield_now().await;
            i
        });
    }
    let mut out = set.join_all().await;
    out.sort();
    assert_eq!(out, (0..100).collect::<Vec<_>>());
}

#[tokiwa::test]
async fn join_all_resumes_panic() {
    let outer = tokiwa::spawn(async {
        let mut set = JoinSet::new();
        set.spawn(async { panic!("boom in task") });
        set.spawn(pending::<()>());
        set.join_all().await
    });
    let err = outer.await.unwrap_err();
    assert!(err.is_panic());
    let payload = err.into_panic();
    assert_eq!(*payload.downcast_ref::<&str>().unwrap(), "boom in task");
}

#[tokiwa::test]
async fn join_all_panics_on_cancelled() {
    let outer = tokiwa::spawn(async {
        let mut set = JoinSet::new();
        set.spawn(pending::<()>()).abort();
        set.join_all().await
    });
    let err = outer.await.unwrap_err();
    assert!(err.is_panic());
    let payload = err.into_panic();
    let message = payload.downcast_ref::<String>().unwrap();
    assert!(message.contains("cancelled"), "{message}");
}

#[tokiwa::test]
async fn join_next_reports_panic() {
    let mut set = JoinSet::new();
    set.spawn(async { panic!("task panicked") });
    let err = set.join_next().await.unwrap().unwrap_err();
    assert!(err.is_panic());
}

async fn many_tasks(n: usize) {
    let mut set = JoinSet::new();
    for i in 0..n {
        set.spawn(async move {
            if i % 3 == 0 {
                yield_now().await;
            }
            i
        });
    }
    let mut sum = 0;
    let mut count = 0;
    while let Some(res) = set.join_next().await {
        sum += res.unwrap();
        count += 1;
    }
    assert_eq!(count, n);
    assert_eq!(sum, n * (n - 1) / 2);
}

#[tokiwa::test]
async fn ten_thousand_tasks() {
    many_tasks(10_000).await;
}

#[test]
fn ten_thousand_tasks_multi_thread() {
    multi_thread().block_on(many_tasks(10_000));
}

#[test]
fn ten_thousand_tasks_from_outside_multi_thread() {
    // The set is driven by `block_on` on a non-worker thread while workers
    // complete the tasks concurrently.
    let rt = multi_thread();
    let mut set = JoinSet::new();
    for i in 0..10_000usize {
        set.spawn_on(async move { i }, rt.handle());
    }
    let sum = rt.block_on(async {
        let mut sum = 0;
        while let Some(res) = set.join_next().await {
            sum += res.unwrap();
        }
        sum
    });
    assert_eq!(sum, 10_000 * 9_999 / 2);
}

#[tokiwa::test]
async fn from_iterator_and_extend() {
    let mut set: JoinSet<usize> = (0..10).map(|i| async move { i }).collect();
    assert_eq!(set.len(), 10);
    set.extend((10..20).map(|i| async move { i }));
    assert_eq!(set.len(), 20);
    let mut out = set.join_all().await;
    out.sort();
    assert_eq!(out, (0..20).collect::<Vec<_>>());
}

#[test]
fn spawn_on_and_blocking() {
    let rt = multi_thread();
    rt.block_on(async {
        let mut set = JoinSet::new();
        set.spawn_on(async { 1 }, rt.handle());
        set.spawn_blocking(|| {
            thread::sleep(Duration::from_millis(10));
            2
        });
        set.spawn_blocking_on(|| 3, rt.handle());
        set.spawn(async { 4 });
        let mut out = Vec::new();
        while let Some(res) = set.join_next().await {
            out.push(res.unwrap());
        }
        out.sort();
        assert_eq!(out, vec![1, 2, 3, 4]);
    });
}

#[tokiwa::test]
async fn spawn_local_and_spawn_local_on() {
    let local = LocalSet::new();
    let mut set = JoinSet::new();
    // Spawned on a `LocalSet` that is not running yet.
    let shared = Rc::new(5);
    let value = shared.clone();
    set.spawn_local_on(async move { *value }, &local);
    let out = local
        .run_until(async move {
            let value = shared.clone();
            set.spawn_local(async move { *value + 1 });
            let mut out = Vec::new();
            while let Some(res) = set.join_next().await {
                out.push(res.unwrap());
            }
            out
        })
        .await;
    let mut out = out;
    out.sort();
    assert_eq!(out, vec![5, 6]);
}

#[tokiwa::test]
async fn poll_join_next_wakes_for_task_spawned_later() {
    let mut set = JoinSet::new();
    let (tx, rx) = oneshot::channel::<u32>();
    set.spawn(async move { rx.await.unwrap() });

    let flag = Arc::new(Flag(AtomicBool::new(false)));
    let waker = Waker::from(flag.clone());
    let mut cx = Context::from_waker(&waker);
    // Poll until the fresh entry has been looked at.
    loop {
        match set.poll_join_next(&mut cx) {
            Poll::Pending if !flag.0.swap(false, Ordering::SeqCst) => break,
            Poll::Pending => yield_now().await,
            Poll::Ready(res) => panic!("unexpected {res:?}"),
        }
    }

    // A task spawned after the `Pending` must still wake that waker when it
    // completes.
    set.spawn(async { 9 });
    yield_until(|| flag.0.load(Ordering::SeqCst)).await;
    let mut cx = Context::from_waker(&waker);
    let mut got = None;
    yield_until(|| match set.poll_join_next(&mut cx) {
        Poll::Ready(res) => {
            got = res;
            true
        }
        Poll::Pending => false,
    })
    .await;
    assert_eq!(got.unwrap().unwrap(), 9);

    flag.0.store(false, Ordering::SeqCst);
    loop {
        match set.poll_join_next(&mut cx) {
            Poll::Pending if !flag.0.swap(false, Ordering::SeqCst) => break,
            Poll::Pending => yield_now().await,
            Poll::Ready(res) => panic!("unexpected {res:?}"),
        }
    }
    tx.send(1).unwrap();
    yield_until(|| flag.0.load(Ordering::SeqCst)).await;
    assert_eq!(set.join_next().await.unwrap().unwrap(), 1);
}

#[tokiwa::test]
async fn join_next_is_cancel_safe() {
    let mut set = JoinSet::new();
    let (tx, rx) = oneshot::channel::<u32>();
    set.spawn(async move { rx.await.unwrap() });
    for _ in 0..10 {
        let mut next = pin!(set.join_next());
        let polled = poll_fn(|cx| Poll::Ready(next.as_mut().poll(cx))).await;
        assert!(polled.is_pending());
    }
    assert_eq!(set.len(), 1);
    tx.send(3).unwrap();
    assert_eq!(set.join_next().await.unwrap().unwrap(), 3);
}

#[test]
fn churn_multi_thread() {
    // Sets that are joined partway and then dropped while their tasks are
    // completing on other workers.
    let rt = multi_thread();
    rt.block_on(async {
        for round in 0..200 {
            let mut set = JoinSet::new();
            for i in 0..32 {
                set.spawn(async move {
                    for _ in 0..(i % 4) {
                        yield_now().await;
                    }
                    i
                });
            }
            for _ in 0..(round % 8) {
                set.join_next().await.unwrap().unwrap();
            }
            if round % 3 == 0 {
                set.detach_all();
            }
        }
    });
}

#[test]
fn join_all_outside_task_panics_are_caught() {
    // `join_all` resumes a task's panic on the caller's thread.
    let rt = current_thread();
    let res = panic::catch_unwind(AssertUnwindSafe(|| {
        rt.block_on(async {
            let mut set = JoinSet::new();
            set.spawn(async { panic!("resumed") });
            set.join_all().await
        })
    }));
    let payload = res.unwrap_err();
    assert_eq!(*payload.downcast_ref::<&str>().unwrap(), "resumed");
}
