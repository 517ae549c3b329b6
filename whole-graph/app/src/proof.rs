//! Evidence that the `tokio` every crate in the graph sees is tokiwa.
//!
//! `tokio::runtime::Handle::driver` and `tokio::runtime::Driver` exist only
//! in tokiwa, so this module compiles only when the application's `tokio`
//! is tokiwa. The tests then look at the driver from inside code that the
//! libraries spawn themselves (hyper-util's executor, tower's buffer
//! worker), which would panic with "no reactor running" or report another
//! runtime if those libraries had been built against crates.io tokio.

use tokio::runtime::{Driver, Handle};

/// The I/O driver of the runtime the caller runs on.
pub fn current_driver() -> Driver {
    Handle::current().driver()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{on_every_runtime, Config};
    use futures::SinkExt;
    use hyper::rt::{Executor, Sleep, Timer};
    use hyper_util::rt::{TokioExecutor, TokioTimer};
    use std::pin::Pin;
    use std::time::Duration;
    use tokio::sync::oneshot;
    use tokio_stream::wrappers::ReceiverStream;
    use tokio_stream::StreamExt;
    use tokio_util::sync::PollSender;

    #[test]
    fn hyper_util_spawns_onto_tokiwa() {
        on_every_runtime("hyper_util_executor", |config: Config| async move {
            let (tx, rx) = oneshot::channel();
            TokioExecutor::new().execute(async move {
                let _ = tx.send((
                    current_driver(),
                    tokio::runtime::Handle::current()
                        .driver_fallback_reason()
                        .map(str::to_owned),
                ));
            });
            let (driver, fallback) = rx.await.unwrap();
            assert_eq!(driver, config.driver);
            // Asked for explicitly, not chosen by `Auto`: no fallback.
            assert_eq!(fallback, None);
        });
    }

    #[test]
    fn hyper_util_timer_sleeps_on_tokiwa() {
        on_every_runtime("hyper_util_timer", |_| async move {
            let started = tokio::time::Instant::now();
            let sleep: Pin<Box<dyn Sleep>> = TokioTimer::new().sleep(Duration::from_millis(5));
            sleep.await;
            assert!(started.elapsed() >= Duration::from_millis(5));
        });
    }

    #[test]
    fn tokio_stream_and_tokio_util_take_the_applications_channels() {
        on_every_runtime("shared_vocabulary", |config: Config| async move {
            // tokio-util's `PollSender` and tokio-stream's `ReceiverStream`
            // take `tokio::sync::mpsc`'s own types: this compiles only if
            // their `tokio` is the application's (tokiwa, whose channel this
            // is), and the value crosses it from a spawned task.
            let (tx, rx) = tokio::sync::mpsc::channel::<Driver>(1);
            let mut sink = PollSender::new(tx);
            let mut stream = ReceiverStream::new(rx);
            tokio::spawn(async move {
                sink.send(current_driver()).await.unwrap();
                SinkExt::close(&mut sink).await.unwrap();
            });
            assert_eq!(stream.next().await, Some(config.driver));
            assert_eq!(stream.next().await, None, "the sender closed");
        });
    }
}
