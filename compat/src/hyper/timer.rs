//! hyper's timer on tokiwa's timer wheel.
//!
//! hyper hands out its sleeps as `Pin<Box<dyn hyper::rt::Sleep>>` and may
//! ask the timer to move one (`reset`); a sleep of ours is moved in place
//! (no new timer entry), anything else is replaced.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// A [`hyper::rt::Timer`] whose sleeps are [`tokiwa::time::Sleep`]s.
///
/// Like `tokiwa::time::sleep`, its sleeps must be created on a tokiwa
/// runtime with the timer enabled (hyper creates them inside its futures).
#[derive(Clone, Copy, Debug, Default)]
pub struct TokiwaTimer;

impl TokiwaTimer {
    /// A new timer (it holds nothing: every runtime has its own wheel).
    pub fn new() -> TokiwaTimer {
        TokiwaTimer
    }
}

pin_project_lite::pin_project! {
    /// hyper's view of a `tokiwa::time::Sleep`.
    #[derive(Debug)]
    struct TokiwaSleep {
        #[pin]
        inner: tokiwa::time::Sleep,
    }
}

impl Future for TokiwaSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.project().inner.poll(cx)
    }
}

impl hyper::rt::Sleep for TokiwaSleep {}

impl hyper::rt::Timer for TokiwaTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(TokiwaSleep {
            inner: tokiwa::time::sleep(duration),
        })
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(TokiwaSleep {
            inner: tokiwa::time::sleep_until(tokiwa::time::Instant::from_std(deadline)),
        })
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn hyper::rt::Sleep>>, new_deadline: Instant) {
        match sleep.as_mut().downcast_mut_pin::<TokiwaSleep>() {
            Some(ours) => ours
                .project()
                .inner
                .reset(tokiwa::time::Instant::from_std(new_deadline)),
            None => *sleep = self.sleep_until(new_deadline),
        }
    }
}
