//! `LocalSet` and `spawn_local`: tasks that are not `Send`.
//!
//! A `LocalSet` is a small scheduler of its own that runs inside whatever
//! task or `block_on` polls it (`run_until`, `block_on`, or awaiting the set).
//! Its tasks are only ever polled, cancelled and dropped on the set's thread;
//! other threads can only *wake* them, which pushes a notification into the
//! set's queue and wakes the future that drives the set.
//!
//! Each time the set is polled it runs at most `MAX_TASKS_PER_TICK` tasks,
//! then asks to be polled again if work is left, so a busy set does not
//! starve the rest of its runtime.
//!
//! With `--cfg tokio_unstable`, a set can be told to shut down when one of
//! its tasks panics ([`LocalSet::unhandled_panic`]): the panicking task's
//! scheduler hook cancels every task of the set and marks it, and the
//! set's next tick panics instead of running another task.
use crate::loom::sync::Mutex;
use crate::runtime::coop;
use crate::runtime::task::{JoinHandle, Notified, OwnedTasks, Schedule, SpawnMeta, Task};
use crate::runtime::{context, scheduler};
use pin_project_lite::pin_project;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

const MAX_TASKS_PER_TICK: usize = 61;

/// A set of tasks that run on the same thread.
///
/// ```
/// # #[tokiwa::main(flavor = "current_thread")]
/// # async fn main() {
/// use std::rc::Rc;
/// let local = tokiwa::task::LocalSet::new();
/// let data = Rc::new(42);
/// let out = local
///     .run_until(async move {
///         tokiwa::task::spawn_local(async move { *data }).await.unwrap()
///     })
///     .await;
/// assert_eq!(out, 42);
/// # }
/// ```
pub struct LocalSet {
    context: Rc<LocalContext>,
    _not_send: PhantomData<*const ()>,
}

struct LocalContext {
    shared: Arc<Shared>,
    /// A task panicked under `UnhandledPanic::ShutdownRuntime`: the set's
    /// tasks are cancelled and its next tick panics.
    #[cfg(tokio_unstable)]
    shut_down_by_panic: std::cell::Cell<bool>,
}

/// What other threads may touch: the queue and the driving waker.
pub(crate) struct Shared {
    queue: Mutex<Option<VecDeque<Notified>>>,
    waker: Mutex<Option<Waker>>,
    owned: OwnedTasks,
    /// What a task's panic does to the set; fixed before the set runs.
    #[cfg(tokio_unstable)]
    unhandled_panic: crate::runtime::UnhandledPanic,
}

#[cfg(tokio_unstable)]
const SHUT_DOWN_BY_PANIC: &str =
    "a spawned task panicked and the LocalSet is configured to shutdown on unhandled panic";

thread_local! {
    static CURRENT: RefCell<Option<Rc<LocalContext>>> = const { RefCell::new(None) };
}

/// Spawns a `!Send` future on the current [`LocalSet`] or
/// [`LocalRuntime`](crate::runtime::LocalRuntime).
///
/// # Panics
///
/// Panics when called outside both, or under a `LocalRuntime`'s handle on
/// another thread than the runtime's.
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    spawn_local_with(future, SpawnMeta::new_unnamed())
}

/// [`spawn_local`] with the spawn's metadata (`task::Builder` names it).
#[track_caller]
pub(crate) fn spawn_local_with<F>(future: F, meta: SpawnMeta<'_>) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    // (Its span's kind: `task` on a `LocalRuntime`, as in tokio; a
    // `LocalSet` makes it `local`.)
    // A `LocalRuntime` current on this thread takes it (as in tokio, even
    // inside a `LocalSet`); one of another thread refuses; otherwise the
    // current `LocalSet`, if any.
    let local_runtime = context::with_current(|handle| match handle {
        scheduler::Handle::CurrentThread(h) => match h.config.local_owner {
            Some(owner) if owner == std::thread::current().id() => Some(Some(h.clone())),
            Some(_) => Some(None),
            None => None,
        },
        _ => None,
    })
    .ok()
    .flatten();
    match local_runtime {
        Some(Some(h)) => return h.spawn(future, meta),
        Some(None) => panic!(
            "Local tasks can only be spawned on a LocalRuntime from the thread the runtime was created on"
        ),
        None => {}
    }
    let cx = CURRENT.with(|c| c.borrow().clone());
    match cx {
        Some(cx) => cx.spawn(future, meta),
        None => panic!(
            "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
        ),
    }
}

impl LocalSet {
    /// Creates an empty set.
    pub fn new() -> LocalSet {
        LocalSet {
            context: Rc::new(LocalContext {
                shared: Arc::new(Shared {
                    queue: Mutex::new(Some(VecDeque::new())),
                    waker: Mutex::new(None),
                    owned: OwnedTasks::new(1),
                    #[cfg(tokio_unstable)]
                    unhandled_panic: crate::runtime::UnhandledPanic::Ignore,
                }),
                #[cfg(tokio_unstable)]
                shut_down_by_panic: std::cell::Cell::new(false),
            }),
            _not_send: PhantomData,
        }
    }

    /// Makes this set current, so [`spawn_local`] spawns onto it, until the
    /// guard drops.
    pub fn enter(&self) -> LocalEnterGuard {
        // During thread exit the thread-local may be gone: entering is then
        // a no-op (only `Drop` can run that late).
        let prev = CURRENT
            .try_with(|c| c.borrow_mut().replace(self.context.clone()))
            .ok()
            .flatten();
        LocalEnterGuard {
            prev,
            _not_send: PhantomData,
        }
    }

    /// Spawns a `!Send` task onto this set. It runs when the set is driven.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.context.spawn(future, SpawnMeta::new_unnamed())
    }

    /// [`LocalSet::spawn_local`] with the spawn's metadata
    /// (`task::Builder::spawn_local_on` names it).
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    #[track_caller]
    pub(crate) fn spawn_with<F>(&self, future: F, meta: SpawnMeta<'_>) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.context.spawn(future, meta)
    }

    /// Runs `future` on `rt`, driving this set's tasks meanwhile.
    ///
    /// # Panics
    ///
    /// Panics when called from inside a runtime.
    #[track_caller]
    pub fn block_on<F: Future>(&self, rt: &crate::runtime::Runtime, future: F) -> F::Output {
        rt.block_on(self.run_until(future))
    }

    /// Runs `future` to completion, driving this set's tasks meanwhile.
    pub async fn run_until<F: Future>(&self, future: F) -> F::Output {
        RunUntil {
            local_set: self,
            future,
        }
        .await
    }

    /// What the set does when one of its tasks panics (see
    /// [`UnhandledPanic`](crate::runtime::UnhandledPanic); default
    /// `Ignore`: the panic goes to the task's `JoinHandle`).
    ///
    /// With `UnhandledPanic::ShutdownRuntime`, the first task that panics
    /// (even one whose `JoinHandle` is held) cancels every task of the set,
    /// and the set panics the next time it would run a task: in the
    /// `run_until`, `block_on` or `.await` that drives it, and in every one
    /// after that.
    ///
    /// **Note**: this is an unstable API (`--cfg tokio_unstable`), as in
    /// tokio.
    ///
    /// # Panics
    ///
    /// If the set has started: a task was spawned onto it, or it was
    /// entered or driven and something still holds on to it.
    ///
    /// ```should_panic
    /// use tokiwa::runtime::UnhandledPanic;
    ///
    /// # #[tokiwa::main(flavor = "current_thread")]
    /// # async fn main() {
    /// tokiwa::task::LocalSet::new()
    ///     .unhandled_panic(UnhandledPanic::ShutdownRuntime)
    ///     .run_until(async {
    ///         tokiwa::task::spawn_local(async { panic!("boom") });
    ///         // `run_until` panics before this completes.
    ///         std::future::pending::<()>().await;
    ///     })
    ///     .await;
    /// # }
    /// ```
    #[cfg(tokio_unstable)]
    #[track_caller]
    pub fn unhandled_panic(&mut self, behavior: crate::runtime::UnhandledPanic) -> &mut Self {
        Rc::get_mut(&mut self.context)
            .and_then(|context| Arc::get_mut(&mut context.shared))
            .expect("Unhandled Panic behavior modified after starting LocalSet")
            .unhandled_panic = behavior;
        self
    }

    /// Runs up to `MAX_TASKS_PER_TICK` tasks; returns whether work is left.
    fn tick(&self) -> bool {
        for _ in 0..MAX_TASKS_PER_TICK {
            #[cfg(tokio_unstable)]
            if self.context.shut_down_by_panic.get() {
                panic!("{SHUT_DOWN_BY_PANIC}");
            }
            let task = match self.context.shared.queue.lock().unwrap().as_mut() {
                Some(queue) => queue.pop_front(),
                None => None,
            };
            match task {
                Some(task) => coop::budget(|| task.run()),
                None => return false,
            }
        }
        true
    }

    /// Runs `f` with this set current and `block_in_place` forbidden, as
    /// in tokio: it would block every task of the set, which only this
    /// thread can run.
    fn with_current<R>(&self, f: impl FnOnce() -> R) -> R {
        let _guard = self.enter();
        let _no_blocking = context::disallow_block_in_place();
        f()
    }
}

impl Default for LocalSet {
    fn default() -> LocalSet {
        LocalSet::new()
    }
}

impl LocalContext {
    #[track_caller]
    fn spawn<F>(&self, future: F, meta: SpawnMeta<'_>) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let meta = meta.with_kind(crate::runtime::task::trace::Kind::Local);
        let (raw, notified) = self.shared.owned.bind(future, self.shared.clone(), &meta);
        if let Some(notified) = notified {
            self.shared.schedule(notified);
        }
        // SAFETY: `bind` returns the join handle's reference for a task of
        // output `F::Output`.
        unsafe { JoinHandle::new(raw) }
    }
}

impl Shared {
    fn set_waker(&self, waker: &Waker) {
        let mut slot = self.waker.lock().unwrap();
        match slot.as_ref() {
            Some(w) if w.will_wake(waker) => {}
            _ => *slot = Some(waker.clone()),
        }
    }
}

impl Schedule for Arc<Shared> {
    fn release(&self, task: &Task) -> Option<Task> {
        self.owned.remove(task)
    }

    /// Under `UnhandledPanic::ShutdownRuntime`: cancels every task of the
    /// set and marks it, so its tick panics before running another. Called
    /// on the set's thread while the set runs the panicking task, so the
    /// set is the current one.
    #[cfg(tokio_unstable)]
    fn unhandled_panic(&self) {
        if !matches!(
            self.unhandled_panic,
            crate::runtime::UnhandledPanic::ShutdownRuntime
        ) {
            return;
        }
        let current = CURRENT.try_with(|c| c.borrow().clone()).ok().flatten();
        let Some(context) = current.filter(|cx| Arc::ptr_eq(&cx.shared, self)) else {
            return;
        };
        context.shut_down_by_panic.set(true);
        // Closed, so later spawns onto the set are cancelled at once.
        self.owned.close_and_shutdown_all(0);
    }

    fn schedule(&self, task: Notified) {
        // `self` lives in the task's cell, which the set's thread may free
        // as soon as the notification is queued: dereference it once, to
        // the shared state the set itself keeps alive.
        let shared: &Shared = self;
        let mut queue = shared.queue.lock().unwrap();
        match queue.as_mut() {
            Some(q) => {
                q.push_back(task);
                drop(queue);
                if let Some(waker) = shared.waker.lock().unwrap().as_ref() {
                    waker.wake_by_ref();
                }
            }
            // The set was dropped: its tasks are cancelled already.
            None => {
                drop(queue);
                drop(task);
            }
        }
    }
}

pin_project! {
    struct RunUntil<'a, F> {
        local_set: &'a LocalSet,
        #[pin]
        future: F,
    }
}

impl<F: Future> Future for RunUntil<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let me = self.project();
        let set = *me.local_set;
        set.with_current(|| {
            set.context.shared.set_waker(cx.waker());
            // Under the budget of the task that drives the set (as in
            // tokio): `run_until` is part of that task, not a task of its own.
            if let Poll::Ready(out) = me.future.poll(cx) {
                return Poll::Ready(out);
            }
            if set.tick() {
                // Work is left: come back after the runtime's other tasks.
                cx.waker().wake_by_ref();
            }
            Poll::Pending
        })
    }
}

impl Future for LocalSet {
    type Output = ();

    /// Awaiting a `LocalSet` runs its tasks until all of them completed.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let set = &*self;
        set.with_current(|| {
            set.context.shared.set_waker(cx.waker());
            if set.tick() {
                cx.waker().wake_by_ref();
                Poll::Pending
            } else if set.context.shared.owned.is_empty() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }
}

impl Drop for LocalSet {
    fn drop(&mut self) {
        // Cancel every task here, on the set's thread, with the set current
        // (their destructors may spawn; those spawns are cancelled at once).
        self.with_current(|| {
            self.context.shared.owned.close_and_shutdown_all(0);
            let queue = self.context.shared.queue.lock().unwrap().take();
            drop(queue);
            self.context.shared.waker.lock().unwrap().take();
        });
    }
}

impl fmt::Debug for LocalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalSet").finish_non_exhaustive()
    }
}

/// Keeps a [`LocalSet`] current until dropped ([`LocalSet::enter`]).
pub struct LocalEnterGuard {
    prev: Option<Rc<LocalContext>>,
    _not_send: PhantomData<*const ()>,
}

impl Drop for LocalEnterGuard {
    fn drop(&mut self) {
        let prev = self.prev.take();
        let _ = CURRENT.try_with(|c| *c.borrow_mut() = prev);
    }
}

impl fmt::Debug for LocalEnterGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalEnterGuard").finish()
    }
}
