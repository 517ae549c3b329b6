//! [`AsyncBufReadExt`]: the `async fn`-style utilities over
//! [`AsyncBufRead`].
use super::fill_buf::{fill_buf, FillBuf};
use super::lines::{lines, Lines};
use super::read_line::{read_line, ReadLine};
use super::read_until::{read_until, ReadUntil};
use super::split::{split, Split};
use crate::io::AsyncBufRead;

/// Utilities for every [`AsyncBufRead`]; bring the trait into scope
/// (`use tokio::io::AsyncBufReadExt;`) to call them.
pub trait AsyncBufReadExt: AsyncBufRead {
    /// Reads into `buf` up to and including the byte `byte`, or to end of
    /// file, and returns how many bytes were appended.
    ///
    /// Equivalent to `async fn read_until(&mut self, byte: u8, buf: &mut Vec<u8>) -> io::Result<usize>`.
    /// `Ok(0)` means end of file. `Interrupted` errors are retried; on any
    /// other error, bytes read before it are in `buf`.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if the future is dropped before it
    /// completes, the bytes read so far are in `buf`, and calling again
    /// continues reading up to `byte`. (The count returned by that call
    /// covers only what it appended.)
    fn read_until<'a>(&'a mut self, byte: u8, buf: &'a mut Vec<u8>) -> ReadUntil<'a, Self>
    where
        Self: Unpin,
    {
        read_until(self, byte, buf)
    }

    /// Reads a line (up to and including `\n`, or to end of file) and
    /// appends it to `buf`, returning how many bytes were appended.
    ///
    /// Equivalent to `async fn read_line(&mut self, buf: &mut String) -> io::Result<usize>`.
    /// `Ok(0)` means end of file. The line ending (`\n` or `\r\n`) is kept.
    /// If the line is not valid UTF-8 the error is
    /// [`ErrorKind::InvalidData`](std::io::ErrorKind::InvalidData) and `buf`
    /// keeps its original content. After an I/O error, `buf` also holds what
    /// was read before it, if that is valid UTF-8.
    ///
    /// # Cancel safety
    ///
    /// This method is not cancel safe: if the future is dropped before it
    /// completes, the bytes read so far are lost. `buf` then holds its
    /// original content (tokio promises nothing about it).
    fn read_line<'a>(&'a mut self, buf: &'a mut String) -> ReadLine<'a, Self>
    where
        Self: Unpin,
    {
        read_line(self, buf)
    }

    /// The segments of this reader separated by `byte` (which they do not
    /// include), as a [`Split`].
    fn split(self, byte: u8) -> Split<Self>
    where
        Self: Sized + Unpin,
    {
        split(self, byte)
    }

    /// Returns the reader's buffered bytes, reading more if there are none.
    ///
    /// Equivalent to `async fn fill_buf(&mut self) -> io::Result<&[u8]>`.
    /// An empty slice means end of file. The bytes stay buffered until
    /// [`consume`](Self::consume)d.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe: if the future is dropped before it
    /// completes, no data was read.
    fn fill_buf(&mut self) -> FillBuf<'_, Self>
    where
        Self: Unpin,
    {
        fill_buf(self)
    }

    /// Marks `amt` bytes of the buffer returned by
    /// [`fill_buf`](Self::fill_buf) as read.
    fn consume(&mut self, amt: usize)
    where
        Self: Unpin,
    {
        std::pin::Pin::new(self).consume(amt);
    }

    /// The lines of this reader, without their `\n` or `\r\n`, as
    /// [`Lines`].
    fn lines(self) -> Lines<Self>
    where
        Self: Sized,
    {
        lines(self)
    }
}

impl<R: AsyncBufRead + ?Sized> AsyncBufReadExt for R {}
