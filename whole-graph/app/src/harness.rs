//! Runs a test body on every runtime configuration tokiwa offers an
//! application: both I/O drivers (epoll "legacy" and io_uring) times both
//! flavours (current-thread and multi-thread).
//!
//! The driver is chosen with tokiwa's `Builder::driver`, reached through
//! `tokio::runtime` (the application sees tokiwa as `tokio`). io_uring is
//! skipped, with the kernel's reason printed, only where building a runtime
//! on it fails (a kernel or sandbox that refuses `io_uring_setup`).
//!
//! `TOKIWA_DRIVER=legacy` or `TOKIWA_DRIVER=uring` (the variable tokiwa's
//! builder reads when not told) narrows the runs to that driver, so CI can
//! run the suite once per driver; unset or `auto`, both drivers run.
//!
//! Every run has a deadline: a body that hangs (a lost wakeup, a starved
//! task) fails the test, naming the configuration, instead of hanging
//! `cargo test`.

use std::future::Future;
use std::sync::mpsc;
use std::time::Duration;

use tokio::runtime::{Builder, Driver, Handle, Runtime};

/// How long one configuration's run may take before the test fails.
const DEADLINE: Duration = Duration::from_secs(60);

/// The runtime flavours a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    CurrentThread,
    MultiThread,
}

/// One configuration: a driver and a flavour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub driver: Driver,
    pub flavor: Flavor,
}

/// Builds the runtime for `config`, or says why the kernel refuses it.
pub fn build(config: Config) -> std::io::Result<Runtime> {
    let mut builder = match config.flavor {
        Flavor::CurrentThread => Builder::new_current_thread(),
        Flavor::MultiThread => {
            let mut builder = Builder::new_multi_thread();
            builder.worker_threads(2);
            builder
        }
    };
    builder.enable_all().driver(config.driver).build()
}

/// The drivers to run on: both, unless `TOKIWA_DRIVER` names one.
pub fn drivers() -> Vec<Driver> {
    let chosen = std::env::var("TOKIWA_DRIVER").unwrap_or_default();
    match chosen.trim().to_ascii_lowercase().as_str() {
        "" | "auto" => vec![Driver::Legacy, Driver::Uring],
        "legacy" | "epoll" => vec![Driver::Legacy],
        "uring" | "io_uring" | "io-uring" => vec![Driver::Uring],
        other => panic!("TOKIWA_DRIVER={other:?}: expected auto, legacy or uring"),
    }
}

/// Runs `body` to completion on each configuration (the drivers of
/// [`drivers`], times both flavours), each on a fresh runtime, and checks
/// first that the runtime really runs the driver asked for.
///
/// Panics (failing the test) when `body` panics, when it takes longer than
/// the deadline, or when the legacy driver cannot be built.
pub fn on_every_runtime<F, Fut>(test: &str, body: F)
where
    F: Fn(Config) -> Fut + Send + Sync + Clone + 'static,
    Fut: Future<Output = ()>,
{
    for driver in drivers() {
        for flavor in [Flavor::CurrentThread, Flavor::MultiThread] {
            let config = Config { driver, flavor };
            let runtime = match build(config) {
                Ok(runtime) => runtime,
                Err(err) if driver == Driver::Uring => {
                    eprintln!(
                        "{test}: skipped on io_uring ({flavor:?}): the kernel refuses it: {err}"
                    );
                    continue;
                }
                Err(err) => panic!("{test}: cannot build a {config:?} runtime: {err}"),
            };
            run_with_deadline(test, config, runtime, body.clone());
        }
    }
}

fn run_with_deadline<F, Fut>(test: &str, config: Config, runtime: Runtime, body: F)
where
    F: Fn(Config) -> Fut + Send + 'static,
    Fut: Future<Output = ()>,
{
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let thread = std::thread::Builder::new()
        .name(format!("{test} {config:?}"))
        .spawn(move || {
            runtime.block_on(async {
                assert_eq!(
                    Handle::current().driver(),
                    config.driver,
                    "the runtime does not run the driver it was built with"
                );
                body(config).await;
            });
            // Shutting the runtime down is part of the run: a task that
            // cannot be cancelled would hang here.
            drop(runtime);
            let _ = done_tx.send(());
        })
        .expect("spawn the test's runtime thread");
    match done_rx.recv_timeout(DEADLINE) {
        // Finished, or panicked (the sender was dropped): join reports which.
        Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(panic) = thread.join() {
                eprintln!("{test}: failed on {config:?}");
                std::panic::resume_unwind(panic);
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{test}: did not finish within {DEADLINE:?} on {config:?}")
        }
    }
}
