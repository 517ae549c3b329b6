//! Timers of random lengths: sleeps, timeouts that must expire, timeouts
//! that must not, and intervals. None may fire early.
use std::sync::Arc;
use std::time::Duration;

use tokiwa::task::JoinSet;
use tokiwa::time::{interval, sleep, timeout, Instant};

use crate::rng::Rng;
use crate::stats::Stats;

/// Tasks running timers at once.
const TASKS: u64 = 32;

pub async fn run(stats: Arc<Stats>) {
    let mut tasks = JoinSet::new();
    for seed in 0..TASKS {
        tasks.spawn(timer_loop(stats.clone(), seed));
    }
    while tasks.join_next().await.is_some() {}
}

async fn timer_loop(stats: Arc<Stats>, seed: u64) {
    let mut rng = Rng::new(1000 + seed);
    while !stats.stopping() {
        let period = Duration::from_micros(rng.below(10_000));
        let start = Instant::now();
        let what = match rng.below(4) {
            0 => {
                sleep(period).await;
                "sleep"
            }
            1 => {
                if timeout(period, std::future::pending::<()>()).await.is_ok() {
                    return stats.fail("timers: a pending future finished".into());
                }
                "timeout"
            }
            2 => {
                if timeout(period, async {}).await.is_err() {
                    return stats.fail("timers: a ready future timed out".into());
                }
                // A ready future is not held to the deadline.
                Stats::add(&stats.timers, 1);
                continue;
            }
            _ => {
                let period = period.max(Duration::from_millis(1));
                let mut ticks = interval(period);
                for _ in 0..3 {
                    ticks.tick().await;
                }
                // The first tick is at once; two periods for the next two.
                if start.elapsed() < period * 2 {
                    return stats.fail(format!(
                        "timers: 3 ticks of a {period:?} interval in {:?}",
                        start.elapsed()
                    ));
                }
                Stats::add(&stats.timers, 1);
                continue;
            }
        };
        if start.elapsed() < period {
            return stats.fail(format!(
                "timers: a {period:?} {what} fired after {:?}",
                start.elapsed()
            ));
        }
        Stats::add(&stats.timers, 1);
    }
}
