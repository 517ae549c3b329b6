#![cfg(feature = "full")]
//! `LocalSet` and `spawn_local`: `run_until`, `block_on`, awaiting the set,
//! `enter`, `!Send` data, wakeups from other threads, cancellation when the
//! set is dropped, fairness, and the panics outside a set.

#[macro_use]
mod support;

use std::cell::{Cell, RefCell};
use std::future::pending;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;
use std::thread;

use support::{panic_message, quiet_panics, Counter, Tracked};
use tokiwa::runtime::Handle;
use tokiwa::sync::oneshot;
use tokiwa::task::{self, LocalSet};

const SPAWN_LOCAL_OUTSIDE: &str =
    "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`";

/// See `rt_common.rs`: a fair scheduler ends such a loop long before.
const STARVATION_LIMIT: u64 = 200_000;

rt_test! {
    fn run_until_with_rc() {
        let rt = rt();
        let local = LocalSet::new();
        let data = Rc::new(RefCell::new(Vec::new()));
        let d = data.clone();
        let out = rt.block_on(local.run_until(async move {
            let d2 = d.clone();
            let jh = task::spawn_local(async move {
                d2.borrow_mut().push(1);
                Rc::new(41)
            });
            let rc = jh.await.unwrap();
            d.borrow_mut().push(2);
            *rc + 1
        }));
        assert_eq!(out, 42);
        assert_eq!(*data.borrow(), vec![1, 2]);
    }

    fn local_set_block_on() {
        let rt = rt();
        let local = LocalSet::new();
        let cell = Rc::new(Cell::new(0));
        let c = cell.clone();
        let out = local.block_on(&rt, async move {
            let c2 = c.clone();
            task::spawn_local(async move { c2.set(c2.get() + 1) }).await.unwrap();
            c.get() + 10
        });
        assert_eq!(out, 11);
        assert_eq!(cell.get(), 1);
    }

    fn spawn_before_running_then_await_the_set() {
        // Tasks spawned on the set before it runs; awaiting the set runs
        // them all and completes when none is left.
        let rt = rt();
        let local = LocalSet::default();
        let log = Rc::new(RefCell::new(Vec::new()));
        let mut handles = Vec::new();
        for i in 0..3 {
            let log = log.clone();
            handles.push(local.spawn_local(async move {
                task::yield_now().await;
                log.borrow_mut().push(i);
                i * 10
            }));
        }
        assert!(log.borrow().is_empty(), "ran before the set was driven");
        rt.block_on(local);
        let mut got = log.borrow().clone();
        got.sort();
        assert_eq!(got, vec![0, 1, 2]);
        for (i, jh) in handles.into_iter().enumerate() {
            assert!(jh.is_finished());
            assert_eq!(rt.block_on(jh).unwrap(), i * 10);
        }
    }

    fn enter_then_spawn_local() {
        let rt = rt();
        let local = LocalSet::new();
        let jh = {
            let _guard = local.enter();
            task::spawn_local(async { Rc::new(5) })
        };
        // The guard is gone: no set is current any more.
        let payload = panic::catch_unwind(|| task::spawn_local(async {})).unwrap_err();
        assert_eq!(panic_message(&*payload), SPAWN_LOCAL_OUTSIDE);
        assert_eq!(*local.block_on(&rt, jh).unwrap(), 5);
    }

    fn wakeups_from_other_threads() {
        let rt = rt();
        let local = LocalSet::new();
        let sum = Rc::new(Cell::new(0u64));
        let s = sum.clone();
        let senders = local.block_on(&rt, async move {
            let mut txs = Vec::new();
            let mut handles = Vec::new();
            for _ in 0..100 {
                let (tx, rx) = oneshot::channel::<u64>();
                txs.push(tx);
                let s = s.clone();
                handles.push(task::spawn_local(async move {
                    let n = rx.await.unwrap();
                    s.set(s.get() + n);
                }));
            }
            // Two std threads send, half each.
            let second = txs.split_off(50);
            let threads = [txs, second].map(|txs| {
                thread::spawn(move || {
                    for tx in txs {
                        tx.send(2).unwrap();
                    }
                })
            });
            for jh in handles {
                jh.await.unwrap();
            }
            threads
        });
        for t in senders {
            t.join().unwrap();
        }
        assert_eq!(sum.get(), 200);
    }

    fn many_local_tasks() {
        let rt = rt();
        let local = LocalSet::new();
        let done = Rc::new(Cell::new(0usize));
        let d = done.clone();
        local.block_on(&rt, async move {
            let handles: Vec<_> = (0..1000)
                .map(|_| {
                    let d = d.clone();
                    task::spawn_local(async move {
                        for _ in 0..3 {
                            task::yield_now().await;
                        }
                        d.set(d.get() + 1);
                    })
                })
                .collect();
            for jh in handles {
                jh.await.unwrap();
            }
        });
        assert_eq!(done.get(), 1000);
    }

    fn dropping_the_set_drops_its_tasks() {
        let rt = rt();
        let local = LocalSet::new();
        let polls = Counter::new();
        let drops = Counter::new();
        // Five polled and pending, five never polled.
        let mut handles = Vec::new();
        for _ in 0..5 {
            handles.push(local.spawn_local(Tracked::new(pending::<()>(), &polls, &drops)));
        }
        local.block_on(&rt, async {
            for _ in 0..5 {
                task::yield_now().await;
            }
        });
        assert_eq!(polls.get(), 5);
        let never = Counter::new();
        for _ in 0..5 {
            handles.push(local.spawn_local(Tracked::new(pending::<()>(), &never, &drops)));
        }
        assert_eq!(drops.get(), 0);
        drop(local);
        assert_eq!(drops.get(), 10, "every task's future dropped with the set");
        assert_eq!(never.get(), 0);
        for jh in handles {
            assert!(jh.is_finished());
            let err = futures::executor::block_on(jh).unwrap_err();
            assert!(err.is_cancelled(), "{err:?}");
        }
    }

    fn destructor_spawns_local_while_set_drops() {
        // A task's destructor spawns onto the set being dropped: no panic,
        // and the spawned future is dropped unpolled.
        struct SpawnOnDrop(Counter, Counter, Counter);
        impl Drop for SpawnOnDrop {
            fn drop(&mut self) {
                let polls = self.0.clone();
                let guard = self.1.guard();
                drop(task::spawn_local(async move {
                    let _guard = guard;
                    polls.inc();
                }));
                self.2.inc();
            }
        }
        let rt = rt();
        let local = LocalSet::new();
        let polls = Counter::new();
        let inner_drops = Counter::new();
        let outer_drops = Counter::new();
        for _ in 0..3 {
            let guard = SpawnOnDrop(polls.clone(), inner_drops.clone(), outer_drops.clone());
            local.spawn_local(async move {
                let _guard = guard;
                pending::<()>().await
            });
        }
        local.block_on(&rt, task::yield_now());
        drop(local);
        assert_eq!(outer_drops.get(), 3);
        assert_eq!(inner_drops.get(), 3);
        assert_eq!(polls.get(), 0);
        drop(rt);
    }

    fn spawn_local_outside_a_set_panics() {
        quiet_panics(&[SPAWN_LOCAL_OUTSIDE]);
        let payload = panic::catch_unwind(|| task::spawn_local(async {})).unwrap_err();
        assert_eq!(panic_message(&*payload), SPAWN_LOCAL_OUTSIDE);
        // Inside a runtime but outside a set.
        let rt = rt();
        let msg = rt.block_on(async {
            let payload = panic::catch_unwind(|| task::spawn_local(async {})).unwrap_err();
            panic_message(&*payload)
        });
        assert_eq!(msg, SPAWN_LOCAL_OUTSIDE);
        // In an ordinary task.
        let err = rt
            .block_on(rt.spawn(async { drop(task::spawn_local(async {})) }))
            .unwrap_err();
        assert!(err.is_panic());
        assert_eq!(panic_message(&*err.into_panic()), SPAWN_LOCAL_OUTSIDE);
    }

    fn abort_local_task() {
        let rt = rt();
        let local = LocalSet::new();
        let drops = Counter::new();
        let guard = drops.guard();
        let err = local.block_on(&rt, async move {
            let jh = task::spawn_local(async move {
                let _guard = guard;
                let _rc = Rc::new(());
                pending::<()>().await
            });
            task::yield_now().await;
            jh.abort();
            jh.await.unwrap_err()
        });
        assert!(err.is_cancelled());
        assert_eq!(drops.get(), 1);
    }

    fn local_task_panics() {
        quiet_panics(&["local boom"]);
        let rt = rt();
        let local = LocalSet::new();
        let out = local.block_on(&rt, async {
            let err = task::spawn_local(async { panic!("local boom") }).await.unwrap_err();
            assert!(err.is_panic());
            assert_eq!(panic_message(&*err.into_panic()), "local boom");
            // The set keeps working.
            task::spawn_local(async { 3 }).await.unwrap()
        });
        assert_eq!(out, 3);
    }

    fn local_task_spawns_on_the_runtime() {
        let rt = rt();
        let local = LocalSet::new();
        let out = local.block_on(&rt, async {
            task::spawn_local(async {
                let rc = Rc::new(2);
                let sent = tokiwa::spawn(async { 40 }).await.unwrap();
                assert_eq!(
                    Handle::current().runtime_flavor(),
                    FLAVOR.runtime_flavor()
                );
                *rc + sent
            })
            .await
            .unwrap()
        });
        assert_eq!(out, 42);
    }

    fn local_join_handle_awaited_from_a_runtime_task() {
        // The set is woken from the runtime's task (another thread on a
        // multi-thread runtime) through the local task's join.
        let rt = rt();
        let local = LocalSet::new();
        let out = local.block_on(&rt, async {
            let (tx, rx) = oneshot::channel::<u32>();
            let jh = task::spawn_local(async move {
                let rc = Rc::new(rx.await.unwrap());
                *rc * 2
            });
            let joiner = tokiwa::spawn(async move { jh.await.unwrap() });
            tx.send(21).unwrap();
            joiner.await.unwrap()
        });
        assert_eq!(out, 42);
    }

    fn run_until_returns_with_tasks_pending() {
        let rt = rt();
        let local = LocalSet::new();
        let (tx, rx) = oneshot::channel::<u32>();
        let jh = {
            let _guard = local.enter();
            task::spawn_local(async move { rx.await.unwrap() })
        };
        // Runs the task up to its first await, then returns.
        local.block_on(&rt, task::yield_now());
        assert!(!jh.is_finished());
        tx.send(9).unwrap();
        // Driving the set again finishes it.
        assert_eq!(local.block_on(&rt, jh).unwrap(), 9);
    }

    fn dropping_local_join_handle_does_not_cancel() {
        let rt = rt();
        let local = LocalSet::new();
        let flag = Rc::new(Cell::new(false));
        let f = flag.clone();
        local.block_on(&rt, async move {
            drop(task::spawn_local(async move {
                task::yield_now().await;
                f.set(true);
            }));
        });
        rt.block_on(local);
        assert!(flag.get());
    }

    fn yield_spinner_does_not_starve_local_task() {
        let rt = rt();
        let local = LocalSet::new();
        local.block_on(&rt, async {
            let flag = Rc::new(Cell::new(false));
            let f = flag.clone();
            let spinner = task::spawn_local(async move {
                let mut turns = 0u64;
                while !f.get() {
                    task::yield_now().await;
                    turns += 1;
                    assert!(turns < STARVATION_LIMIT, "local setter starved");
                }
            });
            let f = flag.clone();
            let setter = task::spawn_local(async move { f.set(true) });
            spinner.await.unwrap();
            setter.await.unwrap();
        });
    }

    fn busy_set_does_not_starve_runtime_tasks() {
        // A local task spins on `yield_now` until an ordinary runtime task
        // sets a flag: the set must let the runtime run its other tasks.
        let rt = rt();
        let local = LocalSet::new();
        local.block_on(&rt, async {
            let flag = Arc::new(AtomicBool::new(false));
            let f = flag.clone();
            let spinner = task::spawn_local(async move {
                let mut turns = 0u64;
                while !f.load(SeqCst) {
                    task::yield_now().await;
                    turns += 1;
                    assert!(turns < STARVATION_LIMIT, "runtime task starved by a busy LocalSet");
                }
            });
            let f = flag.clone();
            let setter = tokiwa::spawn(async move { f.store(true, SeqCst) });
            spinner.await.unwrap();
            setter.await.unwrap();
        });
    }

    fn nested_sets() {
        // Inside an inner set's `run_until`, `spawn_local` goes to the inner
        // set; afterwards to the outer one again.
        let rt = rt();
        let outer = LocalSet::new();
        let inner_drops = Counter::new();
        let g = inner_drops.guard();
        let (inner, outer_out) = outer.block_on(&rt, async move {
            let inner = LocalSet::new();
            inner
                .run_until(async move {
                    drop(task::spawn_local(async move {
                        let _g = g;
                        pending::<()>().await
                    }));
                    task::yield_now().await;
                })
                .await;
            let out = task::spawn_local(async { Rc::new(1) }).await.unwrap();
            (inner, *out)
        });
        assert_eq!(outer_out, 1);
        assert_eq!(inner_drops.get(), 0);
        drop(inner);
        assert_eq!(inner_drops.get(), 1, "the inner set's task belonged to the inner set");
        drop(outer);
    }

    fn set_with_no_tasks_completes_at_once() {
        let rt = rt();
        rt.block_on(LocalSet::new());
        let local = LocalSet::new();
        assert_eq!(rt.block_on(local.run_until(async { 1 })), 1);
        rt.block_on(local);
    }
}

#[test]
fn local_set_outlives_panicking_run_until() {
    support::watchdog(support::TEST_TIMEOUT, || {
        quiet_panics(&["run_until boom"]);
        let rt = support::Flavor::current_thread().build();
        let local = LocalSet::new();
        let res = panic::catch_unwind(AssertUnwindSafe(|| {
            local.block_on(&rt, async {
                task::spawn_local(async {});
                panic!("run_until boom")
            })
        }));
        assert!(res.is_err());
        // Still usable afterwards.
        assert_eq!(
            local.block_on(&rt, async { task::spawn_local(async { 1 }).await.unwrap() }),
            1
        );
    });
}
