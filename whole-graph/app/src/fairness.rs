//! Tasks that always find work ready, beside a timer that must still fire.
//!
//! A loop whose channel always holds an item never returns `Pending` on
//! its own, so on a current-thread runtime nothing else would run. tokio's
//! answer, which tokiwa keeps, is the cooperative budget: each receive
//! (lock, acquire, `select!`) spends a unit, and once the task's budget is
//! spent it yields. In whole-graph mode the channels and `select!` are
//! tokiwa's own, so they must consult tokiwa's budget.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::{mpsc, Mutex, Semaphore};

/// Which always-ready operation a [`busy`] loop spins on.
#[derive(Clone, Copy, Debug)]
pub enum Spin {
    /// An unbounded channel it refills before each receive.
    Recv,
    /// `select!` over two bounded channels that always hold an item.
    Select,
    /// An uncontended `Mutex`.
    Lock,
    /// A `Semaphore` with a permit always free.
    Acquire,
}

/// Spins on `spin` until `stop` is set; returns the number of rounds.
pub async fn busy(spin: Spin, stop: Arc<AtomicBool>) -> u64 {
    let mut rounds = 0u64;
    // Relaxed: the flag carries no data; the loop only has to see it
    // eventually, and it rereads it every round.
    let running = || !stop.load(Ordering::Relaxed);
    match spin {
        Spin::Recv => {
            let (tx, mut rx) = mpsc::unbounded_channel();
            while running() {
                tx.send(rounds).unwrap();
                rounds = rx.recv().await.unwrap() + 1;
            }
        }
        Spin::Select => {
            let (tx_a, mut rx_a) = mpsc::channel(1);
            let (tx_b, mut rx_b) = mpsc::channel(1);
            tx_a.try_send(()).unwrap();
            tx_b.try_send(()).unwrap();
            while running() {
                tokio::select! {
                    Some(()) = rx_a.recv() => tx_a.try_send(()).unwrap(),
                    Some(()) = rx_b.recv() => tx_b.try_send(()).unwrap(),
                }
                rounds += 1;
            }
        }
        Spin::Lock => {
            let counter = Mutex::new(0u64);
            while running() {
                *counter.lock().await += 1;
                rounds += 1;
            }
        }
        Spin::Acquire => {
            let permits = Semaphore::new(1);
            while running() {
                drop(permits.acquire().await.unwrap());
                rounds += 1;
            }
        }
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::on_every_runtime;
    use std::time::Duration;

    /// The busy task is spawned first, so on a current-thread runtime it
    /// runs before the timer's future is polled again: without the budget
    /// the sleep would never complete (the harness's deadline fails the
    /// test then).
    fn timer_fires_beside(spin: Spin) {
        on_every_runtime(&format!("timer_beside_{spin:?}"), move |_| async move {
            let stop = Arc::new(AtomicBool::new(false));
            let spinner = tokio::spawn(busy(spin, stop.clone()));
            tokio::task::yield_now().await;

            let started = tokio::time::Instant::now();
            tokio::time::sleep(Duration::from_millis(10)).await;
            assert!(started.elapsed() >= Duration::from_millis(10));

            stop.store(true, Ordering::Relaxed);
            let rounds = spinner.await.unwrap();
            assert!(rounds > 0, "the busy task ran");
        });
    }

    #[test]
    fn timer_fires_beside_a_receive_loop() {
        timer_fires_beside(Spin::Recv);
    }

    #[test]
    fn timer_fires_beside_a_select_loop() {
        timer_fires_beside(Spin::Select);
    }

    #[test]
    fn timer_fires_beside_a_lock_loop() {
        timer_fires_beside(Spin::Lock);
    }

    #[test]
    fn timer_fires_beside_an_acquire_loop() {
        timer_fires_beside(Spin::Acquire);
    }
}
