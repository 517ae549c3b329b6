//! Helpers of the hyper and axum tests: a runtime per driver, a pooled
//! client, a checksum.

#![allow(dead_code)] // each test binary uses its own part

use std::future::Future;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use tokiwa::runtime::{Builder, Driver};
use tokiwa_compat::hyper::{TokiwaConnector, TokiwaExecutor, TokiwaTimer};

/// A test that has not finished in this long is hung.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(60);

/// One body, run once on each of tokiwa's drivers.
#[allow(unused_macros)] // (not used by compat_axum_emfile)
macro_rules! driver_test {
    ($(#[$meta:meta])* async fn $name:ident() $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            $(#[$meta])*
            async fn body() $body

            #[test]
            fn legacy() {
                crate::http_support::run(tokiwa::runtime::Driver::Legacy, body);
            }

            #[test]
            fn uring() {
                crate::http_support::run(tokiwa::runtime::Driver::Uring, body);
            }
        }
    };
}

/// Runs `body` on a 2-worker multi-thread runtime with `driver`, bounded
/// by [`TEST_TIMEOUT`]. A driver this build cannot run (io_uring without
/// tokiwa's `uring` feature, or a kernel without io_uring) is skipped
/// with a note.
pub fn run<F: Future<Output = ()>>(driver: Driver, body: impl FnOnce() -> F) {
    let runtime = match Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .driver(driver)
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) if driver == Driver::Uring => {
            println!("NOTE: skipped on the io_uring driver: {e}");
            return;
        }
        Err(e) => panic!("building a {driver} runtime: {e}"),
    };
    runtime.block_on(async {
        tokiwa::time::timeout(TEST_TIMEOUT, body())
            .await
            .expect("the test hung")
    });
}

/// The pooled client the tests use (HTTP/1, or HTTP/2 only).
pub type TestClient = Client<TokiwaConnector, Full<Bytes>>;

/// hyper-util's pooled client on tokiwa.
pub fn client(http2: bool) -> TestClient {
    Client::builder(TokiwaExecutor::new())
        .timer(TokiwaTimer::new())
        .http2_only(http2)
        .build(TokiwaConnector::new())
}

/// FNV-1a, to compare bodies without keeping both.
pub fn checksum(data: &[u8], mut hash: u64) -> u64 {
    for &b in data {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x100_0000_01b3);
    }
    hash
}

/// Where [`checksum`] starts.
pub const CHECKSUM_START: u64 = 0xcbf2_9ce4_8422_2325;

/// `len` bytes of a pattern that is not periodic in any small power of two.
pub fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}
