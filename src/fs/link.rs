//! Links: `hard_link`, `symlink` and `read_link`.
use std::io;
use std::path::{Path, PathBuf};

use super::asyncify;

/// Creates a new hard link `link` to the file `original` (`link(2)`).
pub async fn hard_link(original: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    let (original, link) = (original.as_ref().to_owned(), link.as_ref().to_owned());
    asyncify(move || std::fs::hard_link(original, link)).await
}

/// Creates a symbolic link `link` pointing at `original` (`symlink(2)`;
/// `original` need not exist).
pub async fn symlink(original: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    let (original, link) = (original.as_ref().to_owned(), link.as_ref().to_owned());
    asyncify(move || std::os::unix::fs::symlink(original, link)).await
}

/// The target of the symbolic link `path` (`readlink(2)`).
pub async fn read_link(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read_link(path)).await
}
