// The timer workloads, written once against the tokio API.
//
// Compiled twice by `main.rs` like `workloads.rs`: the parent module binds
// `rt` to `::tokio` or `::tokiwa`, and this file names the runtime only
// through `rt::`. Each entry point builds its own fresh runtime, warms it up
// untimed, and returns only what it measured.
//
// Time is read with `std::time::Instant`, not `rt::time::Instant`: the
// stopwatch must be the same for both runtimes, whatever either does with
// its own clock (tokio's is std's outside `test-util`).

use super::rt;

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::w::{build, in_task, Countdown};
use crate::columns::Column;
use crate::Flavour;

/// `iters` times: spawn one task per entry of `delays`, each sleeping that
/// long, and time until the last has woken. One untimed iteration first.
pub fn sleep_many(
    flavour: Flavour,
    column: Column,
    delays: Arc<[Duration]>,
    iters: usize,
) -> Vec<Duration> {
    let runtime = build(flavour, column);
    let once = || {
        let delays = delays.clone();
        in_task(&runtime, move || async move {
            let countdown = Countdown::new(delays.len());
            let start = Instant::now();
            for &delay in delays.iter() {
                let countdown = countdown.clone();
                rt::spawn(async move {
                    rt::time::sleep(delay).await;
                    countdown.done();
                });
            }
            countdown.wait().await;
            start.elapsed()
        })
    };
    once();
    let samples = (0..iters).map(|_| once()).collect();
    drop(runtime);
    samples
}

/// `samples` times, on an otherwise idle runtime: how much later than asked a
/// `sleep(period)` returns, in nanoseconds (negative would mean early).
pub fn sleep_lateness(
    flavour: Flavour,
    column: Column,
    period: Duration,
    samples: usize,
) -> Vec<i64> {
    let runtime = build(flavour, column);
    let lateness = in_task(&runtime, move || async move {
        for _ in 0..5 {
            rt::time::sleep(period).await;
        }
        let mut lateness = Vec::with_capacity(samples);
        for _ in 0..samples {
            let t = Instant::now();
            rt::time::sleep(period).await;
            lateness.push(t.elapsed().as_nanos() as i64 - period.as_nanos() as i64);
        }
        lateness
    });
    drop(runtime);
    lateness
}
