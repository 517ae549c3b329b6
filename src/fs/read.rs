//! Whole-file reads: `read` and `read_to_string`.
use std::io;
use std::path::Path;

use super::asyncify;

/// The whole contents of a file, read in one blocking task.
pub async fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read(path)).await
}

/// The whole contents of a file as a string; `InvalidData` if it is not
/// UTF-8.
pub async fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read_to_string(path)).await
}
