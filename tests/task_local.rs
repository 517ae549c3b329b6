#![cfg(feature = "full")]
//! `task_local!`: scopes, nesting, `sync_scope`, values across `.await` on
//! both runtime flavours, early drop, `take_value`, and the panics.
//!
//! Only runtime-independent helpers are used, so the file runs unchanged
//! against tokio with `tokiwa` renamed to `tokio`.

use std::cell::Cell;
use std::future::{pending, poll_fn, Future};
use std::panic::{self, AssertUnwindSafe};
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures::channel::oneshot;
use tokiwa::runtime;
use tokiwa::task::futures::TaskLocalFuture;
use tokiwa::task::{JoinSet, LocalKey};

tokiwa::task_local! {
    static NUMBER: u32;

    /// Attributes and visibility are kept.
    #[allow(dead_code)]
    pub static NAME: String;

    pub(crate) static COUNTER: Arc<AtomicUsize>
}

tokiwa::task_local! {
    static SINGLE: u8;
}

tokiwa::task_local! {}

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

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        panic!("unexpected panic payload")
    }
}

/// Polls `fut` once with a no-op waker.
fn poll_once<F: Future>(fut: Pin<&mut F>) -> Poll<F::Output> {
    fut.poll(&mut Context::from_waker(futures::task::noop_waker_ref()))
}

#[tokiwa::test]
async fn scope_sets_value() {
    assert!(NUMBER.try_get().is_err());
    NUMBER
        .scope(1, async {
            assert_eq!(NUMBER.get(), 1);
            assert_eq!(NUMBER.with(|n| *n + 1), 2);
            assert_eq!(NUMBER.try_with(|n| *n), Ok(1));
            assert_eq!(NUMBER.try_get(), Ok(1));
            yield_now().await;
            assert_eq!(NUMBER.get(), 1);
        })
        .await;
    assert!(NUMBER.try_get().is_err());
    assert!(NUMBER.try_with(|_| ()).is_err());
}

#[tokiwa::test]
async fn scope_returns_output() {
    let out = NUMBER.scope(4, async { NUMBER.get() * 10 }).await;
    assert_eq!(out, 40);
}

#[tokiwa::test]
async fn nested_scopes() {
    NUMBER
        .scope(1, async {
            assert_eq!(NUMBER.get(), 1);
            NUMBER
                .scope(2, async {
                    assert_eq!(NUMBER.get(), 2);
                    yield_now().await;
                    NUMBER
                        .scope(3, async {
                            yield_now().await;
                            assert_eq!(NUMBER.get(), 3);
                        })
                        .await;
                    assert_eq!(NUMBER.get(), 2);
                })
                .await;
            yield_now().await;
            assert_eq!(NUMBER.get(), 1);
            // A different key is independent.
            assert!(SINGLE.try_get().is_err());
            SINGLE
                .scope(9, async {
                    assert_eq!((NUMBER.get(), SINGLE.get()), (1, 9));
                })
                .await;
        })
        .await;
}

#[test]
fn sync_scope() {
    let out = NUMBER.sync_scope(5, || {
        assert_eq!(NUMBER.get(), 5);
        NUMBER.sync_scope(6, || assert_eq!(NUMBER.get(), 6));
        assert_eq!(NUMBER.get(), 5);
        NUMBER.get() + 1
    });
    assert_eq!(out, 6);
    assert!(NUMBER.try_get().is_err());
}

#[test]
fn sync_scope_restores_after_panic() {
    NUMBER.sync_scope(1, || {
        let res = panic::catch_unwind(|| NUMBER.sync_scope(2, || panic!("inner")));
        assert!(res.is_err());
        assert_eq!(NUMBER.get(), 1);
    });
    assert!(NUMBER.try_get().is_err());
}

#[test]
fn scope_restores_after_panicking_poll() {
    let mut fut = pin!(NUMBER.scope(7, async { panic!("in scope") }));
    let res = panic::catch_unwind(AssertUnwindSafe(|| poll_once(fut.as_mut())));
    assert_eq!(panic_message(res.unwrap_err()), "in scope");
    assert!(
        NUMBER.try_get().is_err(),
        "value must not stay on the thread"
    );
}

#[test]
fn with_panics_when_unset() {
    let res = panic::catch_unwind(|| NUMBER.with(|n| *n));
    assert_eq!(
        panic_message(res.unwrap_err()),
        "cannot access a task-local storage value without setting it first"
    );
    let res = panic::catch_unwind(|| NUMBER.get());
    assert_eq!(
        panic_message(res.unwrap_err()),
        "cannot access a task-local storage value without setting it first"
    );
}

#[test]
fn scope_inside_with_panics() {
    NUMBER.sync_scope(1, || {
        let res = panic::catch_unwind(|| {
            NUMBER.with(|_| NUMBER.sync_scope(2, || ()));
        });
        assert_eq!(
            panic_message(res.unwrap_err()),
            "cannot enter a task-local scope while the task-local storage is borrowed"
        );
        let res = panic::catch_unwind(|| {
            NUMBER.with(|_| {
                let mut fut = pin!(NUMBER.scope(2, async {}));
                let _ = poll_once(fut.as_mut());
            });
        });
        assert_eq!(
            panic_message(res.unwrap_err()),
            "cannot enter a task-local scope while the task-local storage is borrowed"
        );
        assert_eq!(NUMBER.get(), 1);
    });
}

#[test]
fn polled_after_completion_panics() {
    let mut fut = pin!(NUMBER.scope(1, async { NUMBER.get() }));
    assert_eq!(poll_once(fut.as_mut()), Poll::Ready(1));
    let res = panic::catch_unwind(AssertUnwindSafe(|| poll_once(fut.as_mut())));
    assert_eq!(
        panic_message(res.unwrap_err()),
        "`TaskLocalFuture` polled after completion"
    );
}

#[test]
fn value_not_visible_between_polls() {
    let mut fut = pin!(NUMBER.scope(3, async {
        assert_eq!(NUMBER.get(), 3);
        yield_now().await;
        assert_eq!(NUMBER.get(), 3);
    }));
    assert!(poll_once(fut.as_mut()).is_pending());
    assert!(NUMBER.try_get().is_err());
    assert!(poll_once(fut.as_mut()).is_ready());
}

/// Records the task-local value seen by its destructor.
struct ReadOnDrop(Arc<Mutex<Vec<Option<u32>>>>);

impl Drop for ReadOnDrop {
    fn drop(&mut self) {
        self.0.lock().unwrap().push(NUMBER.try_get().ok());
    }
}

#[test]
fn dropped_future_sees_value() {
    let seen = Arc::new(Mutex::new(Vec::new()));

    // Dropped after one poll.
    let guard = ReadOnDrop(seen.clone());
    let mut fut = Box::pin(NUMBER.scope(11, async move {
        let _guard = guard;
        pending::<()>().await;
    }));
    assert!(poll_once(fut.as_mut()).is_pending());
    drop(fut);

    // Dropped without ever being polled.
    let guard = ReadOnDrop(seen.clone());
    let fut = NUMBER.scope(12, async move {
        let _guard = guard;
    });
    drop(fut);

    // Dropped inside an outer scope: the inner value wins, then the outer
    // one is back.
    NUMBER.sync_scope(1, || {
        let guard = ReadOnDrop(seen.clone());
        let fut = NUMBER.scope(13, async move {
            let _guard = guard;
        });
        drop(fut);
        assert_eq!(NUMBER.get(), 1);
    });

    // Completed normally: the inner future is dropped inside the scope too.
    let guard = ReadOnDrop(seen.clone());
    let mut fut = pin!(NUMBER.scope(14, async move {
        let _guard = guard;
    }));
    assert!(poll_once(fut.as_mut()).is_ready());

    assert_eq!(
        *seen.lock().unwrap(),
        vec![Some(11), Some(12), Some(13), Some(14)]
    );
    assert!(NUMBER.try_get().is_err());
}

#[tokiwa::test]
async fn aborted_task_drops_future_inside_scope() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let guard = ReadOnDrop(seen.clone());
    let (started_tx, started_rx) = oneshot::channel::<()>();
    let handle = tokiwa::spawn(NUMBER.scope(21, async move {
        let _guard = guard;
        started_tx.send(()).unwrap();
        pending::<()>().await;
    }));
    started_rx.await.unwrap();
    handle.abort();
    assert!(handle.await.unwrap_err().is_cancelled());
    assert_eq!(*seen.lock().unwrap(), vec![Some(21)]);
}

#[tokiwa::test]
async fn take_value() {
    let mut fut = Box::pin(NUMBER.scope(42, async {}));
    fut.as_mut().await;
    assert_eq!(fut.as_mut().take_value(), Some(42));
    assert_eq!(fut.as_mut().take_value(), None);

    // Taken before completion: the future no longer sees it.
    let mut fut = Box::pin(NUMBER.scope(43, async { NUMBER.try_get().ok() }));
    assert_eq!(fut.as_mut().take_value(), Some(43));
    assert_eq!(fut.as_mut().await, None);
}

#[tokiwa::test]
async fn value_dropped_with_future() {
    struct CountDrop(Arc<AtomicUsize>);
    impl Drop for CountDrop {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    tokiwa::task_local! {
        static VALUE: CountDrop;
    }
    let drops = Arc::new(AtomicUsize::new(0));
    VALUE
        .scope(CountDrop(drops.clone()), async {
            yield_now().await;
            VALUE.with(|v| assert_eq!(v.0.load(Ordering::SeqCst), 0));
        })
        .await;
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[tokiwa::test]
async fn tasks_do_not_see_each_others_values() {
    let (tx, rx) = oneshot::channel::<()>();
    let inside = tokiwa::spawn(NUMBER.scope(8, async move {
        rx.await.unwrap();
        NUMBER.get()
    }));
    yield_now().await;
    let outside = tokiwa::spawn(async { NUMBER.try_get().ok() });
    assert_eq!(outside.await.unwrap(), None);
    assert!(NUMBER.try_get().is_err());
    tx.send(()).unwrap();
    assert_eq!(inside.await.unwrap(), 8);
}

async fn many_scoped_tasks() {
    let mut set = JoinSet::new();
    for i in 0..200u32 {
        set.spawn(NUMBER.scope(i, async move {
            for _ in 0..20 {
                yield_now().await;
                assert_eq!(NUMBER.get(), i);
                NUMBER
                    .scope(i + 1000, async move {
                        yield_now().await;
                        assert_eq!(NUMBER.get(), i + 1000);
                    })
                    .await;
                assert_eq!(NUMBER.get(), i);
            }
            // The thread that finishes the task may differ from the one
            // that started it; the value follows the task.
            (i, NUMBER.get())
        }));
    }
    let mut count = 0;
    while let Some(res) = set.join_next().await {
        let (i, seen) = res.unwrap();
        assert_eq!(i, seen);
        count += 1;
    }
    assert_eq!(count, 200);
}

#[tokiwa::test]
async fn scope_across_await_current_thread() {
    many_scoped_tasks().await;
}

#[test]
fn scope_across_await_multi_thread() {
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    rt.block_on(many_scoped_tasks());
    let seen_threads = Arc::new(Mutex::new(std::collections::HashSet::new()));
    let seen = seen_threads.clone();
    rt.block_on(async move {
        tokiwa::spawn(COUNTER.scope(Arc::new(AtomicUsize::new(0)), async move {
            for _ in 0..1000 {
                seen.lock().unwrap().insert(std::thread::current().id());
                COUNTER.with(|c| c.fetch_add(1, Ordering::SeqCst));
                yield_now().await;
            }
            assert_eq!(COUNTER.with(|c| c.load(Ordering::SeqCst)), 1000);
        }))
        .await
        .unwrap();
    });
}

#[test]
fn thread_local_per_thread() {
    // Each OS thread has its own slot: a scope on one thread is invisible on
    // another.
    NUMBER.sync_scope(1, || {
        std::thread::spawn(|| assert!(NUMBER.try_get().is_err()))
            .join()
            .unwrap();
    });
}

#[test]
fn debug_and_display() {
    assert_eq!(format!("{:?}", NUMBER), "LocalKey { .. }");
    let fut = NUMBER.scope(5, async {});
    assert_eq!(format!("{fut:?}"), "TaskLocalFuture { value: 5 }");
    let err = NUMBER.try_get().unwrap_err();
    assert_eq!(err.to_string(), "task-local value not set");
    assert_eq!(format!("{err:?}"), "AccessError");
    assert_eq!(err, err.clone());
    let _: &dyn std::error::Error = &err;
}

#[test]
fn types_are_nameable() {
    fn key() -> &'static LocalKey<u32> {
        &NUMBER
    }
    let fut: TaskLocalFuture<u32, std::future::Ready<u32>> = key().scope(2, std::future::ready(3));
    let mut fut = pin!(fut);
    assert_eq!(poll_once(fut.as_mut()), Poll::Ready(3));
}

#[test]
fn value_type_need_not_be_send() {
    tokiwa::task_local! {
        static LOCAL: std::rc::Rc<Cell<u32>>;
    }
    let value = std::rc::Rc::new(Cell::new(0));
    LOCAL.sync_scope(value.clone(), || LOCAL.with(|v| v.set(9)));
    assert_eq!(value.get(), 9);
}
