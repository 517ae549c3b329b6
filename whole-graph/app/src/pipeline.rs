//! Event pipelines built from tokio-stream: channel receivers wrapped as
//! streams (`ReceiverStream`, `BroadcastStream`) and shaped with
//! tokio-stream's `StreamExt` combinators.

use std::time::Duration;

use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::{BroadcastStream, ReceiverStream};
use tokio_stream::StreamExt;

/// The squares of the first `limit` even numbers received.
pub async fn even_squares(rx: mpsc::Receiver<u64>, limit: usize) -> Vec<u64> {
    ReceiverStream::new(rx)
        .filter(|n| n % 2 == 0)
        .map(|n| n * n)
        .take(limit)
        .collect()
        .await
}

/// What a subscriber makes of a broadcast: the values it saw, and how many
/// it missed because it fell behind.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Seen {
    pub values: Vec<u32>,
    pub missed: u64,
}

/// Reads a broadcast subscription to its end.
pub async fn follow(rx: broadcast::Receiver<u32>) -> Seen {
    let mut seen = Seen::default();
    let mut stream = BroadcastStream::new(rx);
    while let Some(item) = stream.next().await {
        match item {
            Ok(value) => seen.values.push(value),
            Err(tokio_stream::wrappers::errors::BroadcastStreamRecvError::Lagged(n)) => {
                seen.missed += n
            }
        }
    }
    seen
}

/// The items of `rx` that each arrive within `patience` of the previous
/// one; stops at the first gap longer than that.
pub async fn until_quiet(rx: mpsc::Receiver<u32>, patience: Duration) -> Vec<u32> {
    let stream = ReceiverStream::new(rx).timeout(patience);
    tokio::pin!(stream);
    let mut got = Vec::new();
    while let Some(Ok(item)) = stream.next().await {
        got.push(item);
    }
    got
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::on_every_runtime;

    #[test]
    fn receiver_stream_with_combinators() {
        on_every_runtime("receiver_stream_combinators", |_| async move {
            let (tx, rx) = mpsc::channel(4);
            let producer = tokio::spawn(async move {
                for n in 0..100 {
                    if tx.send(n).await.is_err() {
                        // `take` is satisfied and the stream was dropped.
                        return n;
                    }
                }
                100
            });
            assert_eq!(even_squares(rx, 5).await, [0, 4, 16, 36, 64]);
            let stopped_at = producer.await.unwrap();
            assert!(stopped_at < 100, "the producer saw the receiver go");
        });
    }

    #[test]
    fn broadcast_stream_reports_lag() {
        on_every_runtime("broadcast_stream_lag", |_| async move {
            let (tx, rx) = broadcast::channel(4);
            // Ten values into a channel of four, before the subscriber reads:
            // it misses the six oldest.
            for value in 0..10 {
                tx.send(value).unwrap();
            }
            drop(tx);
            assert_eq!(
                follow(rx).await,
                Seen {
                    values: vec![6, 7, 8, 9],
                    missed: 6
                }
            );
        });
    }

    #[test]
    fn stream_timeout_ends_at_a_gap() {
        on_every_runtime("stream_timeout", |_| async move {
            let (tx, rx) = mpsc::channel(8);
            for n in 0..3 {
                tx.send(n).await.unwrap();
            }
            // `tx` stays open and silent: the fourth item never comes.
            let got = until_quiet(rx, Duration::from_millis(20)).await;
            assert_eq!(got, [0, 1, 2]);
            drop(tx);
        });
    }
}
