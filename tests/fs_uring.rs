#![cfg(all(feature = "full", feature = "uring"))]
//! `fs` in io_uring mode: file operations on a worker go through its ring
//! (no blocking-pool thread), a dropped operation keeps its buffer and
//! descriptor until the kernel is done, and shutdown with reads in flight
//! closes every descriptor.
//!
//! The behaviour shared with legacy mode (round trips, seeks, errors) is
//! tested on both drivers by `fs_file.rs`, `fs_dir.rs` and `fs_path.rs`.

mod support;

use std::io::{ErrorKind, Write};
use std::path::Path;
use support::fs::TempDir;
use support::net::pattern;
use tokiwa::fs::{self, File, OpenOptions};
use tokiwa::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
use tokiwa::runtime::{Builder, Driver, Runtime};

fn uring(workers: Option<usize>) -> Option<Runtime> {
    support::flavor::uring_or_skip(workers)
}

/// Every kind of file operation the ring runs, checked as it goes.
async fn file_work(dir: &Path) {
    let path = dir.join("work");
    let data = pattern(1 << 20, 7);
    let mut file = File::create(&path).await.unwrap();
    file.write_all(&data).await.unwrap();
    file.flush().await.unwrap();
    file.sync_all().await.unwrap();
    file.sync_data().await.unwrap();
    drop(file);

    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .await
        .unwrap();
    file.seek(std::io::SeekFrom::Start(1000)).await.unwrap();
    let mut part = vec![0; 5000];
    file.read_exact(&mut part).await.unwrap();
    assert_eq!(part, data[1000..6000]);
    file.rewind().await.unwrap();
    let mut all = Vec::new();
    file.read_to_end(&mut all).await.unwrap();
    assert!(all == data, "read back differs");

    let mut log = OpenOptions::new()
        .append(true)
        .create(true)
        .open(dir.join("log"))
        .await
        .unwrap();
    log.write_all(b"one ").await.unwrap();
    log.write_all(b"two").await.unwrap();
    log.flush().await.unwrap();

    fs::write(dir.join("small"), b"hello ring").await.unwrap();
    assert_eq!(fs::read(dir.join("small")).await.unwrap(), b"hello ring");
    assert_eq!(
        fs::read_to_string(dir.join("log")).await.unwrap(),
        "one two"
    );
    assert!(fs::try_exists(&path).await.unwrap());
    assert!(!fs::try_exists(dir.join("missing")).await.unwrap());
    let err = File::open(dir.join("missing")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    let err = fs::read(dir.join("missing")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    let err = fs::read(dir).await.unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EISDIR));
}

#[test]
fn file_operations_on_a_worker_use_its_ring_not_the_blocking_pool() {
    let dir = TempDir::new("fs-uring-ring");
    for workers in [None, Some(2)] {
        let Some(rt) = uring(workers) else { return };
        let path = dir.join(&format!("{workers:?}"));
        std::fs::create_dir(&path).unwrap();
        // On a worker (a spawned task): the block_on thread of a
        // multi-thread runtime is not one.
        rt.block_on(async move { tokiwa::spawn(async move { file_work(&path).await }).await })
            .unwrap();
        let metrics = rt.metrics();
        assert_eq!(
            metrics.num_blocking_threads(),
            0,
            "{workers:?}: a file operation went to the blocking pool"
        );
        let cqes: u64 = (0..metrics.num_workers())
            .map(|w| metrics.worker_cqe_count(w))
            .sum();
        assert!(cqes > 20, "{workers:?}: only {cqes} completions");
    }
    // Legacy mode does the same work on the blocking pool.
    let rt = Builder::new_current_thread()
        .enable_all()
        .driver(Driver::Legacy)
        .build()
        .unwrap();
    let path = dir.join("legacy");
    std::fs::create_dir(&path).unwrap();
    rt.block_on(file_work(&path));
    assert!(rt.metrics().num_blocking_threads() > 0);
}

#[test]
fn random_4k_reads_through_the_ring_return_the_right_bytes() {
    let Some(rt) = uring(Some(2)) else { return };
    let dir = TempDir::new("fs-uring-random");
    let path = dir.join("big");
    let data = pattern(8 << 20, 11);
    std::fs::write(&path, &data).unwrap();
    rt.block_on(async move {
        let mut tasks = Vec::new();
        for seed in 0..4u64 {
            let path = path.clone();
            let data = data.clone();
            tasks.push(tokiwa::spawn(async move {
                let mut file = File::open(&path).await.unwrap();
                let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                let mut block = vec![0u8; 4096];
                for _ in 0..500 {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let offset = (state % (data.len() as u64 / 4096)) * 4096;
                    file.seek(std::io::SeekFrom::Start(offset)).await.unwrap();
                    file.read_exact(&mut block).await.unwrap();
                    let at = offset as usize;
                    assert!(block == data[at..at + 4096], "bad block at {offset}");
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
    });
}

/// A FIFO with one writer (kept by the test) and, once `open_reader` ran,
/// exactly one reader: the `File` under test. A write then fails with
/// `BrokenPipe` exactly when that reader's descriptor is closed.
struct Fifo {
    path: std::path::PathBuf,
    writer: std::fs::File,
    placeholder: Option<std::fs::File>,
}

impl Fifo {
    fn new(dir: &TempDir, name: &str) -> Fifo {
        let path = dir.join(name);
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a plain syscall on a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // A non-blocking reader first, so the writer's open does not block
        // (and the `File`'s open then finds a writer).
        let placeholder = std::os::unix::fs::OpenOptionsExt::custom_flags(
            std::fs::OpenOptions::new().read(true),
            libc::O_NONBLOCK,
        )
        .open(&path)
        .unwrap();
        let writer = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        Fifo {
            path,
            writer,
            placeholder: Some(placeholder),
        }
    }

    async fn open_reader(&mut self) -> File {
        let file = File::open(&self.path).await.unwrap();
        self.placeholder = None;
        file
    }

    fn reader_is_open(&mut self) -> bool {
        match self.writer.write(b"x") {
            Ok(_) => true,
            Err(e) if e.kind() == ErrorKind::BrokenPipe => false,
            Err(e) => panic!("unexpected FIFO write error: {e}"),
        }
    }
}

#[test]
fn a_file_dropped_with_a_read_in_flight_closes_once_the_kernel_is_done() {
    let Some(rt) = uring(None) else { return };
    let dir = TempDir::new("fs-uring-dropped");
    let mut fifo = Fifo::new(&dir, "fifo");
    rt.block_on(async {
        let mut file = fifo.open_reader().await;
        let mut buf = [0u8; 16];
        {
            let mut read = std::pin::pin!(file.read(&mut buf));
            // The read is submitted and waits on the empty FIFO.
            assert!(futures::poll!(read.as_mut()).is_pending());
        }
        drop(file);
        // The kernel still holds the read (and through it the file).
        assert!(fifo.reader_is_open());
    });
    // `block_on` let go of the ring: the read was cancelled, its buffer
    // freed and the descriptor closed.
    assert!(!fifo.reader_is_open());
}

#[test]
fn shutdown_with_reads_in_flight_closes_every_file() {
    const READERS: usize = 32;
    let Some(rt) = uring(Some(2)) else { return };
    let dir = TempDir::new("fs-uring-shutdown");
    let mut fifos: Vec<Fifo> = (0..READERS)
        .map(|i| Fifo::new(&dir, &format!("fifo-{i}")))
        .collect();
    let (opened_tx, mut opened_rx) = tokiwa::sync::mpsc::unbounded_channel();
    for (i, fifo) in fifos.iter_mut().enumerate() {
        // Opened and read in a task that never finishes.
        let path = fifo.path.clone();
        let opened_tx = opened_tx.clone();
        rt.spawn(async move {
            let mut file = File::open(&path).await.unwrap();
            opened_tx.send(i).unwrap();
            let mut buf = [0u8; 64];
            let _ = file.read(&mut buf).await;
            unreachable!("nobody writes to the FIFO");
        });
    }
    for _ in 0..READERS {
        rt.block_on(opened_rx.recv()).unwrap();
    }
    for fifo in &mut fifos {
        fifo.placeholder = None;
    }
    drop(rt);
    for (i, fifo) in fifos.iter_mut().enumerate() {
        assert!(
            !fifo.reader_is_open(),
            "reader {i} still open after shutdown"
        );
    }
}
