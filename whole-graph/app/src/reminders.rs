//! Reminders with tokio-util's time and sync tools: a `DelayQueue` that
//! hands reminders back as they fall due, and a ticking worker stopped by a
//! `CancellationToken`.

use std::time::Duration;

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::time::DelayQueue;

/// Schedules each `(name, delay)`, the delays counted from one instant, and
/// returns the names in the order they fall due, leaving out those named
/// in `cancelled` (removed from the queue before they fire).
pub async fn due_order(
    reminders: &[(&'static str, Duration)],
    cancelled: &[&str],
) -> Vec<&'static str> {
    let start = Instant::now();
    let mut queue = DelayQueue::new();
    let mut keys = Vec::new();
    for &(name, delay) in reminders {
        keys.push((name, queue.insert_at(name, start + delay)));
    }
    for (name, key) in &keys {
        if cancelled.contains(name) {
            queue.remove(key);
        }
    }
    let mut due = Vec::new();
    while let Some(expired) = queue.next().await {
        due.push(expired.into_inner());
    }
    due
}

/// How a [`ticker`] ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    Cancelled { ticks: u32 },
    NobodyListening,
}

/// Sends a tick every `period` until `token` is cancelled.
pub async fn ticker(token: CancellationToken, period: Duration, ticks: mpsc::Sender<u32>) -> Ended {
    let mut sent = 0;
    loop {
        tokio::select! {
            () = token.cancelled() => return Ended::Cancelled { ticks: sent },
            () = tokio::time::sleep(period) => {
                sent += 1;
                if ticks.send(sent).await.is_err() {
                    return Ended::NobodyListening;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::on_every_runtime;

    #[test]
    fn delay_queue_hands_back_in_due_order() {
        on_every_runtime("delay_queue_order", |_| async move {
            let ms = Duration::from_millis;
            let started = Instant::now();
            let order = due_order(
                &[
                    ("third", ms(150)),
                    ("first", ms(50)),
                    ("dropped", ms(75)),
                    ("second", ms(100)),
                ],
                &["dropped"],
            )
            .await;
            assert_eq!(order, ["first", "second", "third"]);
            assert!(started.elapsed() >= ms(150), "the last reminder came early");
        });
    }

    #[test]
    fn cancellation_token_stops_a_task() {
        on_every_runtime("cancellation_token", |_| async move {
            let parent = CancellationToken::new();
            let (tx, mut rx) = mpsc::channel(1);
            let worker = tokio::spawn(ticker(parent.child_token(), Duration::from_millis(1), tx));

            // The worker runs ...
            assert_eq!(rx.recv().await, Some(1));
            assert_eq!(rx.recv().await, Some(2));
            // ... until its parent token is cancelled.
            parent.cancel();
            // Drain what it sent meanwhile; its sender goes when it ends.
            while rx.recv().await.is_some() {}
            let ended = worker.await.unwrap();
            assert!(
                matches!(ended, Ended::Cancelled { ticks } if ticks >= 2),
                "unexpected end: {ended:?}"
            );

            // An already cancelled token ends a new worker at once.
            let (tx, mut rx) = mpsc::channel(1);
            let late = tokio::spawn(ticker(parent.child_token(), Duration::from_secs(3600), tx));
            assert_eq!(late.await.unwrap(), Ended::Cancelled { ticks: 0 });
            assert_eq!(rx.recv().await, None);
        });
    }
}
