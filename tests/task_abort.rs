#![cfg(feature = "full")]
//! `JoinHandle`, `AbortHandle` and `JoinError` beyond the exhaustive
//! combinations of `task_combinations.rs`: aborting busy, pending, detached
//! and self-aborting tasks, races between abort and completion from another
//! thread, `is_finished`, a join waker that panics, and `JoinError`'s
//! accessors and texts.

#[macro_use]
mod support;

use std::future::{pending, Future};
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{mpsc as std_mpsc, Arc, Barrier as StdBarrier};
use std::task::{Context, Wake, Waker};
use std::thread;
use std::time::Duration;

use support::{panic_message, quiet_panics, wait_until, Counter, Tracked};
use tokiwa::runtime::Runtime;
use tokiwa::sync::{oneshot, Notify};
use tokiwa::task::{self, AbortHandle, JoinError, JoinHandle};

/// Waits inside the runtime (so that a current-thread runtime runs its
/// tasks meanwhile) until `cond` holds; `notify` is signalled on changes.
fn wait_in(rt: &Runtime, notify: &Notify, cond: impl Fn() -> bool) {
    rt.block_on(async {
        while !cond() {
            notify.notified().await;
        }
    })
}

/// Adds one to a counter and signals a `Notify` when dropped.
struct SignalOnDrop(Counter, Arc<Notify>);

impl Drop for SignalOnDrop {
    fn drop(&mut self) {
        self.0.inc();
        self.1.notify_one();
    }
}

/// A thread that aborts the handles it is sent, each right after meeting
/// the test at a barrier.
struct Aborter {
    tx: Option<std_mpsc::Sender<(AbortHandle, Arc<StdBarrier>)>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Aborter {
    fn new() -> Aborter {
        let (tx, rx) = std_mpsc::channel::<(AbortHandle, Arc<StdBarrier>)>();
        let thread = thread::spawn(move || {
            for (handle, barrier) in rx {
                barrier.wait();
                handle.abort();
            }
        });
        Aborter {
            tx: Some(tx),
            thread: Some(thread),
        }
    }

    /// Has `handle` aborted as soon as the caller reaches the returned
    /// barrier too.
    fn abort_at_barrier(&self, handle: AbortHandle) -> Arc<StdBarrier> {
        let barrier = Arc::new(StdBarrier::new(2));
        self.tx
            .as_ref()
            .unwrap()
            .send((handle, barrier.clone()))
            .unwrap();
        barrier
    }
}

impl Drop for Aborter {
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A waker that counts, signals, then panics.
struct PanickingWaker {
    woken: Counter,
    notify: Arc<Notify>,
}

impl Wake for PanickingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.inc();
        self.notify.notify_one();
        panic!("join waker boom");
    }
}

rt_test! {
    fn abort_pending_task() {
        let rt = rt();
        let polls = Counter::new();
        let drops = Counter::new();
        let (polled_tx, polled_rx) = oneshot::channel::<()>();
        let jh = rt.spawn(Tracked::new(
            async move {
                polled_tx.send(()).unwrap();
                pending::<()>().await
            },
            &polls,
            &drops,
        ));
        let id = jh.id();
        rt.block_on(async { polled_rx.await.unwrap() });
        assert_eq!(polls.get(), 1);
        assert_eq!(drops.get(), 0);
        assert!(!jh.is_finished());
        jh.abort();
        let err = rt.block_on(jh).unwrap_err();
        assert!(err.is_cancelled());
        assert!(!err.is_panic());
        assert_eq!(err.id(), id);
        assert_eq!(err.to_string(), format!("task {id} was cancelled"));
        assert_eq!(polls.get(), 1, "an aborted idle task is not polled again");
        assert_eq!(drops.get(), 1);
    }

    fn abort_busy_task() {
        // The task is never idle: it yields in a loop. It is cancelled at
        // one of its yields.
        let rt = rt();
        let (started_tx, started_rx) = oneshot::channel::<()>();
        let drops = Counter::new();
        let guard = drops.guard();
        let jh = rt.spawn(async move {
            let _guard = guard;
            started_tx.send(()).unwrap();
            loop {
                task::yield_now().await;
            }
        });
        let ah = jh.abort_handle();
        if FLAVOR.is_multi_thread() {
            rt.block_on(async { started_rx.await.unwrap() });
        }
        ah.abort();
        let err = rt.block_on(jh).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
        assert_eq!(drops.get(), 1);
        assert!(ah.is_finished());
    }

    fn abort_itself_then_yield() {
        // A task that aborts itself runs on until its next yield, and not
        // past it.
        let rt = rt();
        let after_yield = Arc::new(AtomicBool::new(false));
        let (me_tx, me_rx) = oneshot::channel::<AbortHandle>();
        let a = after_yield.clone();
        let jh = rt.spawn(async move {
            let me = me_rx.await.unwrap();
            me.abort();
            assert!(!me.is_finished());
            task::yield_now().await;
            a.store(true, SeqCst);
        });
        me_tx.send(jh.abort_handle()).unwrap();
        let err = rt.block_on(jh).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
        assert!(!after_yield.load(SeqCst), "the task ran past its yield after aborting itself");
    }

    fn abort_detached_task_with_abort_handle() {
        let rt = rt();
        let notify = Arc::new(Notify::new());
        let drops = Counter::new();
        let guard = SignalOnDrop(drops.clone(), notify.clone());
        let jh = rt.spawn(async move {
            let _guard = guard;
            pending::<()>().await
        });
        let ah = jh.abort_handle();
        let ah2 = ah.clone();
        assert_eq!(ah.id(), jh.id());
        assert_eq!(ah2.id(), jh.id());
        drop(jh);
        assert!(!ah.is_finished());
        ah2.abort();
        drop(ah2);
        wait_in(&rt, &notify, || drops.get() == 1);
        wait_until(Duration::from_secs(10), "the aborted task finishes", || ah.is_finished());
        // Aborting again, or after the end, is harmless.
        ah.abort();
        ah.abort();
    }

    fn dropping_join_handle_does_not_cancel() {
        let rt = rt();
        let (go_tx, go_rx) = oneshot::channel::<()>();
        let (done_tx, done_rx) = oneshot::channel::<u32>();
        drop(rt.spawn(async move {
            go_rx.await.unwrap();
            done_tx.send(8).unwrap();
        }));
        go_tx.send(()).unwrap();
        assert_eq!(rt.block_on(async { done_rx.await.unwrap() }), 8);
    }

    fn abort_task_awaiting_another() {
        // Cancelling a task that awaits another's `JoinHandle` drops that
        // handle, which detaches (does not cancel) the other task.
        let rt = rt();
        let (inner_go_tx, inner_go_rx) = oneshot::channel::<()>();
        let (inner_done_tx, inner_done_rx) = oneshot::channel::<()>();
        let (outer_ready_tx, outer_ready_rx) = oneshot::channel::<()>();
        let outer = rt.spawn(async move {
            let inner = tokiwa::spawn(async move {
                inner_go_rx.await.unwrap();
                inner_done_tx.send(()).unwrap();
            });
            outer_ready_tx.send(()).unwrap();
            inner.await.unwrap();
        });
        rt.block_on(async { outer_ready_rx.await.unwrap() });
        outer.abort();
        assert!(rt.block_on(outer).unwrap_err().is_cancelled());
        inner_go_tx.send(()).unwrap();
        rt.block_on(async { inner_done_rx.await.unwrap() });
    }

    fn abort_races_completion_from_another_thread() {
        // Each round, a std thread aborts the task at the moment the test
        // releases it: whoever wins, the handle yields the output or a
        // cancellation, never anything else.
        let rt = rt();
        let aborter = Aborter::new();
        let (mut ok, mut cancelled) = (0, 0);
        for i in 0..1000u32 {
            let (tx, rx) = oneshot::channel::<()>();
            let jh = rt.spawn(async move {
                let _ = rx.await;
                i
            });
            let barrier = aborter.abort_at_barrier(jh.abort_handle());
            barrier.wait();
            let _ = tx.send(());
            match rt.block_on(jh) {
                Ok(out) => {
                    assert_eq!(out, i);
                    ok += 1;
                }
                Err(err) => {
                    assert!(err.is_cancelled(), "round {i}: {err:?}");
                    cancelled += 1;
                }
            }
        }
        assert_eq!(ok + cancelled, 1000);
    }

    fn abort_races_join_handle_drop_and_completion() {
        // The handle is dropped while the task completes and another thread
        // aborts it: the future is dropped exactly once every round.
        let rt = rt();
        let aborter = Aborter::new();
        let notify = Arc::new(Notify::new());
        for i in 0..1000u32 {
            let drops = Counter::new();
            let guard = SignalOnDrop(drops.clone(), notify.clone());
            let (tx, rx) = oneshot::channel::<()>();
            let jh = rt.spawn(async move {
                let _guard = guard;
                let _ = rx.await;
                i
            });
            let barrier = aborter.abort_at_barrier(jh.abort_handle());
            barrier.wait();
            let _ = tx.send(());
            drop(jh);
            wait_in(&rt, &notify, || drops.get() >= 1);
            assert_eq!(drops.get(), 1, "round {i}");
        }
    }

    fn is_finished_follows_the_task() {
        let rt = rt();
        let (tx, rx) = oneshot::channel::<()>();
        let (done_tx, done_rx) = oneshot::channel::<()>();
        let jh = rt.spawn(async move {
            rx.await.unwrap();
            done_tx.send(()).unwrap();
            3
        });
        let ah = jh.abort_handle();
        assert!(!jh.is_finished());
        assert!(!ah.is_finished());
        tx.send(()).unwrap();
        rt.block_on(async { done_rx.await.unwrap() });
        wait_until(Duration::from_secs(10), "is_finished", || jh.is_finished());
        assert!(ah.is_finished());
        assert_eq!(rt.block_on(jh).unwrap(), 3);
        assert!(ah.is_finished());

        // A cancelled task is finished too, and so is a panicked one.
        let jh = rt.spawn(pending::<()>());
        jh.abort();
        let ah = jh.abort_handle();
        assert!(rt.block_on(jh).unwrap_err().is_cancelled());
        assert!(ah.is_finished());
        quiet_panics(&["boom"]);
        let jh = rt.spawn(async { panic!("boom") });
        let ah = jh.abort_handle();
        assert!(rt.block_on(jh).unwrap_err().is_panic());
        assert!(ah.is_finished());
    }

    fn panicking_join_waker_does_not_kill_the_worker() {
        quiet_panics(&["join waker boom"]);
        let rt = rt();
        let (tx, rx) = oneshot::channel::<u32>();
        let mut jh = rt.spawn(async move { rx.await.unwrap() });
        let woken = Counter::new();
        let notify = Arc::new(Notify::new());
        let waker = Waker::from(Arc::new(PanickingWaker {
            woken: woken.clone(),
            notify: notify.clone(),
        }));
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut jh).poll(&mut cx).is_pending());
        tx.send(5).unwrap();
        // The task completes and calls the panicking waker.
        wait_in(&rt, &notify, || woken.get() >= 1);
        // Every worker still runs tasks.
        for _ in 0..10 * FLAVOR.workers() {
            let check = rt.spawn(async { task::yield_now().await; 1 });
            assert_eq!(rt.block_on(check).unwrap(), 1);
        }
        if FLAVOR.is_multi_thread() {
            // All workers at once: each holds a task at a barrier.
            let n = FLAVOR.workers();
            let barrier = Arc::new(StdBarrier::new(n));
            let handles: Vec<_> = (0..n)
                .map(|_| {
                    let barrier = barrier.clone();
                    rt.spawn(async move {
                        barrier.wait();
                    })
                })
                .collect();
            rt.block_on(async {
                for jh in handles {
                    jh.await.unwrap();
                }
            });
        }
        // And the handle still yields the output.
        assert_eq!(rt.block_on(jh).unwrap(), 5);
    }

    fn panicking_tasks_do_not_kill_workers() {
        quiet_panics(&["boom"]);
        let rt = rt();
        let handles: Vec<_> = (0..100).map(|_| rt.spawn(async { panic!("boom") })).collect();
        let ids: Vec<_> = handles.iter().map(JoinHandle::id).collect();
        let errs: Vec<JoinError> = rt.block_on(async {
            let mut errs = Vec::new();
            for jh in handles {
                errs.push(jh.await.unwrap_err());
            }
            errs
        });
        for (err, id) in errs.into_iter().zip(ids) {
            assert_eq!(err.id(), id);
            assert_eq!(err.to_string(), format!("task {id} panicked with message \"boom\""));
            assert_eq!(panic_message(&*err.into_panic()), "boom");
        }
        let sum = rt.block_on(async {
            let handles: Vec<_> = (0..100u32).map(|i| tokiwa::spawn(async move { i })).collect();
            let mut sum = 0;
            for jh in handles {
                sum += jh.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, 4950);
    }

    fn abort_after_runtime_dropped() {
        let rt = rt();
        let jh = rt.spawn(pending::<()>());
        let ah = jh.abort_handle();
        drop(rt);
        assert!(ah.is_finished(), "shutdown cancels every task");
        ah.abort();
        jh.abort();
        let err = futures::executor::block_on(jh).unwrap_err();
        assert!(err.is_cancelled(), "{err:?}");
    }
}

#[test]
fn join_error_texts_and_accessors() {
    support::watchdog(support::TEST_TIMEOUT, || {
        quiet_panics(&["boom", "`JoinError` reason is not a panic."]);
        let rt = support::Flavor::current_thread().build();

        // Cancelled.
        let jh = rt.spawn(pending::<()>());
        let id = jh.id();
        jh.abort();
        let err = rt.block_on(jh).unwrap_err();
        assert_eq!(format!("{err:?}"), format!("JoinError::Cancelled({id:?})"));
        assert_eq!(io::Error::from(err).to_string(), "task was cancelled");
        let jh = rt.spawn(pending::<()>());
        let id = jh.id();
        jh.abort();
        let err = rt.block_on(jh).unwrap_err();
        let msg = panic::catch_unwind(AssertUnwindSafe(|| err.into_panic())).unwrap_err();
        // `expect`'s text, as in tokio: the message, then the error's Debug.
        assert_eq!(
            panic_message(&*msg),
            format!("`JoinError` reason is not a panic.: JoinError::Cancelled({id:?})")
        );

        // Panicked with a string.
        let jh = rt.spawn(async { panic!("boom") });
        let id = jh.id();
        let err = rt.block_on(jh).unwrap_err();
        assert_eq!(
            format!("{err:?}"),
            format!("JoinError::Panic({id:?}, \"boom\", ...)")
        );
        assert_eq!(
            err.to_string(),
            format!("task {id} panicked with message \"boom\"")
        );
        assert_eq!(io::Error::from(err).to_string(), "task panicked");

        // Panicked with a formatted `String`.
        let jh = rt.spawn(async {
            let n = 7;
            panic!("boom {n}")
        });
        let id = jh.id();
        let err = rt.block_on(jh).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("task {id} panicked with message \"boom 7\"")
        );
        assert_eq!(panic_message(&*err.into_panic()), "boom 7");

        // Panicked with something else.
        let jh = rt.spawn(async { panic::panic_any(42u32) });
        let id = jh.id();
        let err = rt.block_on(jh).unwrap_err();
        assert!(err.is_panic());
        assert_eq!(err.to_string(), format!("task {id} panicked"));
        assert_eq!(format!("{err:?}"), format!("JoinError::Panic({id:?}, ...)"));
        let payload = err.try_into_panic().unwrap();
        assert_eq!(*payload.downcast::<u32>().unwrap(), 42);

        // `JoinError` is an error.
        fn is_error<E: std::error::Error + Send + Sync + 'static>() {}
        is_error::<JoinError>();
    });
}

#[test]
fn handles_debug() {
    let rt = support::Flavor::current_thread().build();
    let jh = rt.spawn(async {});
    let id = jh.id();
    assert_eq!(format!("{jh:?}"), format!("JoinHandle {{ id: {id:?} }}"));
    let ah = jh.abort_handle();
    assert_eq!(format!("{ah:?}"), format!("AbortHandle {{ id: {id:?} }}"));
    rt.block_on(jh).unwrap();
}
