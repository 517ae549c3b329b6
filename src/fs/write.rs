//! Whole-file writes: `write`.
use std::io;
use std::path::Path;

use super::asyncify;

/// Creates or truncates the file at `path` and writes all of `contents`
/// (copied first, so the blocking task owns it).
///
/// In io_uring mode this runs through the worker's ring: `openat`, writes,
/// `close`.
pub async fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    let contents = contents.as_ref().to_owned();
    if super::ring::available() {
        use super::ring;
        use std::sync::Arc;
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC;
        if let Ok(opened) = ring::open(&path, flags, 0o666).await {
            let file = Arc::new(opened?);
            let result = match ring::write_all(file.clone(), contents).await {
                Ok((res, _)) => res,
                Err((file, contents, done)) => {
                    asyncify(move || std::io::Write::write_all(&mut &*file, &contents[done..]))
                        .await
                }
            };
            if let Ok(file) = Arc::try_unwrap(file) {
                let _ = ring::close(file.into());
            }
            return result;
        }
    }
    asyncify(move || std::fs::write(path, contents)).await
}
