//! Whole-file reads: `read` and `read_to_string`.
use std::io;
use std::path::Path;

use super::asyncify;

/// The whole contents of a file: in one blocking task, or in io_uring
/// mode through the worker's ring (`openat`, reads, `close`).
pub async fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    if super::ring::available() {
        if let Some(res) = read_on_ring(path.as_ref()).await {
            return res;
        }
    }
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read(path)).await
}

/// `read` through the ring; `None` if the ring became unavailable before
/// anything was read (the caller starts over on the blocking pool).
async fn read_on_ring(path: &Path) -> Option<io::Result<Vec<u8>>> {
    use super::ring;
    use std::sync::Arc;
    // No ring `statx` for the size: the kernel always runs it on one of
    // its worker threads (a thread hop per file, 0.6x tokio on the
    // small-files row). An `fstat` of the open file reads the in-memory
    // inode. The size only sizes the buffer: a file that changes
    // meanwhile is still read to its end.
    let file = match ring::open(path, libc::O_RDONLY, 0).await.ok()? {
        Ok(file) => Arc::new(file),
        Err(e) => return Some(Err(e)),
    };
    let size = file.metadata().map(|m| m.len() as usize).unwrap_or(0);
    let mut data = Vec::new();
    let result = loop {
        // One byte more than the size, so a file that did not grow ends
        // with a read of 0 and no reallocation.
        let want = (size + 1).saturating_sub(data.len()).max(8192);
        match ring::read(file.clone(), data, want).await {
            Ok((Ok(0), buf)) => break Ok(buf),
            Ok((Ok(_), buf)) => data = buf,
            Ok((Err(e), _)) => break Err(e),
            Err((file, buf)) => {
                // No ring here any more: finish on the blocking pool.
                let mut buf = buf;
                break asyncify(move || {
                    std::io::Read::read_to_end(&mut &*file, &mut buf).map(|_| buf)
                })
                .await;
            }
        }
    };
    if let Ok(file) = Arc::try_unwrap(file) {
        let _ = ring::close(file.into());
    }
    Some(result)
}

/// The whole contents of a file as a string; `InvalidData` if it is not
/// UTF-8.
pub async fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    if super::ring::available() {
        let bytes = read(path).await?;
        return String::from_utf8(bytes).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            )
        });
    }
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::read_to_string(path)).await
}
