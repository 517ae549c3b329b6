//! The sync primitives under contention: each round runs every check below
//! at once on the runtime's workers, and each check compares what it saw
//! with what was done.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokiwa::sync::{broadcast, mpsc, oneshot, watch, Barrier, Mutex, Notify, RwLock, Semaphore};
use tokiwa::task::{yield_now, JoinSet};

use crate::stats::Stats;

type Check = Result<(), String>;

pub async fn run(stats: Arc<Stats>) {
    while !stats.stopping() {
        let mut checks = JoinSet::new();
        checks.spawn(mutex());
        checks.spawn(rwlock());
        checks.spawn(semaphore());
        checks.spawn(mpsc_order());
        checks.spawn(broadcast_order());
        checks.spawn(watch_latest());
        checks.spawn(notify_ping_pong());
        checks.spawn(oneshot_chain());
        checks.spawn(barrier_leaders());
        while let Some(result) = checks.join_next().await {
            match result {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return stats.fail(format!("contention: {e}")),
                Err(e) => return stats.fail(format!("contention: a check's task: {e}")),
            }
        }
        Stats::add(&stats.sync_rounds, 1);
    }
}

/// Joins `tasks`, turning a panic into an error.
async fn join_all(mut tasks: JoinSet<Check>) -> Check {
    while let Some(result) = tasks.join_next().await {
        result.map_err(|e| format!("task failed: {e}"))??;
    }
    Ok(())
}

async fn mutex() -> Check {
    let counter = Arc::new(Mutex::new(0u64));
    let mut tasks = JoinSet::new();
    for _ in 0..8 {
        let counter = counter.clone();
        tasks.spawn(async move {
            for i in 0..200 {
                *counter.lock().await += 1;
                if i % 10 == 0 {
                    yield_now().await;
                }
            }
            Ok(())
        });
    }
    join_all(tasks).await?;
    let total = *counter.lock().await;
    (total == 1600)
        .then_some(())
        .ok_or(format!("Mutex: 1600 increments gave {total}"))
}

async fn rwlock() -> Check {
    let pair = Arc::new(RwLock::new((0u64, 0u64)));
    let mut tasks = JoinSet::new();
    for _ in 0..2 {
        let pair = pair.clone();
        tasks.spawn(async move {
            for _ in 0..100 {
                let mut guard = pair.write().await;
                guard.0 += 1;
                yield_now().await;
                guard.1 += 1;
            }
            Ok(())
        });
    }
    for _ in 0..4 {
        let pair = pair.clone();
        tasks.spawn(async move {
            for _ in 0..100 {
                let guard = pair.read().await;
                if guard.0 != guard.1 {
                    return Err(format!("RwLock: a reader saw a half write {:?}", *guard));
                }
            }
            Ok(())
        });
    }
    join_all(tasks).await?;
    let last = *pair.read().await;
    (last == (200, 200))
        .then_some(())
        .ok_or(format!("RwLock: 200 writes gave {last:?}"))
}

async fn semaphore() -> Check {
    let semaphore = Arc::new(Semaphore::new(3));
    let holders = Arc::new(AtomicUsize::new(0));
    let mut tasks = JoinSet::new();
    for _ in 0..12 {
        let (semaphore, holders) = (semaphore.clone(), holders.clone());
        tasks.spawn(async move {
            for _ in 0..20 {
                let _permit = semaphore.acquire().await.map_err(|e| e.to_string())?;
                let now = holders.fetch_add(1, Ordering::SeqCst) + 1;
                if now > 3 {
                    return Err(format!("Semaphore(3): {now} holders at once"));
                }
                yield_now().await;
                holders.fetch_sub(1, Ordering::SeqCst);
            }
            Ok(())
        });
    }
    join_all(tasks).await?;
    let free = semaphore.available_permits();
    (free == 3)
        .then_some(())
        .ok_or(format!("Semaphore(3): {free} permits free at the end"))
}

async fn mpsc_order() -> Check {
    let (tx, mut rx) = mpsc::channel(8);
    let mut producers = JoinSet::new();
    for producer in 0..4usize {
        let tx = tx.clone();
        producers.spawn(async move {
            for seq in 0..250u32 {
                tx.send((producer, seq))
                    .await
                    .map_err(|_| "mpsc: receiver gone".to_string())?;
            }
            Ok(())
        });
    }
    drop(tx);
    let mut next = [0u32; 4];
    while let Some((producer, seq)) = rx.recv().await {
        if seq != next[producer] {
            return Err(format!(
                "mpsc: producer {producer} sent {} but {seq} arrived",
                next[producer]
            ));
        }
        next[producer] += 1;
    }
    join_all(producers).await?;
    (next == [250; 4])
        .then_some(())
        .ok_or(format!("mpsc: received {next:?} of 250 each"))
}

async fn broadcast_order() -> Check {
    let (tx, _) = broadcast::channel(16);
    let mut tasks = JoinSet::new();
    for _ in 0..2 {
        let mut rx = tx.subscribe();
        tasks.spawn(async move {
            let mut last = None;
            loop {
                match rx.recv().await {
                    Ok(value) => {
                        if last.is_some_and(|last| value <= last) {
                            return Err(format!("broadcast: {value} after {last:?}"));
                        }
                        last = Some(value);
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
            (last == Some(499)).then_some(()).ok_or(format!(
                "broadcast: the last value seen was {last:?}, not 499"
            ))
        });
    }
    for value in 0..500u32 {
        tx.send(value)
            .map_err(|_| "broadcast: no receiver".to_string())?;
        if value % 7 == 0 {
            yield_now().await;
        }
    }
    drop(tx);
    join_all(tasks).await
}

async fn watch_latest() -> Check {
    let (tx, mut rx) = watch::channel(0u32);
    let receiver = tokiwa::spawn(async move {
        let mut last = 0;
        while rx.changed().await.is_ok() {
            let value = *rx.borrow_and_update();
            if value < last {
                return Err(format!("watch: {value} after {last}"));
            }
            last = value;
        }
        Ok(last)
    });
    for value in 1..=300 {
        tx.send_replace(value);
        if value % 5 == 0 {
            yield_now().await;
        }
    }
    drop(tx);
    let last = receiver.await.map_err(|e| e.to_string())??;
    (last == 300)
        .then_some(())
        .ok_or(format!("watch: the last value seen was {last}, not 300"))
}

async fn notify_ping_pong() -> Check {
    let ping = Arc::new(Notify::new());
    let pong = Arc::new(Notify::new());
    let rounds = 200;
    let other = {
        let (ping, pong) = (ping.clone(), pong.clone());
        tokiwa::spawn(async move {
            for _ in 0..rounds {
                ping.notified().await;
                pong.notify_one();
            }
        })
    };
    for _ in 0..rounds {
        ping.notify_one();
        pong.notified().await;
    }
    other.await.map_err(|e| e.to_string())
}

async fn oneshot_chain() -> Check {
    let (first_tx, mut rx) = oneshot::channel::<u32>();
    let mut hops = JoinSet::new();
    for _ in 0..100 {
        let (tx, next_rx) = oneshot::channel();
        hops.spawn(async move {
            let value = rx.await.map_err(|e| format!("oneshot: {e}"))?;
            tx.send(value + 1)
                .map_err(|_| "oneshot: receiver gone".to_string())
        });
        rx = next_rx;
    }
    first_tx
        .send(0)
        .map_err(|_| "oneshot: receiver gone".to_string())?;
    let end = rx.await.map_err(|e| format!("oneshot: {e}"))?;
    join_all(hops).await?;
    (end == 100)
        .then_some(())
        .ok_or(format!("oneshot: 100 hops gave {end}"))
}

async fn barrier_leaders() -> Check {
    let barrier = Arc::new(Barrier::new(4));
    let leaders = Arc::new(AtomicUsize::new(0));
    let mut tasks = JoinSet::new();
    for _ in 0..4 {
        let (barrier, leaders) = (barrier.clone(), leaders.clone());
        tasks.spawn(async move {
            for _ in 0..50 {
                if barrier.wait().await.is_leader() {
                    leaders.fetch_add(1, Ordering::SeqCst);
                }
            }
            Ok(())
        });
    }
    join_all(tasks).await?;
    let leaders = leaders.load(Ordering::SeqCst);
    (leaders == 50)
        .then_some(())
        .ok_or(format!("Barrier: {leaders} leaders in 50 generations"))
}
