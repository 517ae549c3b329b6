//! Whole-file writes: `write`.
use std::io;
use std::path::Path;

use super::asyncify;

/// Creates or truncates the file at `path` and writes all of `contents`
/// (copied first, so the blocking task owns it).
pub async fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    let contents = contents.as_ref().to_owned();
    asyncify(move || std::fs::write(path, contents)).await
}
