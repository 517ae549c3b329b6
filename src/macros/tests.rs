//! The macros' behaviour, on tokiwa's runtime, with futures from std and
//! the `futures` crate only (the channel types come from `futures`).

use crate::runtime::Builder;
use futures::channel::oneshot;
use std::cell::{Cell, RefCell};
use std::future::{pending, ready, Future};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

fn block_on<F: Future>(future: F) -> F::Output {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// Ready after being polled `n` times (waking itself in between), logging
/// each poll under `name`.
struct ReadyAfter {
    name: u32,
    polls_left: u32,
    log: Rc<RefCell<Vec<u32>>>,
}

impl Future for ReadyAfter {
    type Output = u32;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        self.log.borrow_mut().push(self.name);
        if self.polls_left == 0 {
            return Poll::Ready(self.name);
        }
        self.polls_left -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

fn ready_after(name: u32, polls: u32, log: &Rc<RefCell<Vec<u32>>>) -> ReadyAfter {
    ReadyAfter {
        name,
        polls_left: polls,
        log: log.clone(),
    }
}

// ===== pin! =====

#[test]
fn pin_both_forms() {
    block_on(async {
        async fn seven() -> u32 {
            7
        }
        let a = seven();
        let b = seven();
        crate::pin!(a, b);
        assert_eq!((&mut a).await + (&mut b).await, 14);
        crate::pin! {
            let c = seven();
            let d = async { 1 };
        }
        fn is_pinned<F: Future>(_: &Pin<&mut F>) {}
        is_pinned(&c);
        assert_eq!((&mut c).await + (&mut d).await, 8);
    });
}

// ===== select! =====

#[test]
fn select_forms() {
    block_on(async {
        // Expression handler, with and without trailing comma.
        let v = crate::select! { v = async { 1 } => v, };
        assert_eq!(v, 1);
        let v = crate::select! { v = async { 2 } => v };
        assert_eq!(v, 2);
        // Block handlers, with and without commas between branches.
        let v = crate::select! {
            v = async { 3 } => { v }
            _ = pending::<()>() => { 0 },
        };
        assert_eq!(v, 3);
        // `biased;`, `else` only.
        assert_eq!(crate::select! { else => 4 }, 4);
        assert_eq!(crate::select! { biased; else => 5, }, 5);
        // A nested select and an `IntoFuture` that is not a future.
        struct IntoSix;
        impl std::future::IntoFuture for IntoSix {
            type Output = u32;
            type IntoFuture = std::future::Ready<u32>;
            fn into_future(self) -> Self::IntoFuture {
                ready(6)
            }
        }
        let v = crate::select! {
            v = async { crate::select! { v = IntoSix => v } } => v,
        };
        assert_eq!(v, 6);
        // A temporary borrowed by the branch expression.
        crate::select! {
            () = &mut ready(()) => {}
        }
    });
}

#[test]
fn select_handler_sees_what_the_futures_borrowed() {
    block_on(async {
        async fn borrow(_: &mut i32) {
            pending::<()>().await
        }
        let mut value = 1;
        crate::select! {
            _ = borrow(&mut value) => {}
            _ = async {} => value += 1,
        }
        assert_eq!(value, 2);
    });
}

#[test]
fn select_binding_modes() {
    block_on(async {
        crate::select! {
            Some(mut s) = async { Some(String::from("a")) } => {
                s.push('b');
                assert_eq!(s, "ab");
            }
        }
        crate::select! {
            Some(ref s) = async { Some(String::from("a")) } => assert_eq!(s, "a"),
        }
        crate::select! {
            Some(ref mut s) = async { Some(String::from("a")) } => {
                s.push('c');
                assert_eq!(s, "ac");
            }
        }
        let fut = async { 1 };
        crate::pin!(fut);
        let v = crate::select! {
            mut a = &mut fut => {
                a += 1;
                a
            }
        };
        assert_eq!(v, 2);
        let v = crate::select! {
            whole @ Some(1 | 2) = async { Some(2) } => whole,
            else => None,
        };
        assert_eq!(v, Some(2));
    });
}

#[test]
fn select_precondition_disables_branch_but_evaluates_its_future() {
    block_on(async {
        let created = Cell::new(0);
        let make = |v: u32| {
            created.set(created.get() + 1);
            async move { v }
        };
        for _ in 0..20 {
            let v = crate::select! {
                v = make(1), if false => v,
                v = make(2) => v,
            };
            assert_eq!(v, 2);
        }
        // Both branch expressions were evaluated every time.
        assert_eq!(created.get(), 40);

        // Preconditions in a loop, with `else` ending it.
        let (mut a, mut b) = (Some(1), Some(2));
        let mut seen = Vec::new();
        loop {
            crate::select! {
                v = async { a.take().unwrap() }, if a.is_some() => seen.push(v),
                v = async { b.take().unwrap() }, if b.is_some() => seen.push(v),
                else => break,
            }
        }
        seen.sort();
        assert_eq!(seen, [1, 2]);
    });
}

#[test]
fn select_refuted_pattern_disables_only_that_branch() {
    block_on(async {
        let (tx, rx) = oneshot::channel::<u32>();
        let log = Rc::new(RefCell::new(Vec::new()));
        let v = crate::select! {
            biased;
            // Completes at once with `None`: refuted, so disabled.
            Some(v) = async { None::<u32> } => v,
            // Completes on the second poll.
            Ok(v) = async {
                let v = ready_after(9, 1, &log).await;
                drop(tx);
                Ok::<u32, ()>(v)
            } => v,
            // Never sent to, then the sender is dropped: refuted too.
            Ok(v) = rx => v,
        };
        assert_eq!(v, 9);

        // Every branch refuted: `else` runs.
        let v = crate::select! {
            Some(v) = async { None::<u32> } => v,
            Some(v) = async { None::<u32> } => v + 1,
            else => 100,
        };
        assert_eq!(v, 100);
    });
}

#[test]
#[should_panic(expected = "all branches are disabled and there is no else branch")]
fn select_without_else_panics_when_all_disabled() {
    block_on(async {
        crate::select! {
            Some(v) = async { None::<u32> } => v,
            v = async { 1 }, if false => v,
        }
    });
}

#[test]
fn select_biased_polls_in_written_order() {
    block_on(async {
        for _ in 0..10 {
            let log = Rc::new(RefCell::new(Vec::new()));
            let v = crate::select! {
                biased;
                v = ready_after(1, 2, &log) => v,
                v = ready_after(2, 1, &log) => v,
                v = ready_after(3, 1, &log) => v,
            };
            assert_eq!(v, 2);
            assert_eq!(*log.borrow(), [1, 2, 3, 1, 2]);
        }
    });
}

#[test]
fn select_unbiased_picks_every_ready_branch() {
    block_on(async {
        let mut counts = [0u32; 2];
        for _ in 0..400 {
            let i = crate::select! {
                i = ready(0) => i,
                i = ready(1) => i,
            };
            counts[i] += 1;
        }
        // Each is picked about 200 times; any fair start order gives far
        // more than 50 to each.
        assert!(counts.iter().all(|&c| c > 50), "{counts:?}");
    });
}

#[test]
fn select_in_a_loop_with_break_and_continue() {
    block_on(async {
        let mut n = 0;
        let out = loop {
            n += 1;
            crate::select! {
                v = async { n } => {
                    if v < 3 {
                        continue;
                    }
                    if v == 5 {
                        break v * 10;
                    }
                }
            }
        };
        assert_eq!(out, 50);
        // `?` and `return` in a handler leave the enclosing async block.
        let res: Result<u32, &str> = async {
            crate::select! {
                v = async { Err::<u32, &str>("bad") } => v?,
            };
            Ok(0)
        }
        .await;
        assert_eq!(res, Err("bad"));
    });
}

#[test]
fn select_drops_the_other_branches() {
    block_on(async {
        struct DropFlag<'a>(&'a Cell<bool>);
        impl Drop for DropFlag<'_> {
            fn drop(&mut self) {
                self.0.set(true);
            }
        }
        let dropped = Cell::new(false);
        let flag = DropFlag(&dropped);
        crate::select! {
            _ = async move {
                let _flag = flag;
                pending::<()>().await
            } => unreachable!(),
            _ = async {} => assert!(dropped.get(), "the losing branch is dropped before the handler"),
        }
    });
}

#[test]
fn select_with_never_type_and_uninhabited_output() {
    block_on(async {
        async fn never() -> std::convert::Infallible {
            pending().await
        }
        let v = crate::select! {
            _ = never() => 0,
            v = async { 1 } => v,
        };
        assert_eq!(v, 1);
    });
}

#[test]
fn select_compiles_a_branch_whose_output_type_nothing_fixes() {
    // As with tokio's `select!` (its `disable_with_if` test): the output of
    // `poll_fn(|_| panic!())` is inferred (as `()`), not an error.
    block_on(async {
        let never_polled = std::future::poll_fn(|_| panic!("polled a disabled branch"));
        let v = crate::select! {
            _ = never_polled, if false => unreachable!(),
            v = ready(3) => v,
        };
        assert_eq!(v, 3);
    });
}

#[test]
fn select_sixty_four_branches() {
    block_on(async {
        let v = crate::select! {
            biased;
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v,
            v = pending::<u32>() => v, v = pending::<u32>() => v, v = pending::<u32>() => v, v = async { 64 } => v,
        };
        assert_eq!(v, 64);
    });
}

#[cfg(target_pointer_width = "64")]
#[test]
fn select_future_sizes_match_tokio() {
    // tokio's own tests (macros_select.rs) pin these sizes down.
    let one = async {
        let a = ready(0i32);
        crate::select! { _ = a => {} }
    };
    assert_eq!(std::mem::size_of_val(&one), 32);
    let two = async {
        let (a, b) = (ready(0i32), ready(0i32));
        crate::select! { _ = a => {}, _ = b => {} }
    };
    assert_eq!(std::mem::size_of_val(&two), 40);
    let three = async {
        let (a, b, c) = (ready(0i32), ready(0i32), ready(0i32));
        crate::select! { _ = a => {}, _ = b => {}, _ = c => {} }
    };
    assert_eq!(std::mem::size_of_val(&three), 48);
}

#[cfg(feature = "time")]
#[test]
fn select_looping_on_always_ready_branches_lets_a_timer_fire() {
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use std::sync::Arc;
    block_on(async {
        let fired = Arc::new(AtomicBool::new(false));
        let timer = crate::spawn({
            let fired = fired.clone();
            async move {
                crate::time::sleep(std::time::Duration::from_millis(5)).await;
                fired.store(true, SeqCst);
            }
        });
        // Without the budget check, `ready(())` would complete this
        // `select!` every time once `consume_budget` yields, and the loop
        // would never give the timer task a turn on this one thread.
        let mut turns = 0u64;
        while !fired.load(SeqCst) {
            crate::select! {
                biased;
                () = crate::task::consume_budget() => {}
                () = ready(()) => {}
            }
            turns += 1;
        }
        timer.await.unwrap();
        assert!(turns > 0);
    });
}

#[test]
fn select_is_budget_aware() {
    block_on(async {
        let task = || {
            Box::pin(async {
                crate::select! {
                    biased;
                    () = crate::task::consume_budget() => {},
                    () = ready(()) => {}
                }
            })
        };
        for _ in 0..crate::runtime::coop::INITIAL_BUDGET {
            assert!(futures::poll!(&mut task()).is_ready());
        }
        assert!(futures::poll!(&mut task()).is_pending());
    });
}

// ===== join! / try_join! =====

#[test]
fn join_forms() {
    block_on(async {
        assert_eq!(crate::join!(async { 1 },), (1,));
        assert_eq!(crate::join!(async { 1 }, async { "a" }), (1, "a"));
        assert_eq!(crate::join!(biased; async { 1 }, async { 2 },), (1, 2));
        let () = crate::join!();
        let () = crate::join!(biased;);
        struct IntoOne;
        impl std::future::IntoFuture for IntoOne {
            type Output = u32;
            type IntoFuture = std::future::Ready<u32>;
            fn into_future(self) -> Self::IntoFuture {
                ready(1)
            }
        }
        assert_eq!(crate::join!(IntoOne), (1,));
        // A caller's `COUNT` is not shadowed by anything of the macro's.
        const COUNT: u32 = 7;
        assert_eq!(crate::join!(async { COUNT }), (7,));
    });
}

#[test]
fn join_rotates_its_first_branch() {
    block_on(async {
        let log = Rc::new(RefCell::new(Vec::new()));
        crate::join!(
            ready_after(1, 3, &log),
            ready_after(2, 3, &log),
            ready_after(3, 3, &log),
        );
        assert_eq!(*log.borrow(), [1, 2, 3, 2, 3, 1, 3, 1, 2, 1, 2, 3]);

        let log = Rc::new(RefCell::new(Vec::new()));
        crate::join!(
            biased;
            ready_after(1, 3, &log),
            ready_after(2, 3, &log),
            ready_after(3, 3, &log),
        );
        assert_eq!(*log.borrow(), [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]);
    });
}

#[test]
fn join_waits_for_all() {
    block_on(async {
        let (tx, rx) = oneshot::channel();
        let (a, b) = crate::join!(async { rx.await.unwrap() }, async {
            crate::task::yield_now().await;
            tx.send(5).unwrap();
            "sent"
        });
        assert_eq!((a, b), (5, "sent"));
    });
}

#[test]
#[deny(unreachable_code)]
fn join_with_uninhabited_output_compiles_and_stays_pending() {
    use std::convert::Infallible;
    block_on(async {
        let mut join = Box::pin(async { crate::join!(pending::<Infallible>(), async { 1 }) });
        assert!(futures::poll!(&mut join).is_pending());
        let mut join =
            Box::pin(async { crate::join!(biased; async { 1 }, pending::<Infallible>()) });
        assert!(futures::poll!(&mut join).is_pending());
    });
}

#[test]
fn try_join_forms_and_early_error() {
    block_on(async {
        let ok: Result<(u32, &str), ()> = crate::try_join!(async { Ok(1) }, async { Ok("a") });
        assert_eq!(ok, Ok((1, "a")));
        let ok: Result<(u32,), ()> = crate::try_join!(biased; async { Ok(1) },);
        assert_eq!(ok, Ok((1,)));
        let empty: Result<(), ()> = crate::try_join!();
        assert_eq!(empty, Ok(()));

        // The error returns at once, dropping the branch still pending.
        let err: Result<(u32, u32), &str> =
            crate::try_join!(async { pending::<Result<u32, &str>>().await }, async {
                crate::task::yield_now().await;
                Err("failed")
            });
        assert_eq!(err, Err("failed"));
    });
}

#[test]
#[deny(unreachable_code)]
fn try_join_with_uninhabited_types() {
    use std::convert::Infallible;
    block_on(async {
        let res = crate::try_join!(async { Err::<Infallible, _>(1) }, async { Ok(2) });
        assert_eq!(res, Err(1));
        let res =
            crate::try_join!(biased; async { Ok::<_, i32>(1) }, async { Err::<Infallible, _>(2) });
        assert_eq!(res, Err(2));
        let res = crate::try_join!(async { Ok::<_, Infallible>(1) }, async { Ok(2) });
        assert_eq!(res, Ok((1, 2)));
    });
}

#[test]
fn try_join_rotates_its_first_branch() {
    block_on(async {
        let log = Rc::new(RefCell::new(Vec::new()));
        let res: Result<_, ()> = crate::try_join!(
            async { Ok(ready_after(1, 3, &log).await) },
            async { Ok(ready_after(2, 3, &log).await) },
            async { Ok(ready_after(3, 3, &log).await) },
        );
        assert_eq!(res, Ok((1, 2, 3)));
        assert_eq!(*log.borrow(), [1, 2, 3, 2, 3, 1, 3, 1, 2, 1, 2, 3]);
    });
}

#[cfg(target_pointer_width = "64")]
#[test]
fn join_future_sizes_match_tokio() {
    // tokio's own tests (macros_join.rs, macros_try_join.rs) pin these
    // sizes down.
    let fut = async {
        let a = ready(0i32);
        crate::join!(a)
    };
    assert_eq!(std::mem::size_of_val(&fut), 32);
    let fut = async {
        let (a, b) = (ready(0i32), ready(0i32));
        crate::join!(a, b)
    };
    assert_eq!(std::mem::size_of_val(&fut), 48);
    let fut = async {
        let a = ready(0i32);
        crate::join!(biased; a)
    };
    assert_eq!(std::mem::size_of_val(&fut), 24);
    let fut = async {
        let (a, b) = (ready(0i32), ready(0i32));
        crate::join!(biased; a, b)
    };
    assert_eq!(std::mem::size_of_val(&fut), 40);
}
