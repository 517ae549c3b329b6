//! Scheduler settings the builder hands to the scheduler.
use crate::runtime::blocking::pool::Callback;

pub(crate) struct Config {
    /// The runtime's id and optional name (`Handle::id`, `Handle::name`).
    pub(crate) id: super::Id,
    pub(crate) name: Option<String>,
    /// For a `LocalRuntime`: the thread it belongs to, the only one that
    /// may spawn `!Send` tasks on it and the only one that drives it.
    pub(crate) local_owner: Option<std::thread::ThreadId>,
    /// Ticks between looks at the injection side before the local queue,
    /// if the builder set it; otherwise the scheduler's choice (fixed on a
    /// current-thread runtime, self-tuned by each multi-thread worker).
    pub(crate) global_queue_interval: Option<u32>,
    /// Ticks between non-blocking reaps of the driver.
    pub(crate) event_interval: u32,
    pub(crate) before_park: Option<Callback>,
    pub(crate) after_unpark: Option<Callback>,
    pub(crate) disable_lifo_slot: bool,
    /// The task hooks (`task_hooks.rs`).
    #[cfg(tokio_unstable)]
    pub(crate) hooks: super::TaskHooks,
    /// What a task's panic does to the runtime (current-thread only).
    #[cfg(tokio_unstable)]
    pub(crate) unhandled_panic: super::UnhandledPanic,
    /// The seeds of the threads that enter the runtime, when the builder
    /// was given one (`rng_seed.rs`).
    #[cfg(tokio_unstable)]
    pub(crate) seed_generator: Option<super::rng_seed::SeedGenerator>,
    /// The poll-time histogram's layout, when it is enabled.
    #[cfg(tokio_unstable)]
    pub(crate) poll_time_histogram: Option<super::metrics::Layout>,
    /// Whether tasks are stamped when scheduled, and the schedule-latency
    /// histogram's layout when it is enabled (`metrics/schedule_latency.rs`).
    #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
    pub(crate) schedule_latency: super::metrics::ScheduleLatencyConfig,
}
