//! Queries and attribute changes by path: `metadata`, `symlink_metadata`,
//! `try_exists`, `canonicalize` and `set_permissions`.
use std::fs::{Metadata, Permissions};
use std::io;
use std::path::{Path, PathBuf};

use super::asyncify;

/// Metadata of `path`, following symbolic links (`stat(2)`).
pub async fn metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::metadata(path)).await
}

/// Metadata of `path` itself, not of a link's target (`lstat(2)`).
pub async fn symlink_metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::symlink_metadata(path)).await
}

/// Whether `path` exists (a broken symbolic link does not); an error when
/// that cannot be told, e.g. permission denied on a parent.
///
/// In io_uring mode this is one `statx` through the worker's ring.
pub async fn try_exists(path: impl AsRef<Path>) -> io::Result<bool> {
    if let Ok(res) = super::ring::statx(path.as_ref(), true).await {
        return match res {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        };
    }
    let path = path.as_ref().to_owned();
    asyncify(move || path.try_exists()).await
}

/// The absolute path of `path` with every link and `.`/`..` resolved.
pub async fn canonicalize(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::canonicalize(path)).await
}

/// Changes the permissions of `path` (`chmod(2)`).
pub async fn set_permissions(path: impl AsRef<Path>, perm: Permissions) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::set_permissions(path, perm)).await
}
