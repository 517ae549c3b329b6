//! Profiling aid: spawn many tasks from inside a task on a 2-worker
//! runtime (the `spawn_many_local` benchmark row), repeatedly.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn main() {
    let rt = tokiwa::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let start = std::time::Instant::now();
    for _ in 0..300 {
        rt.block_on(async {
            tokiwa::spawn(async {
                let n = 10_000;
                let left = Arc::new(AtomicUsize::new(n));
                let (tx, rx) = tokiwa::sync::oneshot::channel();
                let tx = Arc::new(std::sync::Mutex::new(Some(tx)));
                for _ in 0..n {
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
    println!("{:?} per spawn", start.elapsed() / (300 * 10_000));
}
