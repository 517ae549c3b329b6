//! `copy`: a file's contents and permissions to another path.
use std::io;
use std::path::Path;

use super::asyncify;

/// Copies the contents of `from` to `to` (created or truncated), and
/// `from`'s permission bits; returns the number of bytes copied. The async
/// form of `std::fs::copy` (which uses `copy_file_range(2)` where it can).
pub async fn copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<u64> {
    let (from, to) = (from.as_ref().to_owned(), to.as_ref().to_owned());
    asyncify(move || std::fs::copy(from, to)).await
}
