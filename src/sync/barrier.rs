//! `Barrier`: lets `n` tasks wait until all of them have arrived.
//!
//! A count of arrivals and a generation number under a lock; the last
//! task to arrive starts the next generation and wakes the others through
//! a [`Notify`] (`notify_waiters`). A waiter creates its `Notified` before
//! it checks the generation, so the wakeup cannot slip between the two.
//!
//! A waiter that is not the leader spends a unit of the task's cooperative
//! budget (a `Notified` does not): tokio's waits through a `watch`
//! receiver, whose `changed` does, so out of budget it yields even once
//! its generation is complete. The leader never waits and spends none.
use super::budget::cooperative;
use super::Notify;
use crate::loom::sync::Mutex;
use std::pin::pin;

/// A barrier for `n` tasks; reusable, one generation after another.
#[derive(Debug)]
pub struct Barrier {
    /// tokio-console's resource (`util/trace.rs`).
    ///
    /// Held, not read: the console lists the resource until the span
    /// closes, which is when the primitive is dropped.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    #[allow(dead_code)]
    resource_span: tracing::Span,
    state: Mutex<BarrierState>,
    notify: Notify,
    n: usize,
}

#[derive(Debug)]
struct BarrierState {
    arrived: usize,
    generation: usize,
}

impl Barrier {
    /// Creates a barrier that releases its tasks `n` at a time (0 behaves
    /// as 1, as `std::sync::Barrier`).
    #[cfg_attr(all(tokio_unstable, feature = "tracing"), track_caller)]
    pub fn new(n: usize) -> Barrier {
        Barrier {
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span: {
                let resource_span = crate::util::trace::sync_resource_span!(
                    "tokio::sync::barrier",
                    "Barrier",
                    std::panic::Location::caller()
                );
                resource_span.in_scope(|| {
                    tracing::trace!(target: "runtime::resource::state_update", size = n.max(1));
                    tracing::trace!(target: "runtime::resource::state_update", arrived = 0);
                });
                resource_span
            },
            state: Mutex::new(BarrierState {
                arrived: 0,
                generation: 1,
            }),
            notify: Notify::new(),
            n: n.max(1),
        }
    }

    /// Waits until `n` tasks have called `wait`. Exactly one of them (the
    /// last to arrive) gets a result whose
    /// [`is_leader`](BarrierWaitResult::is_leader) is `true`.
    ///
    /// Not cancel safe: a dropped `wait` still counts as arrived.
    pub async fn wait(&self) -> BarrierWaitResult {
        let generation = {
            let mut state = self
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let generation = state.generation;
            state.arrived += 1;
            if state.arrived == self.n {
                state.arrived = 0;
                state.generation = state.generation.wrapping_add(1);
                drop(state);
                self.notify.notify_waiters();
                return BarrierWaitResult(true);
            }
            generation
        };
        cooperative(async {
            loop {
                let notified = pin!(self.notify.notified());
                let current = self
                    .state
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .generation;
                if current != generation {
                    return BarrierWaitResult(false);
                }
                notified.await;
            }
        })
        .await
    }
}

/// What [`Barrier::wait`] returns.
#[derive(Debug, Clone)]
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// Whether this task was the one that released the others.
    pub fn is_leader(&self) -> bool {
        self.0
    }
}
