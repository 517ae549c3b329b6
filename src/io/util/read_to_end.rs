//! The future of [`AsyncReadExt::read_to_end`](super::AsyncReadExt::read_to_end):
//! appends everything the reader gives, until end of file, to a `Vec<u8>`.
//!
//! The reader reads straight into the vector's spare capacity, lent as an
//! uninitialised [`ReadBuf`] (nothing is zeroed), and the vector's length
//! grows by exactly what [`poll_read_into`] confirms was written. When the
//! vector is full, a small probe read on the stack comes first, so a vector
//! sized exactly for the data is not doubled just to find end of file.
//!
//! Bytes are appended as they arrive, so a future dropped half-way leaves
//! what it read in the vector.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::lent_buf::poll_read_into;
use crate::io::{AsyncRead, ReadBuf};

/// The size of the probe read made when the vector is full.
const PROBE_SIZE: usize = 32;

pin_project! {
    /// Future for the [`read_to_end`](super::AsyncReadExt::read_to_end) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct ReadToEnd<'a, R: ?Sized> {
        reader: &'a mut R,
        buf: &'a mut Vec<u8>,
        // Bytes appended so far by this future.
        read: usize,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn read_to_end<'a, R>(reader: &'a mut R, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    ReadToEnd {
        reader,
        buf,
        read: 0,
        _pin: PhantomPinned,
    }
}

/// Reads to end of file, appending to `buf` and counting in `read`.
///
/// Returns (and resets) the count at end of file. On an error the count
/// stays, so the caller can tell what this operation appended.
/// `Interrupted` errors are retried.
pub(crate) fn poll_read_to_end<R: AsyncRead + ?Sized>(
    mut reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    buf: &mut Vec<u8>,
    read: &mut usize,
) -> Poll<io::Result<usize>> {
    loop {
        let polled = if buf.len() == buf.capacity() {
            let mut probe = [0u8; PROBE_SIZE];
            let mut lent = ReadBuf::new(&mut probe);
            let polled = ready!(poll_read_into(reader.as_mut(), cx, &mut lent));
            if let Ok(n) = polled {
                buf.extend_from_slice(&probe[..n]);
            }
            polled
        } else {
            let len = buf.len();
            let mut lent = ReadBuf::uninit(buf.spare_capacity_mut());
            let polled = ready!(poll_read_into(reader.as_mut(), cx, &mut lent));
            if let Ok(n) = polled {
                // SAFETY: `poll_read_into` confirmed that the reader wrote
                // the first `n` bytes of the spare capacity it was lent,
                // which start at `len`; `n <= capacity - len`.
                unsafe { buf.set_len(len + n) };
            }
            polled
        };
        match polled {
            Ok(0) => return Poll::Ready(Ok(mem::take(read))),
            Ok(n) => *read += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Poll::Ready(Err(e)),
        }
    }
}

impl<R> Future for ReadToEnd<'_, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        poll_read_to_end(Pin::new(&mut **me.reader), cx, me.buf, me.read)
    }
}
