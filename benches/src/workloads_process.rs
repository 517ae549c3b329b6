// The process workload, written once against the tokio API.
//
// Compiled twice by `main.rs` like `workloads.rs`: the parent module binds
// `rt` to `::tokio` or `::tokiwa`, and this file names the runtime only
// through `rt::`. The entry point builds its own fresh runtime, warms it up
// untimed, and returns only what it measured.

use super::rt;

use std::time::{Duration, Instant};

use super::w::{build, in_task};
use crate::columns::Column;
use crate::Flavour;

/// `iters` times: `spawns` children of `true`, each spawned and awaited
/// (`status()`), by `in_flight` tasks that each run their share one after
/// the other; the time until the last has been reaped. One untimed
/// iteration first.
pub fn spawn_true(
    flavour: Flavour,
    column: Column,
    spawns: usize,
    in_flight: usize,
    iters: usize,
) -> Vec<Duration> {
    let runtime = build(flavour, column);
    let once = || {
        in_task(&runtime, move || async move {
            let start = Instant::now();
            let lanes: Vec<_> = (0..in_flight)
                .map(|lane| {
                    // Shares differ by one at most.
                    let share = spawns / in_flight + usize::from(lane < spawns % in_flight);
                    rt::spawn(async move {
                        for _ in 0..share {
                            let status = rt::process::Command::new("true")
                                .status()
                                .await
                                .expect("spawn true");
                            assert!(status.success());
                        }
                    })
                })
                .collect();
            for lane in lanes {
                lane.await.expect("spawn lane");
            }
            start.elapsed()
        })
    };
    once();
    let samples = (0..iters).map(|_| once()).collect();
    drop(runtime);
    samples
}
