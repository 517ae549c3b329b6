//! [`AsyncSeekExt`]: the `async fn`-style utilities over [`AsyncSeek`].
use std::io::SeekFrom;

use super::seek::{seek, Seek};
use crate::io::AsyncSeek;

/// Seeking utilities for every [`AsyncSeek`]; bring the trait into scope
/// (`use tokio::io::AsyncSeekExt;`) to call them.
pub trait AsyncSeekExt: AsyncSeek {
    /// Moves to `pos` and returns the new position from the start.
    ///
    /// Equivalent to `async fn seek(&mut self, pos: SeekFrom) -> io::Result<u64>`.
    /// If a seek whose future was dropped is still in flight, it completes
    /// first. Seeking past the end is allowed; before the start is an
    /// error.
    fn seek(&mut self, pos: SeekFrom) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        seek(self, pos)
    }

    /// Moves to the start; equivalent to `seek(SeekFrom::Start(0))`.
    fn rewind(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Start(0))
    }

    /// Returns the current position from the start; equivalent to
    /// `seek(SeekFrom::Current(0))`.
    fn stream_position(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Current(0))
    }
}

impl<S: AsyncSeek + ?Sized> AsyncSeekExt for S {}
