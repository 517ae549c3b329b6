//! `rename`: moving a directory entry.
use std::io;
use std::path::Path;

use super::asyncify;

/// Renames `from` to `to`, replacing `to` if it exists (`rename(2)`). The
/// async form of `std::fs::rename`.
pub async fn rename(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<()> {
    let (from, to) = (from.as_ref().to_owned(), to.as_ref().to_owned());
    asyncify(move || std::fs::rename(from, to)).await
}
