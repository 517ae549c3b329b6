//! Wrappers of tokiwa's runtime types that implement `Stream` (see the
//! [parent module](super) for the correspondence with tokio-stream).
//!
//! | wrapper | wraps | item |
//! |---|---|---|
//! | [`IntervalStream`] | `tokiwa::time::Interval` | `tokiwa::time::Instant` |
//! | [`TcpListenerStream`] | `tokiwa::net::TcpListener` | `io::Result<TcpStream>` |
//! | [`UnixListenerStream`] | `tokiwa::net::UnixListener` | `io::Result<UnixStream>` |
//! | [`ReadDirStream`] | `tokiwa::fs::ReadDir` | `io::Result<DirEntry>` |
//! | [`SignalStream`] | `tokiwa::signal::unix::Signal` | `()` |
//! | [`CtrlCStream`] | a `Signal` for `SIGINT` | `()` |
//!
//! `CtrlCStream` is the one departure: tokio-stream has it only on Windows,
//! around `tokio::signal::windows::CtrlC`, which a Linux runtime has no use
//! for. Here it is the Linux meaning of Ctrl-C, `SIGINT`, so that code
//! written for both platforms keeps its name; it is built with
//! [`CtrlCStream::ctrl_c`] (which registers the handler, hence
//! `io::Result`) or `new(signal)`, and unwraps to the `Signal`.
mod interval;
mod read_dir;
mod signal;
mod tcp_listener;
mod unix_listener;

pub use interval::IntervalStream;
pub use read_dir::ReadDirStream;
pub use signal::{CtrlCStream, SignalStream};
pub use tcp_listener::TcpListenerStream;
pub use unix_listener::UnixListenerStream;

/// Writes a wrapper: the struct, `new`, `into_inner`, `AsRef`, `AsMut` and
/// `Stream` with `poll_next` given as a closure over `&mut inner` (and,
/// optionally, `Stream::size_hint`).
macro_rules! wrapper {
    (
        $(#[$doc:meta])*
        $name:ident($inner:ty) -> $item:ty,
        |$this:ident, $cx:ident| $poll:expr
        $(, size_hint = $hint:expr)?
    ) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name {
            inner: $inner,
        }

        impl $name {
            #[doc = concat!("Wraps a `", stringify!($inner), "`.")]
            pub fn new(inner: $inner) -> Self {
                $name { inner }
            }

            #[doc = concat!("Unwraps the `", stringify!($inner), "`.")]
            pub fn into_inner(self) -> $inner {
                self.inner
            }
        }

        impl futures_core::Stream for $name {
            type Item = $item;

            fn poll_next(
                mut self: std::pin::Pin<&mut Self>,
                $cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<Option<$item>> {
                let $this = &mut self.inner;
                $poll
            }

            $(
                fn size_hint(&self) -> (usize, Option<usize>) {
                    $hint
                }
            )?
        }

        impl AsRef<$inner> for $name {
            fn as_ref(&self) -> &$inner {
                &self.inner
            }
        }

        impl AsMut<$inner> for $name {
            fn as_mut(&mut self) -> &mut $inner {
                &mut self.inner
            }
        }
    };
}
use wrapper;
