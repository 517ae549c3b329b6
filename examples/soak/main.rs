//! The soak: a mixed load on one runtime for a given time, with its
//! invariants checked all along. It is the long run that catches what unit
//! tests cannot: a wakeup lost once in ten million, a descriptor or a buffer
//! kept per connection, a task that never finishes.
//!
//! ```text
//! cargo run --release --example soak --features full,uring -- --secs 600 --driver uring
//! cargo run --release --example soak --features full -- --secs 60 --driver legacy
//! ```
//!
//! The load, all at once on a two-worker multi-thread runtime:
//!
//! * [`echo`]: TCP clients against an echo server in the same runtime, each
//!   message of a random size checked byte for byte; a client sometimes
//!   drops its connection in the middle of a message.
//! * [`timers`]: sleeps, timeouts and intervals of random lengths; none
//!   may fire early.
//! * [`contention`]: `Mutex`, `RwLock`, `Semaphore`, bounded `mpsc`,
//!   `broadcast`, `watch`, `Notify` and `oneshot` under contention, each
//!   round checked against what was sent.
//! * [`processes`]: `spawn_blocking` jobs, signals the process sends
//!   itself, and child processes (`cat`) whose output is compared with
//!   their input.
//!
//! What is checked, continuously ([`monitor`]): every workload makes
//! progress in every window (a lost wakeup stalls one), the descriptors and
//! live heap bytes stay within a bound of what warm-up reached, and no
//! workload reports a wrong result. At the end every workload stops, every
//! task it spawned is joined, and the descriptors and heap come back to
//! what they were before the load. It prints one line per period and a
//! summary with the wakes (task polls) per second; the exit status is 0
//! only if every check held.
mod alloc;
mod contention;
mod echo;
mod monitor;
mod processes;
mod rng;
mod stats;
mod timers;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use stats::Stats;
use tokiwa::runtime::{Builder, Driver};

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;

/// The command line.
struct Options {
    secs: u64,
    driver: Driver,
    workers: usize,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        secs: 60,
        driver: Driver::Auto,
        workers: 2,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--secs" => {
                options.secs = value()?.parse().map_err(|e| format!("--secs: {e}"))?;
            }
            "--workers" => {
                options.workers = value()?.parse().map_err(|e| format!("--workers: {e}"))?;
            }
            "--driver" => {
                options.driver = match value()?.as_str() {
                    "legacy" => Driver::Legacy,
                    "uring" => Driver::Uring,
                    "auto" => Driver::Auto,
                    other => return Err(format!("--driver: unknown driver {other:?}")),
                };
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if options.secs < 10 {
        return Err("--secs: at least 10 (warm-up is the first tenth, at least 5 s)".into());
    }
    Ok(options)
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(e) => {
            eprintln!(
                "soak: {e}\nusage: soak [--secs N] [--driver legacy|uring|auto] [--workers N]"
            );
            return ExitCode::from(2);
        }
    };
    let runtime = match Builder::new_multi_thread()
        .worker_threads(options.workers)
        .driver(options.driver)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("soak: cannot build a {} runtime: {e}", options.driver);
            return ExitCode::FAILURE;
        }
    };
    let handle = runtime.handle();
    let driver = match handle.driver_fallback_reason() {
        Some(reason) => format!(
            "{} (asked for {}: {reason})",
            handle.driver(),
            options.driver
        ),
        None => handle.driver().to_string(),
    };
    println!(
        "soak: {} s on the {driver} driver, {} workers",
        options.secs, options.workers
    );
    let stats = Arc::new(Stats::default());
    let duration = Duration::from_secs(options.secs);
    let result = monitor::run(&runtime, &stats, duration);
    drop(runtime);
    match result {
        Ok(summary) => {
            println!("{summary}");
            println!("soak: passed");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("soak: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}
