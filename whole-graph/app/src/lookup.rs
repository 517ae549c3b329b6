//! A slow backend behind tower's `Buffer` (requests queue to one worker
//! task, which tower spawns with `tokio::spawn`) and `Timeout` (a
//! `tokio::time::sleep` raced against each call).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tower::buffer::Buffer;
use tower::timeout::Timeout;
use tower::{BoxError, Service, ServiceBuilder, ServiceExt};

/// A backend that answers each request after the delay it names.
#[derive(Clone, Copy, Debug, Default)]
pub struct SlowBackend;

impl Service<Duration> for SlowBackend {
    type Response = String;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<String, BoxError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, delay: Duration) -> Self::Future {
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            Ok(format!("answered after {}ms", delay.as_millis()))
        })
    }
}

/// The backend as the application calls it: at most `capacity` requests
/// queued, each given up after `limit`.
pub type Lookup = Buffer<Duration, <Timeout<SlowBackend> as Service<Duration>>::Future>;

/// Builds [`Lookup`]; must be called inside the runtime (the buffer's
/// worker is spawned on it).
pub fn lookup(capacity: usize, limit: Duration) -> Lookup {
    ServiceBuilder::new()
        .buffer(capacity)
        .timeout(limit)
        .service(SlowBackend)
}

/// One call through `service` (a clone of it: the buffer's handles are
/// cheap), boxed so that callers can spawn it.
pub fn ask(
    service: &Lookup,
    delay: Duration,
) -> Pin<Box<dyn Future<Output = Result<String, BoxError>> + Send + 'static>> {
    Box::pin(service.clone().oneshot(delay))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::on_every_runtime;

    #[test]
    fn buffer_serves_concurrent_callers() {
        on_every_runtime("tower_buffer", |_| async move {
            let service = lookup(4, Duration::from_secs(30));
            let callers: Vec<_> = (0..16u64)
                .map(|i| tokio::spawn(ask(&service, Duration::from_millis(i % 3))))
                .collect();
            for (i, caller) in callers.into_iter().enumerate() {
                let answer = caller.await.unwrap().unwrap();
                assert_eq!(answer, format!("answered after {}ms", i % 3));
            }
        });
    }

    #[test]
    fn timeout_gives_up_on_a_slow_call() {
        on_every_runtime("tower_timeout", |_| async move {
            let service = lookup(4, Duration::from_millis(50));
            let started = tokio::time::Instant::now();
            let err = ask(&service, Duration::from_secs(30))
                .await
                .expect_err("a 30 s call under a 50 ms timeout");
            assert!(
                err.is::<tower::timeout::error::Elapsed>(),
                "expected tower's Elapsed, got {err}"
            );
            let waited = started.elapsed();
            assert!(
                waited >= Duration::from_millis(50),
                "gave up early: {waited:?}"
            );
            assert!(waited < Duration::from_secs(30));

            // The buffer's worker survives a timed-out call.
            assert_eq!(
                ask(&service, Duration::ZERO).await.unwrap(),
                "answered after 0ms"
            );
        });
    }
}
