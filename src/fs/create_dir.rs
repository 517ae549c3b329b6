//! `create_dir` and `create_dir_all` (see `DirBuilder` for the mode).
use std::io;
use std::path::Path;

use super::asyncify;

/// Creates a directory; its parent must exist (`mkdir(2)`).
pub async fn create_dir(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::create_dir(path)).await
}

/// Creates a directory and any missing parents; succeeds if it exists.
pub async fn create_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::create_dir_all(path)).await
}
