//! [`split()`]: one `AsyncRead + AsyncWrite` value as two halves that can
//! be used independently (from two tasks, for example).
//!
//! Both halves share the value behind a mutex, so a read and a write never
//! run at the same time; each poll holds the lock only for its duration.
//! For a type that can be split without a lock (a `TcpStream`, say), its own
//! `split`/`into_split` is cheaper.
//!
//! The value is pinned in its shared allocation: it is never moved while
//! the halves exist, and [`ReadHalf::unsplit`], the only way to move it
//! out, requires `T: Unpin`.
use crate::io::{AsyncRead, AsyncWrite, ReadBuf};
use crate::loom::sync::{Arc, Mutex};

use std::fmt;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};

/// The reading half of a value split by [`split`](split()).
pub struct ReadHalf<T> {
    shared: Arc<Shared<T>>,
}

/// The writing half of a value split by [`split`](split()).
pub struct WriteHalf<T> {
    shared: Arc<Shared<T>>,
}

struct Shared<T> {
    stream: Mutex<T>,
    /// Read once at the split: `is_write_vectored` takes no lock.
    is_write_vectored: bool,
}

/// Splits a value that is `AsyncRead + AsyncWrite` into a [`ReadHalf`] and
/// a [`WriteHalf`].
///
/// The halves can be moved to different tasks. They share the value
/// behind a lock, held for the length of each poll. To get the value back,
/// use [`ReadHalf::unsplit`].
pub fn split<T>(stream: T) -> (ReadHalf<T>, WriteHalf<T>)
where
    T: AsyncRead + AsyncWrite,
{
    let is_write_vectored = stream.is_write_vectored();
    let shared = Arc::new(Shared {
        stream: Mutex::new(stream),
        is_write_vectored,
    });
    (
        ReadHalf {
            shared: shared.clone(),
        },
        WriteHalf { shared },
    )
}

impl<T> Shared<T> {
    /// Runs `f` on the pinned value, under the lock.
    fn with_pinned<R>(&self, f: impl FnOnce(Pin<&mut T>) -> R) -> R {
        // A panic in a poll poisons the lock, and the value is then in an
        // unknown state: the other half panics too rather than use it.
        let mut guard = self
            .stream
            .lock()
            .expect("the other half of a split stream panicked while using it");
        // SAFETY: the value lives in the `Arc` allocation until it is
        // dropped there or moved out by `unsplit`, which requires
        // `T: Unpin`. So once pinned here it is never moved while pinned.
        let pinned = unsafe { Pin::new_unchecked(&mut *guard) };
        f(pinned)
    }
}

impl<T> ReadHalf<T> {
    /// Whether `other` came from the same [`split`](split()) call.
    pub fn is_pair_of(&self, other: &WriteHalf<T>) -> bool {
        other.is_pair_of(self)
    }

    /// Puts the two halves back together and returns the value.
    ///
    /// # Panics
    ///
    /// Panics if `wr` did not come from the same [`split`](split()) call
    /// (check with [`is_pair_of`](ReadHalf::is_pair_of)).
    #[track_caller]
    pub fn unsplit(self, wr: WriteHalf<T>) -> T
    where
        T: Unpin,
    {
        if !self.is_pair_of(&wr) {
            panic!("Unrelated `split::Write` passed to `split::Read::unsplit`.");
        }
        drop(wr);
        let shared = match Arc::try_unwrap(self.shared) {
            Ok(shared) => shared,
            Err(_) => unreachable!("both halves were given, no other owner exists"),
        };
        // A poisoned lock still holds the value; the caller owns it now.
        shared
            .stream
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<T> WriteHalf<T> {
    /// Whether `other` came from the same [`split`](split()) call.
    pub fn is_pair_of(&self, other: &ReadHalf<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<T: AsyncRead> AsyncRead for ReadHalf<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.shared.with_pinned(|stream| stream.poll_read(cx, buf))
    }
}

impl<T: AsyncWrite> AsyncWrite for WriteHalf<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.shared.with_pinned(|stream| stream.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.shared
            .with_pinned(|stream| stream.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.shared.is_write_vectored
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.shared.with_pinned(|stream| stream.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.shared.with_pinned(|stream| stream.poll_shutdown(cx))
    }
}

// tokio's auto traits for the halves, which the ecosystem relies on: Send
// when `T: Send`, Sync when `T: Sync`.

// SAFETY: a half reaches the value only under the mutex, one holder at a
// time, so sending a half to another thread amounts to sending the value:
// sound when `T: Send`.
unsafe impl<T: Send> Send for ReadHalf<T> {}
// SAFETY: as for `ReadHalf`.
unsafe impl<T: Send> Send for WriteHalf<T> {}
// SAFETY: through `&ReadHalf`/`&WriteHalf` nothing reaches the value
// (polling needs `Pin<&mut Self>`; `is_pair_of` compares pointers,
// `is_write_vectored` reads a copied flag, `Debug` prints no field), so
// sharing a reference between threads is sound whenever sharing `T` is.
unsafe impl<T: Sync> Sync for ReadHalf<T> {}
// SAFETY: as for `ReadHalf`.
unsafe impl<T: Sync> Sync for WriteHalf<T> {}

impl<T: fmt::Debug> fmt::Debug for ReadHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::ReadHalf").finish()
    }
}

impl<T: fmt::Debug> fmt::Debug for WriteHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::WriteHalf").finish()
    }
}

#[cfg(all(test, feature = "rt-multi-thread"))]
mod tests {
    use super::*;
    use crate::io::{duplex, AsyncReadExt, AsyncWriteExt};

    #[test]
    fn halves_used_from_two_tasks_on_a_multi_thread_runtime() {
        let rt = crate::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            // An echo peer on the other end of a small pipe: the writer
            // must keep going while the reader drains, or both stall.
            let (local, peer) = duplex(16);
            let echo = crate::spawn(async move {
                let (mut rd, mut wr) = split(peer);
                let n = crate::io::copy(&mut rd, &mut wr).await?;
                wr.shutdown().await?;
                io::Result::Ok(n)
            });
            let (mut rd, mut wr) = split(local);
            assert!(rd.is_pair_of(&wr) && wr.is_pair_of(&rd));
            let payload: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
            let expected = payload.clone();
            let writer = crate::spawn(async move {
                wr.write_all(&payload).await.unwrap();
                wr.shutdown().await.unwrap();
                wr
            });
            let reader = crate::spawn(async move {
                let mut got = Vec::new();
                rd.read_to_end(&mut got).await.unwrap();
                (rd, got)
            });
            let wr = writer.await.unwrap();
            let (rd, got) = reader.await.unwrap();
            assert_eq!(got, expected);
            assert_eq!(echo.await.unwrap().unwrap(), 10_000);
            let _stream = rd.unsplit(wr);
        });
    }

    #[test]
    #[should_panic(expected = "Unrelated")]
    fn unsplit_of_unrelated_halves_panics() {
        let (rd, _) = split(crate::io::empty());
        let (_, wr) = split(crate::io::empty());
        let _ = rd.unsplit(wr);
    }

    #[test]
    fn auto_traits_follow_the_value() {
        fn send_sync<T: Send + Sync + Unpin>() {}
        send_sync::<ReadHalf<crate::io::DuplexStream>>();
        send_sync::<WriteHalf<crate::io::DuplexStream>>();
        assert_eq!(
            format!("{:?}", split(crate::io::empty()).0),
            "split::ReadHalf"
        );
    }
}
