#![cfg(feature = "full")]
//! `fs::File`: round trips of 0 B, 1 B and 64 MiB with checksums, seeks,
//! reads and writes interleaved against a `std::fs::File` model of the
//! same file, several `File`s on one file, `try_clone`, the `&self`
//! methods, the std conversions and a background write's error.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::io::{IoSlice, Read, Seek, SeekFrom, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::PermissionsExt;

use support::fs::TempDir;
use support::net::{pattern, Checksum};
use tokiwa::fs::{self, File, OpenOptions};
use tokiwa::io::{AsyncReadExt, AsyncSeek, AsyncSeekExt, AsyncWriteExt};

fn checksum(bytes: &[u8]) -> Checksum {
    let mut sum = Checksum::new();
    sum.update(bytes);
    sum
}

/// Writes `len` bytes with `File::write_all` + `flush`, reads them back
/// with `File::read_to_end`, then the same with `fs::write`/`fs::read`.
async fn round_trip(dir: &TempDir, len: usize) {
    let data = pattern(len, len as u64 + 1);
    let want = checksum(&data);
    let path = dir.join(&format!("round-trip-{len}"));

    let mut file = File::create(&path).await.unwrap();
    file.write_all(&data).await.unwrap();
    file.flush().await.unwrap();
    drop(file);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), len as u64);

    let mut back = Vec::new();
    let mut file = File::open(&path).await.unwrap();
    assert_eq!(file.read_to_end(&mut back).await.unwrap(), len);
    assert_eq!(checksum(&back), want);

    let path2 = dir.join(&format!("round-trip-{len}-fs"));
    fs::write(&path2, &data).await.unwrap();
    let back = fs::read(&path2).await.unwrap();
    assert_eq!(checksum(&back), want);
}

/// A tiny deterministic generator for the model test.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Random reads, writes and seeks applied to a tokiwa `File` and a std
/// `File` on two copies of one file: every result and the final contents
/// must agree.
async fn interleave_against_model(dir: &TempDir, seed: u64, max_buf_size: usize) {
    let initial = pattern(3000, seed);
    let (ours, model) = (
        dir.join(&format!("ours-{seed}")),
        dir.join(&format!("model-{seed}")),
    );
    std::fs::write(&ours, &initial).unwrap();
    std::fs::write(&model, &initial).unwrap();

    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&ours)
        .await
        .unwrap();
    file.set_max_buf_size(max_buf_size);
    assert_eq!(file.max_buf_size(), max_buf_size);
    let mut std = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&model)
        .unwrap();
    let mut rng = Rng(seed | 1);

    for step in 0..400 {
        match rng.below(5) {
            0 | 1 => {
                let n = rng.below(600) as usize + 1;
                let mut a = vec![0; n];
                let mut b = vec![0; n];
                // `read_exact` semantics on both sides: tokiwa's reads may
                // be short where std's are not.
                let got = read_up_to(&mut file, &mut a).await;
                let want = std_read_up_to(&mut std, &mut b);
                assert_eq!(got, want, "step {step}: read of {n}");
                assert_eq!(a[..got], b[..want], "step {step}");
            }
            2 | 3 => {
                let data = pattern(rng.below(700) as usize + 1, step);
                file.write_all(&data).await.unwrap();
                std.write_all(&data).unwrap();
                if rng.below(3) == 0 {
                    file.flush().await.unwrap();
                }
            }
            _ => {
                let pos = match rng.below(3) {
                    0 => SeekFrom::Start(rng.below(4000)),
                    1 => SeekFrom::Current(rng.below(800) as i64 - 400),
                    _ => SeekFrom::End(-(rng.below(500) as i64)),
                };
                let got = file.seek(pos).await;
                let want = std.seek(pos);
                match (got, want) {
                    (Ok(got), Ok(want)) => assert_eq!(got, want, "step {step}: {pos:?}"),
                    (Err(got), Err(want)) => assert_eq!(got.kind(), want.kind()),
                    (got, want) => panic!("step {step}: {pos:?}: {got:?} vs {want:?}"),
                }
            }
        }
    }
    file.flush().await.unwrap();
    assert_eq!(
        file.stream_position().await.unwrap(),
        std.stream_position().unwrap()
    );
    drop(file);
    assert_eq!(
        std::fs::read(&ours).unwrap(),
        std::fs::read(&model).unwrap()
    );
}

async fn read_up_to(file: &mut File, buf: &mut [u8]) -> usize {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]).await.unwrap() {
            0 => break,
            n => filled += n,
        }
    }
    filled
}

fn std_read_up_to(file: &mut std::fs::File, buf: &mut [u8]) -> usize {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]).unwrap() {
            0 => break,
            n => filled += n,
        }
    }
    filled
}

/// Creates a FIFO at `path`.
fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a plain syscall on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Reads the FIFO at `path` until every writer has closed it, waiting at
/// most `TEST_TIMEOUT` for each chunk.
fn drain_fifo(path: &std::path::Path) -> Vec<u8> {
    let mut reader = std::os::unix::fs::OpenOptionsExt::custom_flags(
        std::fs::OpenOptions::new().read(true),
        libc::O_NONBLOCK,
    )
    .open(path)
    .unwrap();
    let mut all = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => return all,
            Ok(n) => all.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let mut pfd = libc::pollfd {
                    fd: reader.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                let ms = support::TEST_TIMEOUT.as_millis() as i32;
                // SAFETY: `pfd` is one valid `pollfd`.
                let n = unsafe { libc::poll(&mut pfd, 1, ms) };
                assert!(
                    n > 0,
                    "no data nor EOF on the FIFO after {ms} ms ({} bytes read)",
                    all.len()
                );
            }
            Err(e) => panic!("FIFO read failed: {e}"),
        }
    }
}

rt_test! {
    fn round_trip_empty_one_byte_and_64_mib() {
        rt().block_on(async {
            let dir = TempDir::new("round-trip");
            for len in [0, 1, 64 << 20] {
                round_trip(&dir, len).await;
            }
        });
    }

    fn seeks_reads_and_writes_match_a_std_model() {
        rt().block_on(async {
            let dir = TempDir::new("model");
            for (seed, max) in [(1, 2 << 20), (2, 7), (3, 64), (4, 1000)] {
                interleave_against_model(&dir, seed, max).await;
            }
        });
    }

    fn many_files_on_one_file() {
        rt().block_on(async {
            let dir = TempDir::new("many");
            let path = dir.join("shared");
            const CHUNK: usize = 100_000;
            const TASKS: usize = 8;
            File::create(&path).await.unwrap().set_len((CHUNK * TASKS) as u64).await.unwrap();
            let mut set = tokiwa::task::JoinSet::new();
            for i in 0..TASKS {
                let path = path.clone();
                set.spawn(async move {
                    let mut file = OpenOptions::new().write(true).open(&path).await.unwrap();
                    file.set_max_buf_size(4096);
                    file.seek(SeekFrom::Start((i * CHUNK) as u64)).await.unwrap();
                    file.write_all(&pattern(CHUNK, i as u64)).await.unwrap();
                    file.flush().await.unwrap();
                    // Read our own region back through another File.
                    let mut file = File::open(&path).await.unwrap();
                    file.seek(SeekFrom::Start((i * CHUNK) as u64)).await.unwrap();
                    let mut back = vec![0; CHUNK];
                    file.read_exact(&mut back).await.unwrap();
                    back
                });
            }
            let mut n = 0;
            while let Some(back) = set.join_next().await {
                let back = back.unwrap();
                assert!((0..TASKS).any(|i| back == pattern(CHUNK, i as u64)));
                n += 1;
            }
            assert_eq!(n, TASKS);
            let all = fs::read(&path).await.unwrap();
            for i in 0..TASKS {
                assert_eq!(all[i * CHUNK..(i + 1) * CHUNK], pattern(CHUNK, i as u64)[..], "chunk {i}");
            }
        });
    }

    fn try_clone_shares_the_cursor() {
        rt().block_on(async {
            let dir = TempDir::new("clone");
            let path = dir.join("f");
            let mut a = File::create_new(&path).await.unwrap();
            a.set_max_buf_size(16);
            a.write_all(b"hello ").await.unwrap();
            // try_clone waits for the write in flight.
            let mut b = a.try_clone().await.unwrap();
            assert_eq!(b.max_buf_size(), 16);
            b.write_all(b"world").await.unwrap();
            b.flush().await.unwrap();
            // A task of its own reads through the clone.
            let read = tokiwa::spawn(async move {
                b.seek(SeekFrom::Start(0)).await.unwrap();
                let mut s = String::new();
                b.read_to_string(&mut s).await.unwrap();
                s
            });
            assert_eq!(read.await.unwrap(), "hello world");
            assert_eq!(a.stream_position().await.unwrap(), 11);
            assert_eq!(
                File::create_new(&path).await.unwrap_err().kind(),
                std::io::ErrorKind::AlreadyExists
            );
        });
    }

    fn ref_methods_and_conversions() {
        rt().block_on(async {
            let dir = TempDir::new("methods");
            let path = dir.join("f");
            let mut file = File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o640)
                .open(&path)
                .await
                .unwrap();
            file.write_all(b"0123456789").await.unwrap();
            file.sync_all().await.unwrap();
            file.sync_data().await.unwrap();
            let meta = file.metadata().await.unwrap();
            assert_eq!(meta.len(), 10);
            assert!(meta.is_file());

            // set_len does not move the cursor, even with read-ahead.
            file.seek(SeekFrom::Start(2)).await.unwrap();
            let mut two = [0; 2];
            file.read_exact(&mut two).await.unwrap();
            assert_eq!(&two, b"23");
            file.set_len(6).await.unwrap();
            assert_eq!(file.stream_position().await.unwrap(), 4);
            let mut rest = Vec::new();
            file.read_to_end(&mut rest).await.unwrap();
            assert_eq!(rest, b"45");
            file.set_len(20).await.unwrap();
            assert_eq!(file.metadata().await.unwrap().len(), 20);

            file.set_permissions(std::fs::Permissions::from_mode(0o600)).await.unwrap();
            assert_eq!(fs::metadata(&path).await.unwrap().permissions().mode() & 0o777, 0o600);
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
            file.set_modified(t).await.unwrap();
            file.set_times(fs::FileTimes::new().set_accessed(t)).await.unwrap();
            assert_eq!(fs::metadata(&path).await.unwrap().modified().unwrap(), t);

            assert_eq!(file.as_raw_fd(), file.as_fd().as_raw_fd());
            assert!(format!("{file:?}").contains("File"));

            // A vectored write.
            file.seek(SeekFrom::Start(0)).await.unwrap();
            let n = file
                .write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")])
                .await
                .unwrap();
            assert_eq!(n, 4);
            file.flush().await.unwrap();

            let std = file.into_std().await;
            let mut file = File::from(std);
            let mut head = [0; 4];
            file.seek(SeekFrom::Start(0)).await.unwrap();
            file.read_exact(&mut head).await.unwrap();
            assert_eq!(&head, b"abcd");
            let std = file.try_into_std().unwrap();
            let file = File::from_std(std);
            drop(file);
        });
    }

    fn background_write_error_is_reported_by_flush() {
        rt().block_on(async {
            // Every write to /dev/full fails with ENOSPC.
            let mut file = OpenOptions::new().write(true).open("/dev/full").await.unwrap();
            assert_eq!(file.write(b"lost").await.unwrap(), 4);
            let err = file.flush().await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::ENOSPC), "{err:?}");
            // Reported once; the File stays usable.
            file.flush().await.unwrap();
            // A sync in between keeps the error for the next write.
            assert_eq!(file.write(b"lost").await.unwrap(), 4);
            let _ = file.sync_all().await;
            let err = file.write(b"x").await.unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::StorageFull);
        });
    }

    fn start_seek_while_busy_fails_until_completed() {
        rt().block_on(async {
            let dir = TempDir::new("busy-seek");
            let mut file = File::create(dir.join("f")).await.unwrap();
            file.write_all(b"abc").await.unwrap();
            // The write is in flight: tokio's contract is an error, not a
            // silent reorder.
            let err = std::pin::Pin::new(&mut file).start_seek(SeekFrom::Start(0)).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::Other);
            // poll_complete collects the write and reports the position.
            let pos = std::future::poll_fn(|cx| std::pin::Pin::new(&mut file).poll_complete(cx)).await;
            assert_eq!(pos.unwrap(), 0, "no seek completed yet");
            assert_eq!(file.seek(SeekFrom::End(0)).await.unwrap(), 3);
            // Other ways in from descriptors.
            let fd: std::os::fd::OwnedFd = std::fs::File::open(dir.join("f")).unwrap().into();
            let mut file = File::from(fd);
            let mut s = String::new();
            file.read_to_string(&mut s).await.unwrap();
            assert_eq!(s, "abc");
            let raw = std::os::fd::IntoRawFd::into_raw_fd(std::fs::File::open(dir.join("f")).unwrap());
            // SAFETY: `raw` was just released by its owner and is used once.
            let file = unsafe { <File as std::os::fd::FromRawFd>::from_raw_fd(raw) };
            assert_eq!(file.metadata().await.unwrap().len(), 3);
        });
    }

    fn read_into_empty_buffer_and_at_eof() {
        rt().block_on(async {
            let dir = TempDir::new("eof");
            let path = dir.join("f");
            std::fs::write(&path, b"xy").unwrap();
            let mut file = File::open(&path).await.unwrap();
            assert_eq!(file.read(&mut []).await.unwrap(), 0);
            let mut buf = [0; 8];
            assert_eq!(file.read(&mut buf).await.unwrap(), 2);
            assert_eq!(file.read(&mut buf).await.unwrap(), 0);
            // Writing to a read-only File fails (EBADF), on flush.
            let _ = file.write(b"z").await;
            assert!(file.flush().await.is_err());
        });
    }

    fn a_write_then_drop_without_flush_reaches_the_file() {
        let dir = TempDir::new("drop-unflushed");
        let path = dir.join("f");
        let rt = rt();
        let small = path.clone();
        // In a task, so that on a multi-thread runtime it runs on a worker
        // (in io_uring mode: through the worker's ring).
        rt.block_on(async move {
            tokiwa::spawn(async move {
                let mut file = File::create(&small).await.unwrap();
                file.write_all(b"hello world").await.unwrap();
                // Dropped without `flush`.
            })
            .await
            .unwrap();
        });
        support::wait_until(support::TEST_TIMEOUT, "the unflushed write", || {
            std::fs::read(&path).unwrap() == b"hello world"
        });
        // The same for 1 MiB, with the runtime dropped right after.
        let data = pattern(1 << 20, 3);
        let big = path.clone();
        let written = data.clone();
        rt.block_on(async move {
            tokiwa::spawn(async move {
                let mut file = File::create(&big).await.unwrap();
                file.write_all(&written).await.unwrap();
            })
            .await
            .unwrap();
        });
        drop(rt);
        assert_eq!(std::fs::read(&path).unwrap(), data);
    }

    fn a_write_cut_off_by_a_timeout_finishes_off_the_worker() {
        // A FIFO nobody reads: 1 MiB does not fit in the pipe, so the
        // write cannot finish until the test reads. It was reported done,
        // so dropping the `File` must not lose it, and finishing it must
        // not hold a worker (nor `block_on`) until a reader comes.
        let dir = TempDir::new("drop-fifo");
        let path = dir.join("fifo");
        mkfifo(&path);
        let data = pattern(1 << 20, 4);
        let rt = rt();
        let (fifo, written) = (path.clone(), data.clone());
        rt.block_on(async move {
            tokiwa::spawn(async move {
                // Read-write, so the open needs no reader.
                let mut file = OpenOptions::new().read(true).write(true).open(&fifo).await.unwrap();
                file.write_all(&written).await.unwrap();
                let flush = tokiwa::time::timeout(std::time::Duration::from_millis(20), file.flush());
                assert!(flush.await.is_err(), "the flush finished with nobody reading");
                // Dropped with the write unfinished.
            })
            .await
            .unwrap();
        });
        // The runtime is still usable while the rest is written.
        assert_eq!(rt.block_on(async { tokiwa::spawn(async { 7 }).await.unwrap() }), 7);
        assert_eq!(drain_fifo(&path), data);
        drop(rt);
    }
}

#[test]
fn a_write_reported_done_survives_runtime_shutdown() {
    let dir = TempDir::new("shutdown");
    let path = dir.join("f");
    let data = pattern(1 << 20, 9);
    let rt = tokiwa::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    rt.block_on(async {
        let mut file = File::create(&path).await.unwrap();
        assert_eq!(file.write(&data).await.unwrap(), data.len());
        // Dropped with the write in flight, and the runtime right after.
    });
    drop(rt);
    assert_eq!(std::fs::read(&path).unwrap(), data);
}
