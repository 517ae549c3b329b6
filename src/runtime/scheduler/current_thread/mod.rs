//! The current-thread scheduler: every task runs on the thread that calls
//! `block_on`.
//!
//! The *core* (the run queue and the parker) is held by whichever thread is
//! inside `block_on`; other threads that call `block_on` at the same time
//! poll their own future and wait for the core to come free. Tasks spawned
//! or woken on the driving thread go to the core's queue with no
//! synchronisation; from other threads they go to a mutex-protected
//! injection queue and unpark the driver.
//!
//! The loop alternates between the `block_on` future (polled only when its
//! waker fired) and up to `event_interval` tasks, then lets the driver reap
//! its events; every `global_queue_interval` ticks the injection queue is
//! served first so remote spawns are not starved.
//!
//! A task that wakes itself while it runs (`yield_now`, a spent
//! cooperative budget) is deferred, as in tokio: it runs again only after
//! the driver has been polled, at the end of the batch or as soon as
//! nothing else is ready, whichever comes first.
mod park;

use crate::loom::sync::atomic::{AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use crate::loom::sync::Mutex;
use crate::runtime::blocking::Spawner;

/// Ticks between looks at the injection queue first, unless the builder
/// sets it (tokio's default).
const GLOBAL_QUEUE_INTERVAL: u32 = 31;

/// How long an idle current-thread runtime spins for a blocking task's
/// completion before it sleeps (as multi-thread workers do).
const SPIN_BEFORE_PARK: std::time::Duration = std::time::Duration::from_micros(50);
use crate::runtime::config::Config;
use crate::runtime::context;
use crate::runtime::coop;
use crate::runtime::driver;
use crate::runtime::driver::{Parker, Reach, Unparker};
#[cfg(tokio_unstable)]
use crate::runtime::metrics::SchedulerMetrics;
use crate::runtime::metrics::WorkerMetrics;
use crate::runtime::park::{condvar, thread as park_thread};
use crate::runtime::scheduler;
use crate::runtime::task::{
    JoinHandle, LocalOwnedTasks, Notified, OwnedTasks, Schedule, SpawnMeta, Task,
};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::pin;
// std's `Arc` for the handle (see `loom.rs`) and for the `block_on` waker,
// which `std::task::Wake` requires; its flag is std's too, as nothing in
// the current-thread scheduler is loom-modelled.
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, Wake, Waker};
use std::time::Instant;

pub(crate) struct Handle {
    inject: Mutex<Option<VecDeque<Notified>>>,
    /// Length hint of `inject`, to skip the lock when empty. `Relaxed`: a
    /// stale zero only delays the task to the next loop turn, because the
    /// pusher also unparks the driver, and the unpark token (SeqCst)
    /// orders the push before the driver's next look.
    inject_len: AtomicUsize,
    /// Tasks spawned from other threads than the driving one (those go
    /// to the core's lock-free `LocalOwnedTasks`).
    pub(crate) owned: OwnedTasks,
    /// Tasks in the core's local list, for metrics (written only by the
    /// thread holding the core; `Relaxed`: a statistic).
    local_alive: AtomicUsize,
    pub(crate) config: Config,
    pub(crate) blocking_spawner: Spawner,
    unpark: Unparker,
    block_on_waker: std::sync::Arc<BlockOnWaker>,
    core: Mutex<Option<Box<Core>>>,
    core_waiters: Mutex<Vec<Waker>>,
    pub(crate) metrics: WorkerMetrics,
    /// One reactor and one timer wheel, driven by the `block_on` thread.
    pub(crate) driver: driver::Handle,
    /// A task panicked under `UnhandledPanic::ShutdownRuntime`: every
    /// `block_on` from then on panics. Sticky. Written and read only by
    /// the thread holding the core, and the core moves between threads
    /// through a mutex, so `Relaxed` suffices.
    #[cfg(tokio_unstable)]
    panicked: AtomicBool,
    #[cfg(tokio_unstable)]
    pub(crate) scheduler_metrics: crate::runtime::metrics::SchedulerMetrics,
}

/// The waker of the `block_on` future: sets a flag and unparks the driver.
struct BlockOnWaker {
    // Set by any thread, read by the driver; SeqCst pairs it with the unpark
    // token like the other wake sources.
    woken: AtomicBool,
    unpark: Unparker,
}

impl Wake for BlockOnWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref()
    }
    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.woken.store(true, SeqCst);
        self.unpark.unpark();
    }
}

pub(crate) struct Core {
    tasks: VecDeque<Notified>,
    /// Tasks spawned on the driving thread.
    owned: LocalOwnedTasks,
    /// Tasks that yielded (`yield_now`, or a spent budget): they wait here
    /// until the driver has been polled, at the end of the batch or as soon
    /// as nothing else is ready, and then go to the back of `tasks`. So a
    /// yielding task lets I/O and timers make progress, and waits behind
    /// the tasks they woke and the remote spawns, but is never starved by
    /// tasks that keep each other busy.
    yielded: VecDeque<Notified>,
    tick: u32,
    park: Option<Parker>,
    polls: u64,
    /// When the busy period being measured began (`block_on` took the
    /// core, or the thread last woke): see `WorkerMetrics`.
    busy_since: Instant,
    /// The poll count when the thread last woke from a park (0 before its
    /// first: as in tokio, sleeping for nothing from the start counts a
    /// no-op too).
    #[cfg(tokio_unstable)]
    polls_at_unpark: u64,
}

impl Core {
    /// Publishes the run queue's length (`worker_local_queue_depth`) after
    /// it changed: a store by the core's holder, the counters' one writer
    /// (`WorkerMetrics`).
    fn publish_depth(&self, metrics: &WorkerMetrics) {
        metrics
            .local_queue_depth
            .store(self.tasks.len() as u64, Relaxed);
    }
}

/// The scheduler context of the driving thread.
pub(crate) struct Context {
    handle: Arc<Handle>,
    core: RefCell<Option<Box<Core>>>,
}

impl Handle {
    pub(crate) fn new(
        config: Config,
        blocking_spawner: Spawner,
        driver_config: &driver::Config,
        thread_name: &str,
    ) -> std::io::Result<Arc<Handle>> {
        let (driver, mut parkers) = driver::Handle::new(driver_config, 1, thread_name)?;
        // Its core waits for a `block_on`, which may never come.
        driver.detach(0);
        let park = parkers.pop().expect("one parker");
        let unpark = park.unparker();
        let metrics = WorkerMetrics::new(&config);
        Ok(Arc::new(Handle {
            inject: Mutex::new(Some(VecDeque::new())),
            inject_len: AtomicUsize::new(0),
            owned: OwnedTasks::new(1),
            local_alive: AtomicUsize::new(0),
            config,
            blocking_spawner,
            block_on_waker: std::sync::Arc::new(BlockOnWaker {
                woken: AtomicBool::new(true),
                unpark: unpark.clone(),
            }),
            unpark,
            core: Mutex::new(Some(Box::new(Core {
                tasks: VecDeque::with_capacity(64),
                owned: LocalOwnedTasks::new(),
                yielded: VecDeque::new(),
                tick: 0,
                park: Some(park),
                polls: 0,
                busy_since: Instant::now(),
                #[cfg(tokio_unstable)]
                polls_at_unpark: 0,
            }))),
            core_waiters: Mutex::new(Vec::new()),
            metrics,
            driver,
            #[cfg(tokio_unstable)]
            panicked: AtomicBool::new(false),
            #[cfg(tokio_unstable)]
            scheduler_metrics: Default::default(),
        }))
    }

    pub(crate) fn spawn<F>(
        self: &Arc<Self>,
        future: F,
        meta: SpawnMeta<'_>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        // On the driving thread the task goes to the core's own list and
        // queue, with no lock; from anywhere else to the shared list.
        let mut future = Some(future);
        let local = context::with_scheduler(|cx| match cx {
            Some(scheduler::Context::CurrentThread(cx)) if Arc::ptr_eq(&cx.handle, self) => {
                if self.shut_down_by_panic() {
                    // The shared list is closed: the task is cancelled there.
                    return None;
                }
                let mut slot = cx.core.borrow_mut();
                let core = slot.as_mut()?;
                let future = future.take().expect("future taken once");
                let (raw, notified) = core.owned.bind(future, self.clone(), &meta);
                #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
                self.config.schedule_latency.stamp(&notified);
                core.tasks.push_back(notified);
                core.publish_depth(&self.metrics);
                self.local_alive.store(core.owned.len(), Relaxed);
                #[cfg(tokio_unstable)]
                WorkerMetrics::increment(&self.metrics.local_schedule_count);
                Some(raw)
            }
            _ => None,
        });
        if let Some(raw) = local {
            // The task is queued but cannot run before this returns (only
            // this thread runs it): the hook still precedes its first poll.
            #[cfg(tokio_unstable)]
            {
                SchedulerMetrics::inc(&self.scheduler_metrics.spawned_tasks);
                self.config.hooks.spawned(&meta);
            }
            // SAFETY: `bind` returns the join handle's reference for a task
            // of output `F::Output`.
            return unsafe { JoinHandle::new(raw) };
        }
        let future = future.expect("future not taken");
        let (raw, notified) = self.owned.bind(future, self.clone(), &meta);
        #[cfg(tokio_unstable)]
        {
            SchedulerMetrics::inc(&self.scheduler_metrics.spawned_tasks);
            self.config.hooks.spawned(&meta);
        }
        if let Some(notified) = notified {
            self.schedule_task(notified, false);
        }
        // SAFETY: `bind` returns the join handle's reference for a task of
        // output `F::Output`.
        unsafe { JoinHandle::new(raw) }
    }

    fn schedule_task(&self, task: Notified, is_yield: bool) {
        #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
        self.config.schedule_latency.stamp(&task);
        let task = context::with_scheduler(|cx| match cx {
            Some(scheduler::Context::CurrentThread(cx)) if std::ptr::eq(&*cx.handle, self) => {
                match cx.core.borrow_mut().as_mut() {
                    Some(core) => {
                        #[cfg(tokio_unstable)]
                        WorkerMetrics::increment(&self.metrics.local_schedule_count);
                        if is_yield {
                            core.yielded.push_back(task);
                        } else {
                            core.tasks.push_back(task);
                            core.publish_depth(&self.metrics);
                        }
                        None
                    }
                    None => Some(task),
                }
            }
            _ => Some(task),
        });
        if let Some(task) = task {
            self.push_remote(task);
        }
    }

    fn push_remote(&self, task: Notified) {
        #[cfg(tokio_unstable)]
        SchedulerMetrics::inc(&self.scheduler_metrics.remote_schedules);
        let mut inject = self.inject.lock().unwrap();
        match inject.as_mut() {
            Some(queue) => {
                queue.push_back(task);
                self.inject_len.fetch_add(1, Relaxed);
                drop(inject);
                self.unpark.unpark();
            }
            // Shut down: the task was (or will be) cancelled by the list.
            None => {
                drop(inject);
                drop(task);
            }
        }
    }

    fn pop_remote(&self) -> Option<Notified> {
        if self.inject_len.load(Relaxed) == 0 {
            return None;
        }
        let mut inject = self.inject.lock().unwrap();
        let task = inject.as_mut()?.pop_front();
        if task.is_some() {
            self.inject_len.fetch_sub(1, Relaxed);
        }
        task
    }

    /// Takes the core for this thread, which then drives the runtime: it
    /// reaps its own events (and in io_uring mode becomes its ring's
    /// issuer). The error is the kernel's refusal of a ring for this
    /// thread (`EMFILE`, say, when the core last ran on another thread);
    /// the core is then still taken, and the ring still its last owner's.
    fn take_core(&self) -> Option<(Box<Core>, std::io::Result<()>)> {
        let core = self.core.lock().unwrap().take()?;
        #[cfg(tokio_unstable)]
        self.metrics.set_thread_id();
        let attached = self.driver.attach(0);
        Some((core, attached))
    }

    /// [`Handle::take_core`] for `block_on`.
    ///
    /// # Panics
    ///
    /// When the kernel refuses this thread a ring. The core is put back
    /// first, whole, so the runtime keeps working for the next `block_on`.
    #[track_caller]
    fn take_core_to_drive(&self) -> Option<Box<Core>> {
        let (core, attached) = self.take_core()?;
        if let Err(e) = attached {
            self.put_core(core);
            panic!("tokiwa: this thread cannot drive the runtime: {e}");
        }
        Some(core)
    }

    /// Asks to be woken when the core is handed back (once per waker).
    fn register_core_waiter(&self, waker: &Waker) {
        let mut waiters = self.core_waiters.lock().unwrap();
        if !waiters.iter().any(|w| w.will_wake(waker)) {
            waiters.push(waker.clone());
        }
    }

    fn put_core(&self, core: Box<Core>) {
        // Nobody drives the runtime now: its poll thread reaps the events.
        self.driver.detach(0);
        *self.core.lock().unwrap() = Some(core);
        for waker in self.core_waiters.lock().unwrap().drain(..) {
            waker.wake();
        }
    }

    /// Drives the runtime on this thread until `future` completes.
    #[track_caller]
    pub(crate) fn block_on<F: Future>(self: &Arc<Self>, future: F) -> F::Output {
        let rt = scheduler::Handle::CurrentThread(self.clone());
        let _enter = context::enter_runtime(&rt, false);
        let mut future = pin!(future);
        let mut waiter: Option<(condvar::Parker, Waker)> = None;
        loop {
            if let Some(core) = self.take_core_to_drive() {
                return self.drive(core, future.as_mut());
            }
            // Another thread drives the runtime: poll our future on our own
            // and wait for it or for the core.
            let (parker, waker) = waiter.get_or_insert_with(park_thread::current_waker_and_parker);
            self.register_core_waiter(waker);
            if self.core.lock().unwrap().is_some() {
                continue;
            }
            let mut cx = TaskContext::from_waker(waker);
            if let Poll::Ready(out) = coop::budget(|| future.as_mut().poll(&mut cx)) {
                return out;
            }
            parker.park(None);
        }
    }

    fn drive<F: Future>(
        self: &Arc<Self>,
        mut core: Box<Core>,
        mut future: std::pin::Pin<&mut F>,
    ) -> F::Output {
        // Busy from now until it parks or hands the core back.
        core.busy_since = Instant::now();
        let _slack = crate::runtime::park::condvar::PreciseTimerSlack::while_driving();
        /// Gives the core back even if the future or a task hook panics.
        struct Release<'a> {
            handle: &'a Handle,
            cx: &'a scheduler::Context,
        }
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                let scheduler::Context::CurrentThread(cx) = self.cx else {
                    return;
                };
                if let Some(core) = cx.core.borrow_mut().take() {
                    // Before the core can move to another thread: no
                    // operation may stay in flight in this thread's ring.
                    self.handle.driver.release(0);
                    self.handle.metrics.poll_count.store(core.polls, Relaxed);
                    self.handle.metrics.add_busy(core.busy_since);
                    self.handle.put_core(core);
                }
            }
        }

        let cx = scheduler::Context::CurrentThread(Context {
            handle: self.clone(),
            core: RefCell::new(Some(core)),
        });
        let _release = Release {
            handle: self,
            cx: &cx,
        };
        let scheduler::Context::CurrentThread(local) = &cx else {
            unreachable!()
        };
        context::set_scheduler(&cx, || {
            let waker = Waker::from(self.block_on_waker.clone());
            let mut task_cx = TaskContext::from_waker(&waker);
            // The future must be polled at least once.
            self.block_on_waker.woken.store(true, SeqCst);
            loop {
                if self.block_on_waker.woken.swap(false, SeqCst) {
                    if let Poll::Ready(out) = coop::budget(|| future.as_mut().poll(&mut task_cx)) {
                        return out;
                    }
                }
                if self.run_tasks(local) {
                    panic!(
                        "a spawned task panicked and the runtime is configured to shut down on unhandled panic"
                    );
                }
            }
        })
    }

    /// Whether a task's panic shut the runtime down
    /// (`UnhandledPanic::ShutdownRuntime`).
    fn shut_down_by_panic(&self) -> bool {
        #[cfg(tokio_unstable)]
        return self.panicked.load(Relaxed);
        #[cfg(not(tokio_unstable))]
        false
    }

    /// A task panicked (called on the driving thread, inside the task's
    /// run): under `UnhandledPanic::ShutdownRuntime`, cancels every task,
    /// closes the lists to new ones and marks the runtime, whose
    /// `block_on` then panics before it runs another task. As in tokio,
    /// nothing happens when the core is not in reach (the runtime is
    /// already shutting down).
    #[cfg(tokio_unstable)]
    fn on_unhandled_panic(self: &Arc<Self>) {
        if !matches!(
            self.config.unhandled_panic,
            crate::runtime::UnhandledPanic::ShutdownRuntime
        ) {
            return;
        }
        context::with_scheduler(|cx| {
            let Some(scheduler::Context::CurrentThread(cx)) = cx else {
                return;
            };
            if !Arc::ptr_eq(&cx.handle, self) {
                return;
            }
            // Out of the context while the tasks are cancelled, so their
            // destructors' spawns and completions do not reach for it
            // (a spawn goes to the closed shared list and is cancelled).
            let Some(mut core) = cx.core.borrow_mut().take() else {
                return;
            };
            self.panicked.store(true, Relaxed);
            self.owned.close_and_shutdown_all(0);
            core.owned.shutdown_all();
            self.local_alive.store(core.owned.len(), Relaxed);
            *cx.core.borrow_mut() = Some(core);
        });
    }

    /// Runs up to `event_interval` tasks, then reaps the driver; parks when
    /// there is nothing to do. Returns `true`, having run no more tasks,
    /// once a task's panic shut the runtime down.
    ///
    /// (No mean poll time is measured here: tokio's current-thread runtime
    /// reports zero for `worker_mean_poll_time`.)
    fn run_tasks(&self, cx: &Context) -> bool {
        // The `block_on` future is polled again only after this batch, even
        // if it woke itself meanwhile: a future that keeps waking itself
        // must not starve the tasks it waits for.
        for _ in 0..self.config.event_interval {
            if self.shut_down_by_panic() {
                return true;
            }
            let task = {
                let mut slot = cx.core.borrow_mut();
                let core = slot.as_mut().expect("core missing");
                core.tick = core.tick.wrapping_add(1);
                let interval = self
                    .config
                    .global_queue_interval
                    .unwrap_or(GLOBAL_QUEUE_INTERVAL);
                let task = if core.tick % interval == 0 {
                    self.pop_remote().or_else(|| core.tasks.pop_front())
                } else {
                    core.tasks.pop_front().or_else(|| self.pop_remote())
                };
                if task.is_some() {
                    core.polls += 1;
                    core.publish_depth(&self.metrics);
                }
                task
            };
            match task {
                Some(task) => {
                    // Timed only when the poll-time histogram is on.
                    #[cfg(tokio_unstable)]
                    let started = self.metrics.poll_started();
                    coop::budget(|| scheduler::run_task(&self.config, &self.metrics, task));
                    #[cfg(tokio_unstable)]
                    self.metrics.poll_ended(started);
                }
                None => {
                    // Only yielded tasks left: look at the driver, without
                    // sleeping, before they run again.
                    let yielded = !cx
                        .core
                        .borrow()
                        .as_ref()
                        .expect("core missing")
                        .yielded
                        .is_empty();
                    self.park(cx, yielded.then_some(std::time::Duration::ZERO));
                    self.requeue_yielded(cx);
                    return false;
                }
            }
        }
        self.park(cx, Some(std::time::Duration::ZERO));
        self.requeue_yielded(cx);
        false
    }

    /// After the driver was polled: the tasks that yielded go to the back
    /// of the run queue, behind those the driver's events woke.
    fn requeue_yielded(&self, cx: &Context) {
        let mut slot = cx.core.borrow_mut();
        let core = slot.as_mut().expect("core missing");
        let Core { tasks, yielded, .. } = &mut **core;
        if !yielded.is_empty() {
            tasks.append(yielded);
            core.publish_depth(&self.metrics);
        }
    }

    /// Spins up to [`SPIN_BEFORE_PARK`] for a task woken by a blocking
    /// task's completion (from another thread) or by a completion of a
    /// ring operation (reaped here). Returns whether one was.
    fn spin_for_work(&self, cx: &Context) -> bool {
        let deadline = std::time::Instant::now() + SPIN_BEFORE_PARK;
        loop {
            let ops = self.driver.has_ops_in_flight();
            if ops {
                self.driver.maintain(0, Reach::Own);
            }
            let local = !cx
                .core
                .borrow()
                .as_ref()
                .expect("core missing")
                .tasks
                .is_empty();
            if local || self.inject_len.load(Relaxed) != 0 || self.block_on_waker.woken.load(SeqCst)
            {
                return true;
            }
            // A finished blocking task woke its waiter before it left the
            // count, and a reaped operation left the table: nothing more is
            // coming.
            if (!ops && !self.blocking_spawner.has_tasks_in_flight())
                || std::time::Instant::now() >= deadline
            {
                return false;
            }
            std::hint::spin_loop();
        }
    }

    /// Parks the runtime's thread through the driver's park sequence
    /// (`runtime/driver/park.rs`) until there may be work; with a timeout
    /// (zero: the end of a batch of tasks), only looks at the driver and
    /// consumes a pending wakeup, without sleeping.
    fn park(&self, cx: &Context, timeout: Option<std::time::Duration>) {
        let mut park = {
            let mut slot = cx.core.borrow_mut();
            let core = slot.as_mut().expect("core missing");
            core.park.take().expect("park missing")
        };
        let slept = match timeout {
            Some(timeout) => {
                {
                    // The end of a batch: publish what a busy thread did.
                    let mut slot = cx.core.borrow_mut();
                    let core = slot.as_mut().expect("core missing");
                    self.metrics.poll_count.store(core.polls, Relaxed);
                    core.busy_since = self.metrics.add_busy(core.busy_since);
                }
                self.driver.maintain(0, Reach::Own);
                park.park(Some(timeout));
                false
            }
            None => {
                let mut site = park::ThreadPark {
                    handle: self,
                    cx,
                    slept: false,
                };
                self.driver.park(0, &mut park, &mut site);
                site.slept
            }
        };
        #[cfg(tokio_unstable)]
        if slept {
            // Slept again without polling since the last wake: a wake for
            // nothing.
            let mut slot = cx.core.borrow_mut();
            let core = slot.as_mut().expect("core missing");
            if core.polls_at_unpark == core.polls {
                WorkerMetrics::increment(&self.metrics.noop_count);
            }
            core.polls_at_unpark = core.polls;
        }
        if slept {
            if let Some(f) = &self.config.after_unpark {
                f();
            }
        }
        let mut slot = cx.core.borrow_mut();
        let core = slot.as_mut().expect("core missing");
        core.park = Some(park);
    }

    /// Cancels every task and closes the queues (runtime drop).
    pub(crate) fn shutdown(self: &Arc<Self>) {
        let rt = scheduler::Handle::CurrentThread(self.clone());
        // Tasks' destructors see this runtime as current (they may spawn,
        // which is refused); during thread exit the context may be gone.
        let _current = context::try_set_current(&rt);
        // Wait for a thread still inside `block_on` to hand the core back.
        let (mut parker, waker) = park_thread::current_waker_and_parker();
        let mut core = loop {
            // Shutdown needs no ring of its own: if the kernel refuses one
            // here, the tasks' resources are let go through requests to
            // the ring's last owner, which the driver's shutdown closes.
            if let Some((core, _attached)) = self.take_core() {
                break core;
            }
            if std::thread::panicking() {
                return;
            }
            self.register_core_waiter(&waker);
            if self.core.lock().unwrap().is_some() {
                continue;
            }
            parker.park(None);
        };
        // Close the shared list first, so spawns from the destructors run
        // below are refused, then cancel both lists' tasks.
        self.owned.close_and_shutdown_all(0);
        core.owned.shutdown_all();
        self.local_alive.store(0, Relaxed);
        core.tasks.clear();
        core.yielded.clear();
        let remote = self.inject.lock().unwrap().take();
        self.inject_len.store(0, Relaxed);
        drop(remote);
        // Tasks spawned by destructors above were cancelled by the closed
        // list; drop any notification they left.
        core.tasks.clear();
        core.publish_depth(&self.metrics);
        drop(core);
        // The tasks and their resources are gone: stop the drivers.
        self.driver.shutdown();
    }

    /// Live tasks, in both lists.
    pub(crate) fn num_alive_tasks(&self) -> usize {
        self.owned.len() + self.local_alive.load(Relaxed)
    }

    pub(crate) fn injection_queue_depth(&self) -> usize {
        self.inject_len.load(Relaxed)
    }
}

impl Schedule for Arc<Handle> {
    fn release(&self, task: &Task) -> Option<Task> {
        if !LocalOwnedTasks::is_local(task) {
            return self.owned.remove(task);
        }
        // A local task completes on the thread holding the core (tasks only
        // run there). Without the core in reach we are in shutdown, which
        // drained the local list first: nothing to release.
        let handle: &Handle = self;
        context::with_scheduler(|cx| match cx {
            Some(scheduler::Context::CurrentThread(cx)) if std::ptr::eq(&*cx.handle, handle) => {
                let mut slot = cx.core.borrow_mut();
                let core = slot.as_mut()?;
                let released = core.owned.remove(task);
                handle.local_alive.store(core.owned.len(), Relaxed);
                released
            }
            _ => None,
        })
    }

    fn schedule(&self, task: Notified) {
        self.schedule_task(task, false);
    }

    fn yield_now(&self, task: Notified) {
        self.schedule_task(task, true);
    }

    #[cfg(tokio_unstable)]
    fn terminate_hook(&self) -> Option<&crate::runtime::TaskCallback> {
        self.config.hooks.terminate.as_ref()
    }

    #[cfg(tokio_unstable)]
    fn unhandled_panic(&self) {
        self.on_unhandled_panic();
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("current_thread::Handle")
            .finish_non_exhaustive()
    }
}
