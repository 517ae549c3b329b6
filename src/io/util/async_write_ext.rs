//! [`AsyncWriteExt`]: the `async fn`-style utilities over [`AsyncWrite`].
//!
//! Every method builds one of the futures in this directory; the trait is
//! implemented for every `AsyncWrite`, sized or not.
use std::io::IoSlice;

use bytes::Buf;

use super::flush_shutdown::{flush, shutdown, Flush, Shutdown};
use super::write::{write, Write};
use super::write_all::{write_all, WriteAll};
use super::write_buf::{write_all_buf, write_buf, WriteAllBuf, WriteBuf};
use super::write_int::{
    WriteF32, WriteF32Le, WriteF64, WriteF64Le, WriteI128, WriteI128Le, WriteI16, WriteI16Le,
    WriteI32, WriteI32Le, WriteI64, WriteI64Le, WriteI8, WriteU128, WriteU128Le, WriteU16,
    WriteU16Le, WriteU32, WriteU32Le, WriteU64, WriteU64Le, WriteU8,
};
use super::write_vectored::{write_vectored, WriteVectored};
use crate::io::AsyncWrite;

/// Declares the integer writers: a method per number type and byte order.
macro_rules! int_writers {
    ($($method:ident($ty:ty) -> $fut:ident: $what:literal;)*) => {$(
        #[doc = concat!("Writes ", $what, ".")]
        ///
        /// Equivalent to
        #[doc = concat!("`async fn ", stringify!($method), "(&mut self, n: ", stringify!($ty), ") -> io::Result<()>`.")]
        /// Fails with [`ErrorKind::WriteZero`](std::io::ErrorKind::WriteZero)
        /// if the writer stops accepting bytes.
        ///
        /// # Cancel safety
        ///
        /// This method is not cancel safe: if the future is dropped before
        /// it completes, part of the number may have been written.
        fn $method(&mut self, n: $ty) -> $fut<&mut Self>
        where
            Self: Unpin,
        {
            $fut::new(self, n)
        }
    )*};
}

/// Writing utilities for every [`AsyncWrite`]; bring the trait into scope
/// (`use tokio::io::AsyncWriteExt;`) to call them.
///
/// Each method returns a future that writes when awaited; see each one's
/// *Cancel safety* section before using it in `select!`.
pub trait AsyncWriteExt: AsyncWrite {
    /// Writes some bytes of `src`, returning how many.
    ///
    /// Equivalent to `async fn write(&mut self, src: &[u8]) -> io::Result<usize>`.
    /// `Ok(0)` usually means the writer accepts no more bytes (or `src` was
    /// empty).
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if the future is dropped before it
    /// completes, no data was written.
    fn write<'a>(&'a mut self, src: &'a [u8]) -> Write<'a, Self>
    where
        Self: Unpin,
    {
        write(self, src)
    }

    /// Writes some bytes from the buffers `bufs`, in order, returning how
    /// many.
    ///
    /// Equivalent to `async fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize>`.
    /// See [`AsyncWrite::poll_write_vectored`].
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if the future is dropped before it
    /// completes, no data was written.
    fn write_vectored<'a, 'b>(&'a mut self, bufs: &'a [IoSlice<'b>]) -> WriteVectored<'a, 'b, Self>
    where
        Self: Unpin,
    {
        write_vectored(self, bufs)
    }

    /// Writes some bytes of a [`Buf`], advancing it by how many were
    /// written, and returns that count.
    ///
    /// Equivalent to `async fn write_buf<B: Buf>(&mut self, src: &mut B) -> io::Result<usize>`.
    /// Returns `Ok(0)` at once if `src` is empty. A writer that
    /// [writes vectored](AsyncWrite::is_write_vectored) is given several of
    /// `src`'s chunks at once.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if the future is dropped before it
    /// completes, no data was written.
    fn write_buf<'a, B>(&'a mut self, src: &'a mut B) -> WriteBuf<'a, Self, B>
    where
        Self: Sized + Unpin,
        B: Buf,
    {
        write_buf(self, src)
    }

    /// Writes all of a [`Buf`], advancing it as bytes are written.
    ///
    /// Equivalent to `async fn write_all_buf<B: Buf>(&mut self, src: &mut B) -> io::Result<()>`.
    /// Fails with [`ErrorKind::WriteZero`](std::io::ErrorKind::WriteZero)
    /// if the writer stops accepting bytes. `Interrupted` errors are
    /// retried.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if the future is dropped before it
    /// completes, `src` has been advanced by exactly what was written, and
    /// calling again writes the rest.
    fn write_all_buf<'a, B>(&'a mut self, src: &'a mut B) -> WriteAllBuf<'a, Self, B>
    where
        Self: Sized + Unpin,
        B: Buf,
    {
        write_all_buf(self, src)
    }

    /// Writes all of `src`.
    ///
    /// Equivalent to `async fn write_all(&mut self, src: &[u8]) -> io::Result<()>`.
    /// Fails with [`ErrorKind::WriteZero`](std::io::ErrorKind::WriteZero)
    /// if the writer stops accepting bytes. `Interrupted` errors are
    /// retried.
    ///
    /// # Cancel safety
    ///
    /// This method is not cancel safe: if the future is dropped before it
    /// completes, an unknown prefix of `src` may have been written.
    fn write_all<'a>(&'a mut self, src: &'a [u8]) -> WriteAll<'a, Self>
    where
        Self: Unpin,
    {
        write_all(self, src)
    }

    int_writers! {
        write_u8(u8) -> WriteU8: "an unsigned 8-bit integer";
        write_i8(i8) -> WriteI8: "a signed 8-bit integer";
        write_u16(u16) -> WriteU16: "an unsigned 16-bit integer in big-endian order";
        write_i16(i16) -> WriteI16: "a signed 16-bit integer in big-endian order";
        write_u32(u32) -> WriteU32: "an unsigned 32-bit integer in big-endian order";
        write_i32(i32) -> WriteI32: "a signed 32-bit integer in big-endian order";
        write_u64(u64) -> WriteU64: "an unsigned 64-bit integer in big-endian order";
        write_i64(i64) -> WriteI64: "a signed 64-bit integer in big-endian order";
        write_u128(u128) -> WriteU128: "an unsigned 128-bit integer in big-endian order";
        write_i128(i128) -> WriteI128: "a signed 128-bit integer in big-endian order";
        write_f32(f32) -> WriteF32: "a 32-bit floating point number in big-endian order";
        write_f64(f64) -> WriteF64: "a 64-bit floating point number in big-endian order";
        write_u16_le(u16) -> WriteU16Le: "an unsigned 16-bit integer in little-endian order";
        write_i16_le(i16) -> WriteI16Le: "a signed 16-bit integer in little-endian order";
        write_u32_le(u32) -> WriteU32Le: "an unsigned 32-bit integer in little-endian order";
        write_i32_le(i32) -> WriteI32Le: "a signed 32-bit integer in little-endian order";
        write_u64_le(u64) -> WriteU64Le: "an unsigned 64-bit integer in little-endian order";
        write_i64_le(i64) -> WriteI64Le: "a signed 64-bit integer in little-endian order";
        write_u128_le(u128) -> WriteU128Le: "an unsigned 128-bit integer in little-endian order";
        write_i128_le(i128) -> WriteI128Le: "a signed 128-bit integer in little-endian order";
        write_f32_le(f32) -> WriteF32Le: "a 32-bit floating point number in little-endian order";
        write_f64_le(f64) -> WriteF64Le: "a 64-bit floating point number in little-endian order";
    }

    /// Flushes: every byte written so far reaches its destination.
    ///
    /// Equivalent to `async fn flush(&mut self) -> io::Result<()>`.
    fn flush(&mut self) -> Flush<'_, Self>
    where
        Self: Unpin,
    {
        flush(self)
    }

    /// Shuts the writer down (flushing first), so that the other end sees
    /// end of file; see [`AsyncWrite::poll_shutdown`].
    ///
    /// Equivalent to `async fn shutdown(&mut self) -> io::Result<()>`.
    fn shutdown(&mut self) -> Shutdown<'_, Self>
    where
        Self: Unpin,
    {
        shutdown(self)
    }
}

impl<W: AsyncWrite + ?Sized> AsyncWriteExt for W {}
