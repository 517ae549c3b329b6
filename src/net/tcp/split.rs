//! `TcpStream::split` and `TcpStream::into_split`: the halves are defined
//! by `net/split.rs`, like `UnixStream`'s; TCP's read halves can also
//! `peek`.
use crate::io::ReadBuf;
use crate::net::split::stream_halves;
use crate::net::TcpStream;
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

/// `poll_peek` and `peek` of a read half, which reaches the stream through
/// `self.$field`.
macro_rules! peek_methods {
    ($field:tt) => {
        /// Attempts to receive data on the socket, without removing that data
        /// from the queue, registering the current task for wakeup if data is
        /// not yet available.
        ///
        /// See [`TcpStream::poll_peek`].
        pub fn poll_peek(
            &mut self,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<usize>> {
            self.$field.poll_peek(cx, buf)
        }

        /// Receives data on the socket from the remote address to which it is
        /// connected, without removing that data from the queue. On success,
        /// returns the number of bytes peeked.
        ///
        /// See [`TcpStream::peek`].
        pub async fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let mut buf = ReadBuf::new(buf);
            poll_fn(|cx| self.poll_peek(cx, &mut buf)).await
        }
    };
}

stream_halves!(TcpStream, SocketAddr, "TCP", peek_methods);
