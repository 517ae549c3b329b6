//! Removal: `remove_file`, `remove_dir` and `remove_dir_all`.
use std::io;
use std::path::Path;

use super::asyncify;

/// Removes a file (`unlink(2)`); open descriptors keep it alive.
pub async fn remove_file(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::remove_file(path)).await
}

/// Removes an empty directory (`rmdir(2)`).
pub async fn remove_dir(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::remove_dir(path)).await
}

/// Removes a directory and everything under it, in one blocking task.
pub async fn remove_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::remove_dir_all(path)).await
}
