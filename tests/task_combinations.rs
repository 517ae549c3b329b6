#![cfg(feature = "full")]
//! Every combination of what can happen to a task, checked against what its
//! `JoinHandle` reports and what gets polled and dropped:
//!
//! * the future: completes, panics when polled, panics when dropped, or both;
//! * abort: never, before the first poll, while pending, by the task itself
//!   during a poll, or after completion;
//! * the `JoinHandle`: awaited, dropped before completion, or dropped after;
//! * the output's destructor panics or not.
//!
//! After each combination a fresh task must still run on the same runtime
//! (the worker survived). In the manner of tokio's
//! `runtime/tests/task_combinations.rs` and async-task's `tests/basic.rs`.
//!
//! A future whose destructor panics right after it produced an output whose
//! destructor panics too is left out: tokio aborts the process there (the
//! second panic happens while unwinding from the first).

#[macro_use]
mod support;

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{mpsc as std_mpsc, Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use support::{panic_message, quiet_panics, wait_until, Counter, Flavor};
use tokiwa::runtime::Runtime;
use tokiwa::sync::{oneshot, Notify};
use tokiwa::task::{AbortHandle, JoinError, JoinHandle};

/// The panics this file provokes.
const PROVOKED: &[&str] = &["boom", "drop boom", "output drop boom"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Behaviour {
    Completes,
    PanicsOnPoll,
    PanicsOnDrop,
    PanicsOnPollAndDrop,
}

impl Behaviour {
    const ALL: [Behaviour; 4] = [
        Behaviour::Completes,
        Behaviour::PanicsOnPoll,
        Behaviour::PanicsOnDrop,
        Behaviour::PanicsOnPollAndDrop,
    ];

    fn panics_on_poll(self) -> bool {
        matches!(
            self,
            Behaviour::PanicsOnPoll | Behaviour::PanicsOnPollAndDrop
        )
    }

    fn panics_on_drop(self) -> bool {
        matches!(
            self,
            Behaviour::PanicsOnDrop | Behaviour::PanicsOnPollAndDrop
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Abort {
    Never,
    BeforeFirstPoll,
    WhilePending,
    /// The task aborts itself during its second poll, then returns
    /// `Pending`.
    ByItselfWhileRunning,
    AfterCompletion,
}

impl Abort {
    const ALL: [Abort; 5] = [
        Abort::Never,
        Abort::BeforeFirstPoll,
        Abort::WhilePending,
        Abort::ByItselfWhileRunning,
        Abort::AfterCompletion,
    ];

    fn cancels(self) -> bool {
        matches!(
            self,
            Abort::BeforeFirstPoll | Abort::WhilePending | Abort::ByItselfWhileRunning
        )
    }

    fn expected_polls(self) -> usize {
        match self {
            Abort::BeforeFirstPoll => 0,
            Abort::WhilePending => 1,
            Abort::ByItselfWhileRunning | Abort::Never | Abort::AfterCompletion => 2,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Join {
    Awaited,
    DroppedBeforeCompletion,
    DroppedAfterCompletion,
}

impl Join {
    const ALL: [Join; 3] = [
        Join::Awaited,
        Join::DroppedBeforeCompletion,
        Join::DroppedAfterCompletion,
    ];
}

#[derive(Clone, Copy, Debug)]
struct Combo {
    behaviour: Behaviour,
    abort: Abort,
    join: Join,
    output_panics_on_drop: bool,
}

impl Combo {
    fn all() -> Vec<Combo> {
        let mut all = Vec::new();
        for behaviour in Behaviour::ALL {
            for abort in Abort::ALL {
                for join in Join::ALL {
                    for output_panics_on_drop in [false, true] {
                        let c = Combo {
                            behaviour,
                            abort,
                            join,
                            output_panics_on_drop,
                        };
                        if !c.is_process_abort() {
                            all.push(c);
                        }
                    }
                }
            }
        }
        all
    }

    /// The combination tokio answers with a process abort (see the module
    /// docs).
    fn is_process_abort(self) -> bool {
        self.output_created()
            && self.behaviour == Behaviour::PanicsOnDrop
            && self.output_panics_on_drop
    }

    fn output_created(self) -> bool {
        !self.abort.cancels() && !self.behaviour.panics_on_poll()
    }

    /// The output waits in the task for the `JoinHandle` (else it was
    /// dropped when the future's destructor panicked).
    fn output_held(self) -> bool {
        self.output_created() && !self.behaviour.panics_on_drop()
    }

    fn expected(self) -> Expected {
        if self.abort.cancels() {
            if self.behaviour.panics_on_drop() {
                Expected::Panic("drop boom")
            } else {
                Expected::Cancelled
            }
        } else if self.behaviour.panics_on_poll() {
            // A panicking destructor after the panicking poll is swallowed.
            Expected::Panic("boom")
        } else if self.behaviour.panics_on_drop() {
            Expected::Panic("drop boom")
        } else {
            Expected::Ok
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Expected {
    Ok,
    Cancelled,
    Panic(&'static str),
}

/// What the task's future and output report.
#[derive(Clone, Default)]
struct Probe {
    polls: Counter,
    future_drops: Counter,
    output_drops: Counter,
    changed: Arc<Notify>,
}

impl Probe {
    fn bump(&self, c: &Counter) {
        c.inc();
        self.changed.notify_one();
    }

    /// Waits (inside the runtime, so a current-thread runtime runs its
    /// tasks meanwhile) until `cond` holds.
    fn wait(&self, rt: &Runtime, cond: impl Fn(&Probe) -> bool) {
        rt.block_on(async {
            while !cond(self) {
                self.changed.notified().await;
            }
        })
    }
}

struct Output {
    probe: Probe,
    panics_on_drop: bool,
}

impl Drop for Output {
    fn drop(&mut self) {
        self.probe.bump(&self.probe.output_drops);
        if self.panics_on_drop {
            panic!("output drop boom");
        }
    }
}

/// Pending until `release` fires; then completes, panics, or aborts itself.
struct CombiFuture {
    probe: Probe,
    release: oneshot::Receiver<()>,
    me: Arc<Mutex<Option<AbortHandle>>>,
    combo: Combo,
}

impl Future for CombiFuture {
    type Output = Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Output> {
        let released = Pin::new(&mut self.release).poll(cx);
        // Counted after looking at `release`: a test that saw the first poll
        // and then releases is sure to cause a second one.
        self.probe.bump(&self.probe.polls);
        match released {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(res) => res.expect("release sender dropped"),
        }
        if self.combo.abort == Abort::ByItselfWhileRunning {
            let me = self
                .me
                .lock()
                .unwrap()
                .clone()
                .expect("abort handle not set");
            me.abort();
            assert!(!me.is_finished(), "a running task reported finished");
            return Poll::Pending;
        }
        if self.combo.behaviour.panics_on_poll() {
            panic!("boom");
        }
        Poll::Ready(Output {
            probe: self.probe.clone(),
            panics_on_drop: self.combo.output_panics_on_drop,
        })
    }
}

impl Drop for CombiFuture {
    fn drop(&mut self) {
        self.probe.bump(&self.probe.future_drops);
        if self.combo.behaviour.panics_on_drop() && !std::thread::panicking() {
            panic!("drop boom");
        }
    }
}

/// Keeps every worker of a multi-thread runtime busy (blocked on a std
/// channel) until dropped, so that a task spawned meanwhile cannot be
/// polled. Nothing to do on a current-thread runtime: outside `block_on`
/// nothing runs.
struct HoldWorkers {
    _release: Vec<std_mpsc::Sender<()>>,
}

impl HoldWorkers {
    fn new(rt: &Runtime, flavor: Flavor) -> HoldWorkers {
        let mut release = Vec::new();
        if flavor.is_multi_thread() {
            // One at a time: each blocker occupies a worker before the next
            // is spawned, so each lands on a different worker.
            for _ in 0..flavor.workers() {
                let (started_tx, started_rx) = std_mpsc::channel();
                let (release_tx, release_rx) = std_mpsc::channel::<()>();
                drop(rt.spawn(async move {
                    started_tx.send(()).unwrap();
                    let _ = release_rx.recv();
                }));
                started_rx
                    .recv_timeout(Duration::from_secs(30))
                    .expect("a blocker task never started: an idle worker was not woken");
                release.push(release_tx);
            }
        }
        HoldWorkers { _release: release }
    }
}

fn check_error(c: Combo, id: tokiwa::task::Id, err: JoinError, expected: &Expected) {
    assert_eq!(err.id(), id, "{c:?}: JoinError::id");
    match expected {
        Expected::Cancelled => {
            assert!(err.is_cancelled(), "{c:?}: expected cancelled, got {err:?}");
            assert!(!err.is_panic(), "{c:?}");
            assert_eq!(err.to_string(), format!("task {id} was cancelled"), "{c:?}");
            assert_eq!(
                format!("{err:?}"),
                format!("JoinError::Cancelled({id:?})"),
                "{c:?}"
            );
            let err = err
                .try_into_panic()
                .expect_err("a cancellation has no payload");
            assert!(err.is_cancelled(), "{c:?}");
        }
        Expected::Panic(msg) => {
            assert!(err.is_panic(), "{c:?}: expected a panic, got {err:?}");
            assert!(!err.is_cancelled(), "{c:?}");
            assert_eq!(
                err.to_string(),
                format!("task {id} panicked with message {msg:?}"),
                "{c:?}"
            );
            let payload = err.try_into_panic().expect("a panic has a payload");
            assert_eq!(panic_message(&*payload), *msg, "{c:?}");
        }
        Expected::Ok => panic!("{c:?}: expected Ok, got {err:?}"),
    }
}

fn run_combo(rt: &Runtime, flavor: Flavor, c: Combo) {
    let probe = Probe::default();
    let (release_tx, release_rx) = oneshot::channel();
    // Kept until the end when unused: dropping it would wake the task.
    let mut release_tx = Some(release_tx);
    let me = Arc::new(Mutex::new(None));
    let future = CombiFuture {
        probe: probe.clone(),
        release: release_rx,
        me: me.clone(),
        combo: c,
    };

    let hold = (c.abort == Abort::BeforeFirstPoll).then(|| HoldWorkers::new(rt, flavor));
    let jh: JoinHandle<Output> = rt.spawn(future);
    let id = jh.id();
    let abort_handle = jh.abort_handle();
    assert_eq!(abort_handle.id(), id, "{c:?}");
    *me.lock().unwrap() = Some(abort_handle.clone());
    let mut jh = Some(jh);
    let abort = |jh: &Option<JoinHandle<Output>>| match jh {
        Some(jh) => jh.abort(),
        None => abort_handle.abort(),
    };

    match c.abort {
        Abort::BeforeFirstPoll => {
            assert_eq!(
                probe.polls.get(),
                0,
                "{c:?}: polled while the workers were held"
            );
            abort(&jh);
            if c.join == Join::DroppedBeforeCompletion {
                drop(jh.take());
            }
            drop(hold);
        }
        Abort::WhilePending => {
            probe.wait(rt, |p| p.polls.get() >= 1);
            assert!(!abort_handle.is_finished(), "{c:?}");
            if c.join == Join::DroppedBeforeCompletion {
                drop(jh.take());
            }
            abort(&jh);
        }
        Abort::ByItselfWhileRunning | Abort::Never | Abort::AfterCompletion => {
            probe.wait(rt, |p| p.polls.get() >= 1);
            assert!(!abort_handle.is_finished(), "{c:?}");
            if c.join == Join::DroppedBeforeCompletion {
                drop(jh.take());
            }
            release_tx.take().unwrap().send(()).unwrap();
            if c.abort == Abort::AfterCompletion {
                probe.wait(rt, |p| p.future_drops.get() == 1);
                wait_until(Duration::from_secs(10), "the task completes", || {
                    abort_handle.is_finished()
                });
                abort(&jh);
            }
        }
    }

    // The task ends: its future is dropped, it reports finished.
    probe.wait(rt, |p| p.future_drops.get() >= 1);
    wait_until(Duration::from_secs(10), "the task finishes", || {
        abort_handle.is_finished()
    });
    if let Some(jh) = &jh {
        assert!(jh.is_finished(), "{c:?}");
    }

    let expected = c.expected();
    let expected_output_drops = usize::from(c.output_created());
    match c.join {
        Join::Awaited => {
            let res = rt.block_on(jh.take().unwrap());
            match res {
                Ok(output) => {
                    assert_eq!(expected, Expected::Ok, "{c:?}: got Ok");
                    assert_eq!(probe.output_drops.get(), 0, "{c:?}");
                    let dropped = panic::catch_unwind(AssertUnwindSafe(|| drop(output)));
                    assert_eq!(dropped.is_err(), c.output_panics_on_drop, "{c:?}");
                }
                Err(err) => check_error(c, id, err, &expected),
            }
        }
        Join::DroppedAfterCompletion => {
            // The task holds the output until the handle goes; dropping the
            // handle drops it here, and a panicking destructor stays inside.
            let dropped_already = usize::from(c.output_created() && !c.output_held());
            assert_eq!(
                probe.output_drops.get(),
                dropped_already,
                "{c:?}: output dropped too early"
            );
            let dropped = panic::catch_unwind(AssertUnwindSafe(|| drop(jh.take())));
            assert!(dropped.is_ok(), "{c:?}: dropping a JoinHandle panicked");
            assert_eq!(probe.output_drops.get(), expected_output_drops, "{c:?}");
        }
        Join::DroppedBeforeCompletion => {
            // The runtime drops the output (it may still be at it).
            probe.wait(rt, |p| p.output_drops.get() == expected_output_drops);
        }
    }

    assert_eq!(probe.polls.get(), c.abort.expected_polls(), "{c:?}: polls");
    assert_eq!(probe.future_drops.get(), 1, "{c:?}: future drops");
    assert_eq!(
        probe.output_drops.get(),
        expected_output_drops,
        "{c:?}: output drops"
    );
    assert!(abort_handle.is_finished(), "{c:?}");
    // Aborting a finished task changes nothing.
    abort_handle.abort();
    drop(release_tx);

    // The worker survived.
    let check = rt.spawn(async { 7 });
    assert_eq!(
        rt.block_on(check).unwrap(),
        7,
        "{c:?}: runtime broken afterwards"
    );
}

rt_test! {
    fn every_combination() {
        quiet_panics(PROVOKED);
        let rt = rt();
        let combos = Combo::all();
        assert_eq!(combos.len(), 4 * 5 * 3 * 2 - 6);
        for c in combos {
            run_combo(&rt, FLAVOR, c);
        }
        // All tasks are gone.
        let metrics = rt.metrics();
        wait_until(Duration::from_secs(10), "num_alive_tasks back to 0", || {
            metrics.num_alive_tasks() == 0
        });
    }

    fn every_combination_fresh_runtime_each() {
        // The same, one runtime per combination: shutdown right after each
        // outcome must neither hang nor leak.
        quiet_panics(PROVOKED);
        for c in Combo::all() {
            let rt = rt();
            run_combo(&rt, FLAVOR, c);
            drop(rt);
        }
    }
}
