//! Profiling aid: the `spawn_many_local` benchmark row, repeated, on a
//! runtime chosen by the first argument (`current` or `multi`, default
//! `multi` with 2 workers). Prints the time per spawn.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn main() {
    let rt = match std::env::args().nth(1).as_deref() {
        Some("current") => tokiwa::runtime::Builder::new_current_thread().build(),
        _ => tokiwa::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build(),
    }
    .unwrap();
    const ROUNDS: u32 = 300;
    const N: usize = 10_000;
    let start = std::time::Instant::now();
    for _ in 0..ROUNDS {
        rt.block_on(async {
            tokiwa::spawn(async {
                let left = Arc::new(AtomicUsize::new(N));
                let (tx, rx) = tokiwa::sync::oneshot::channel();
                let tx = Arc::new(std::sync::Mutex::new(Some(tx)));
                for _ in 0..N {
                    let left = left.clone();
                    let tx = tx.clone();
                    tokiwa::spawn(async move {
                        if left.fetch_sub(1, Ordering::Relaxed) == 1 {
                            tx.lock().unwrap().take().unwrap().send(()).unwrap();
                        }
                    });
                }
                rx.await.unwrap();
            })
            .await
            .unwrap();
        });
    }
    println!("{:?} per spawn", start.elapsed() / (ROUNDS * N as u32));
    let m = rt.metrics();
    for w in 0..m.num_workers() {
        println!(
            "worker {w}: polls {} parks {} steals {} overflows {}",
            m.worker_poll_count(w),
            m.worker_park_count(w),
            m.worker_steal_count(w),
            m.worker_overflow_count(w)
        );
    }
}
