// The file-system workloads, written once against the tokio API.
//
// Compiled twice by `main.rs` like `workloads.rs`: the parent module binds
// `rt` to `::tokio` or `::tokiwa`, and this file names the runtime only
// through `rt::`. Each entry point builds its own fresh runtime, warms it up
// untimed, and returns only what it measured. The data file is made (and
// warmed in the page cache) by `fs.rs`; its bytes follow `fs::pattern_byte`,
// which every read checks at a few places so that a wrong read cannot pass
// for a fast one.

use super::rt;

use rt::io::{AsyncReadExt, AsyncSeekExt};
use std::io::SeekFrom;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rt::runtime::Runtime;

use super::w::{build, in_task};
use crate::columns::Column;
use crate::fs::{check_block, offsets, pattern_block, DataFile, BLOCK};
use crate::Flavour;

/// Runs `f` (the timed iterations); on the uring column, checks that the
/// worker rings completed at least `ops` operations meanwhile, so that a
/// silent fallback to the blocking pool cannot pass for the ring.
fn on_ring<T>(runtime: &Runtime, column: Column, ops: usize, f: impl FnOnce() -> T) -> T {
    let cqes = || super::counters(runtime.handle()).map(|c| c.cqes);
    let before = cqes();
    let out = f();
    if let (Column::Uring, Some(before), Some(after)) = (column, before, cqes()) {
        let done = after - before;
        assert!(
            done >= ops as u64,
            "uring column: {done} CQEs for {ops} file operations: not on the ring"
        );
    }
    out
}

/// `iters` times: open the data file and read it from start to end with
/// `File::read` into a `BLOCK`-byte buffer; the time to the end of file.
/// One untimed pass over the first `warm_up` bytes first.
pub fn seq_read(
    flavour: Flavour,
    column: Column,
    data: DataFile,
    warm_up: u64,
    iters: usize,
) -> Vec<Duration> {
    let DataFile { path, len } = data;
    let runtime = build(flavour, column);
    let once = |limit: u64| {
        let path = path.clone();
        in_task(&runtime, move || async move {
            let start = Instant::now();
            let mut file = rt::fs::File::open(&*path).await.expect("open data file");
            let mut buf = vec![0u8; BLOCK];
            let mut pos = 0u64;
            while pos < limit {
                let n = file.read(&mut buf).await.expect("read data file");
                assert!(n > 0, "early end of file at {pos} of {len}");
                check_block(pos, &buf[..n]);
                pos += n as u64;
            }
            if limit == len {
                assert_eq!(file.read(&mut buf).await.expect("read at end"), 0);
            }
            start.elapsed()
        })
    };
    once(warm_up.min(len));
    let reads = iters * len.div_ceil(BLOCK as u64) as usize;
    let samples = on_ring(&runtime, column, reads, || {
        (0..iters).map(|_| once(len)).collect()
    });
    drop(runtime);
    samples
}

/// What one timed iteration of `random_read` measured.
pub struct RandomRead {
    pub elapsed: Duration,
    /// Nanoseconds of each seek + read, in no particular order.
    pub latencies_ns: Vec<u32>,
}

/// `iters` times: `reads` random `BLOCK`-byte reads of the data file
/// (`seek(Start(off))` + `read_exact`) at the offsets of `fs::offsets`, by
/// `tasks` tasks that each open their own `File` (untimed) and read their
/// share of the offsets one after the other. One untimed iteration of
/// `warm_up` reads first.
pub fn random_read(
    flavour: Flavour,
    column: Column,
    data: DataFile,
    tasks: usize,
    reads: usize,
    warm_up: usize,
    iters: usize,
) -> Vec<RandomRead> {
    let DataFile { path, len } = data;
    let runtime = build(flavour, column);
    let once = |reads: usize, seed: u64| {
        let path = path.clone();
        in_task(&runtime, move || async move {
            // Open every file first: the row measures reads, not opens.
            let mut lanes = Vec::with_capacity(tasks);
            for lane in 0..tasks {
                let share = reads / tasks + usize::from(lane < reads % tasks);
                let file = rt::fs::File::open(&*path).await.expect("open data file");
                let offs = offsets(seed + lane as u64, len, share);
                lanes.push((file, offs));
            }
            let start = Instant::now();
            let lanes: Vec<_> = lanes
                .into_iter()
                .map(|(mut file, offs)| {
                    rt::spawn(async move {
                        let mut buf = vec![0u8; BLOCK];
                        let mut latencies = Vec::with_capacity(offs.len());
                        for off in offs {
                            let t = Instant::now();
                            let at = file.seek(SeekFrom::Start(off)).await.expect("seek");
                            assert_eq!(at, off);
                            file.read_exact(&mut buf).await.expect("read_exact");
                            latencies.push(t.elapsed().as_nanos().min(u32::MAX as u128) as u32);
                            check_block(off, &buf);
                        }
                        latencies
                    })
                })
                .collect();
            let mut latencies_ns = Vec::with_capacity(reads);
            for lane in lanes {
                latencies_ns.extend(lane.await.expect("read lane"));
            }
            RandomRead {
                elapsed: start.elapsed(),
                latencies_ns,
            }
        })
    };
    once(warm_up, 1_000);
    let samples = on_ring(&runtime, column, iters * reads, || {
        (0..iters).map(|i| once(reads, i as u64 * 100)).collect()
    });
    drop(runtime);
    samples
}

/// `iters` times: in a fresh, empty directory under `base` (made and
/// removed untimed), `fs::write` `files` files of `BLOCK` bytes, then
/// `fs::read` each back and check it; the time of the writes and reads.
/// One untimed iteration of `warm_up` files first.
pub fn small_files(
    flavour: Flavour,
    column: Column,
    base: Arc<Path>,
    files: usize,
    warm_up: usize,
    iters: usize,
) -> Vec<Duration> {
    let runtime = build(flavour, column);
    let once = |files: usize, iter: usize| {
        let dir: PathBuf = base.join(format!("{}-{iter}", column.label()));
        std::fs::create_dir(&dir).expect("create small-files dir");
        let inner = dir.clone();
        let elapsed = in_task(&runtime, move || async move {
            let names: Vec<PathBuf> = (0..files).map(|i| inner.join(format!("f{i}"))).collect();
            let contents: Vec<Vec<u8>> = (0..files)
                .map(|i| pattern_block(i as u64 * BLOCK as u64))
                .collect();
            let start = Instant::now();
            for (name, data) in names.iter().zip(&contents) {
                rt::fs::write(name, data).await.expect("write small file");
            }
            for (i, name) in names.iter().enumerate() {
                let data = rt::fs::read(name).await.expect("read small file");
                assert_eq!(data.len(), BLOCK, "{}", name.display());
                check_block(i as u64 * BLOCK as u64, &data);
            }
            start.elapsed()
        });
        std::fs::remove_dir_all(&dir).expect("remove small-files dir");
        elapsed
    };
    once(warm_up, usize::MAX);
    // At least a write and a read per file.
    let samples = on_ring(&runtime, column, iters * files * 2, || {
        (0..iters).map(|i| once(files, i)).collect()
    });
    drop(runtime);
    samples
}
