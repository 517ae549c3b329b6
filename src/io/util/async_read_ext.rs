//! [`AsyncReadExt`]: the `async fn`-style utilities over [`AsyncRead`].
//!
//! Every method builds one of the futures in this directory; the trait is
//! implemented for every `AsyncRead`, sized or not.
use bytes::BufMut;

use super::chain::{chain, Chain};
use super::read::{read, Read};
use super::read_buf::{read_buf, ReadBuf};
use super::read_exact::{read_exact, ReadExact};
use super::read_int::{
    ReadF32, ReadF32Le, ReadF64, ReadF64Le, ReadI128, ReadI128Le, ReadI16, ReadI16Le, ReadI32,
    ReadI32Le, ReadI64, ReadI64Le, ReadI8, ReadU128, ReadU128Le, ReadU16, ReadU16Le, ReadU32,
    ReadU32Le, ReadU64, ReadU64Le, ReadU8,
};
use super::read_to_end::{read_to_end, ReadToEnd};
use super::read_to_string::{read_to_string, ReadToString};
use super::take::{take, Take};
use crate::io::AsyncRead;

/// Declares the integer readers: a method per number type and byte order.
macro_rules! int_readers {
    ($($method:ident -> $fut:ident: $what:literal, $cancel:literal;)*) => {$(
        #[doc = concat!("Reads ", $what, ".")]
        ///
        /// Equivalent to
        #[doc = concat!("`async fn ", stringify!($method), "(&mut self) -> io::Result<_>`.")]
        /// Fails with [`ErrorKind::UnexpectedEof`](std::io::ErrorKind::UnexpectedEof)
        /// if the source ends before the whole number is read.
        ///
        /// # Cancel safety
        ///
        #[doc = $cancel]
        fn $method(&mut self) -> $fut<&mut Self>
        where
            Self: Unpin,
        {
            $fut::new(self)
        }
    )*};
}

/// Reading utilities for every [`AsyncRead`]; bring the trait into scope
/// (`use tokio::io::AsyncReadExt;`) to call them.
///
/// Each method returns a future that reads when awaited; see each one's
/// *Cancel safety* section before using it in `select!`.
pub trait AsyncReadExt: AsyncRead {
    /// Creates a reader that reads all of `self`, then all of `next`.
    fn chain<R>(self, next: R) -> Chain<Self, R>
    where
        Self: Sized,
        R: AsyncRead,
    {
        chain(self, next)
    }

    /// Reads some bytes into `buf`, returning how many.
    ///
    /// Equivalent to `async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize>`.
    /// `Ok(0)` means end of file (or an empty `buf`); otherwise `Ok(n)` with
    /// `0 < n <= buf.len()`, and the bytes are in `buf[..n]`.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if the future is dropped before it
    /// completes, no data was read.
    fn read<'a>(&'a mut self, buf: &'a mut [u8]) -> Read<'a, Self>
    where
        Self: Unpin,
    {
        read(self, buf)
    }

    /// Reads some bytes into the spare room of a [`BufMut`] (a
    /// `BytesMut`, a `Vec<u8>`...), advancing it, and returns how many.
    ///
    /// Equivalent to `async fn read_buf<B: BufMut>(&mut self, buf: &mut B) -> io::Result<usize>`.
    /// `Ok(0)` means end of file, or that `buf` has no room left
    /// (`remaining_mut() == 0`; a `Vec` or `BytesMut` grows instead). The
    /// reader writes into the buffer's memory directly, uninitialised memory
    /// included; only the bytes it reports are added to the buffer.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if the future is dropped before it
    /// completes, no data was read.
    fn read_buf<'a, B>(&'a mut self, buf: &'a mut B) -> ReadBuf<'a, Self, B>
    where
        Self: Unpin,
        B: BufMut + ?Sized,
    {
        read_buf(self, buf)
    }

    /// Reads exactly `buf.len()` bytes, filling `buf`.
    ///
    /// Equivalent to `async fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<usize>`
    /// (the `usize` is `buf.len()`). Fails with
    /// [`ErrorKind::UnexpectedEof`](std::io::ErrorKind::UnexpectedEof) if the
    /// source ends first; `buf`'s contents are then unspecified.
    /// `Interrupted` errors are retried.
    ///
    /// # Cancel safety
    ///
    /// This method is not cancel safe: if the future is dropped before it
    /// completes, some bytes may already have been read into `buf`.
    fn read_exact<'a>(&'a mut self, buf: &'a mut [u8]) -> ReadExact<'a, Self>
    where
        Self: Unpin,
    {
        read_exact(self, buf)
    }

    int_readers! {
        read_u8 -> ReadU8: "an unsigned 8-bit integer", "This method is cancel safe: if the future is dropped before it completes, no data was read.";
        read_i8 -> ReadI8: "a signed 8-bit integer", "This method is cancel safe: if the future is dropped before it completes, no data was read.";
        read_u16 -> ReadU16: "an unsigned 16-bit integer in big-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_i16 -> ReadI16: "a signed 16-bit integer in big-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_u32 -> ReadU32: "an unsigned 32-bit integer in big-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_i32 -> ReadI32: "a signed 32-bit integer in big-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_u64 -> ReadU64: "an unsigned 64-bit integer in big-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_i64 -> ReadI64: "a signed 64-bit integer in big-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_u128 -> ReadU128: "an unsigned 128-bit integer in big-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_i128 -> ReadI128: "a signed 128-bit integer in big-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_f32 -> ReadF32: "a 32-bit floating point number in big-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_f64 -> ReadF64: "a 64-bit floating point number in big-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_u16_le -> ReadU16Le: "an unsigned 16-bit integer in little-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_i16_le -> ReadI16Le: "a signed 16-bit integer in little-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_u32_le -> ReadU32Le: "an unsigned 32-bit integer in little-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_i32_le -> ReadI32Le: "a signed 32-bit integer in little-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_u64_le -> ReadU64Le: "an unsigned 64-bit integer in little-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_i64_le -> ReadI64Le: "a signed 64-bit integer in little-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_u128_le -> ReadU128Le: "an unsigned 128-bit integer in little-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_i128_le -> ReadI128Le: "a signed 128-bit integer in little-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_f32_le -> ReadF32Le: "a 32-bit floating point number in little-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
        read_f64_le -> ReadF64Le: "a 64-bit floating point number in little-endian order", "This method is not cancel safe: if the future is dropped before it completes, bytes already read are lost.";
    }

    /// Reads to end of file, appending everything to `buf`, and returns how
    /// many bytes were appended.
    ///
    /// Equivalent to `async fn read_to_end(&mut self, buf: &mut Vec<u8>) -> io::Result<usize>`.
    /// Bytes are appended as they arrive: after an error, those read before
    /// it are in `buf`. The reader writes straight into `buf`'s spare
    /// capacity, which grows as needed. `Interrupted` errors are retried.
    ///
    /// If the future is dropped before it completes, the bytes read so far
    /// are in `buf`.
    fn read_to_end<'a>(&'a mut self, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, Self>
    where
        Self: Unpin,
    {
        read_to_end(self, buf)
    }

    /// Reads to end of file, appending everything to `dst` if it is valid
    /// UTF-8, and returns how many bytes were appended.
    ///
    /// Equivalent to `async fn read_to_string(&mut self, dst: &mut String) -> io::Result<usize>`.
    /// If the data is not valid UTF-8 the error is
    /// [`ErrorKind::InvalidData`](std::io::ErrorKind::InvalidData); on that
    /// or any other error `dst` keeps exactly its original content.
    ///
    /// # Cancel safety
    ///
    /// This method is not cancel safe: if the future is dropped before it
    /// completes, the bytes read are lost (`dst` keeps its original
    /// content).
    fn read_to_string<'a>(&'a mut self, dst: &'a mut String) -> ReadToString<'a, Self>
    where
        Self: Unpin,
    {
        read_to_string(self, dst)
    }

    /// Creates a reader that gives at most `limit` bytes of `self`, then
    /// end of file.
    fn take(self, limit: u64) -> Take<Self>
    where
        Self: Sized,
    {
        take(self, limit)
    }
}

impl<R: AsyncRead + ?Sized> AsyncReadExt for R {}
