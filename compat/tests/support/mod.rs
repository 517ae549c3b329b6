//! Helpers shared by the compat tests (`mod support;` in a test file).
//!
//! [`compat_test!`] writes each test body once and runs it on both
//! schedulers × both drivers. The io_uring runtimes are skipped, with a
//! note on stderr, where `build()` fails: tokiwa built without its `uring`
//! feature (the legacy-only CI run) or a kernel without the needed ring
//! flags.
#![allow(dead_code, unused_macros)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokiwa::runtime::{Builder, Driver, Runtime};

/// How long one test body may run before it fails as hung.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(60);

/// A runtime of the given scheduler on `driver`, or `None` (with a note)
/// when `driver` is io_uring and this build or kernel cannot run it.
pub fn runtime(multi_thread: bool, driver: Driver) -> Option<Runtime> {
    let mut builder = if multi_thread {
        let mut builder = Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    } else {
        Builder::new_current_thread()
    };
    match builder.enable_all().driver(driver).build() {
        Ok(rt) => Some(rt),
        Err(e) if driver == Driver::Uring => {
            eprintln!("note: skipped on the io_uring driver: {e}");
            None
        }
        Err(e) => panic!("failed to build a {driver} runtime: {e}"),
    }
}

/// Writes each `fn name() { async body }` once, as a test in each of the
/// modules `legacy_current_thread`, `legacy_multi_thread`,
/// `uring_current_thread` and `uring_multi_thread`; the body runs inside
/// `block_on` under [`TEST_TIMEOUT`].
macro_rules! compat_test {
    ($($items:tt)*) => {
        compat_test_module! { legacy_current_thread, false, Legacy, $($items)* }
        compat_test_module! { legacy_multi_thread, true, Legacy, $($items)* }
        compat_test_module! { uring_current_thread, false, Uring, $($items)* }
        compat_test_module! { uring_multi_thread, true, Uring, $($items)* }
    };
}

/// One flavour's module of `compat_test!` (internal).
macro_rules! compat_test_module {
    ($module:ident, $multi:expr, $driver:ident, $( $(#[$attr:meta])* fn $name:ident() $body:block )*) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;

            $(
                #[test]
                $(#[$attr])*
                fn $name() {
                    let Some(rt) =
                        $crate::support::runtime($multi, tokiwa::runtime::Driver::$driver)
                    else {
                        return;
                    };
                    rt.block_on(async {
                        tokiwa::time::timeout($crate::support::TEST_TIMEOUT, async move $body)
                            .await
                            .expect("test body timed out")
                    })
                }
            )*
        }
    };
}

/// The chunk sizes the round trips use, from one byte to 1 MiB.
pub const CHUNKS: &[usize] = &[1, 7, 4096, 65536, 1 << 20];

/// How many bytes a round trip in `chunk`-sized pieces moves: a few
/// chunks and an odd tail, small enough that one-byte I/O stays quick.
pub fn total_for(chunk: usize) -> usize {
    chunk * 3 + 1001
}

/// `len` deterministic, non-repeating bytes (xorshift), seeded by `seed`.
pub fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// FNV-1a over `bytes`, with the length folded in.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h ^ bytes.len() as u64
}

/// A fresh empty directory under the system's temporary directory.
pub fn temp_dir(tag: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "tokiwa-compat-{tag}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A connected pair of tokiwa TCP streams on the loopback interface.
pub async fn tcp_pair() -> (tokiwa::net::TcpStream, tokiwa::net::TcpStream) {
    let listener = tokiwa::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, accepted) =
        tokiwa::join!(tokiwa::net::TcpStream::connect(addr), listener.accept());
    (client.unwrap(), accepted.unwrap().0)
}
