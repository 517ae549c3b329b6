#![cfg(all(feature = "full", feature = "uring"))]
//! The io_uring probe out of descriptors: the first io_uring runtime of
//! the process, built when no descriptor is free, fails with the kernel's
//! `EMFILE` (`raw_os_error` intact); once descriptors are free, io_uring
//! runtimes build, and `Auto` chooses io_uring again. The probe remembers
//! the kernel's answer, never a failure of the moment.
//!
//! The probe runs once per process and the descriptor limit is per process,
//! so this binary holds this one test (nothing probed before it).

#[macro_use]
mod support;

use support::fds::Exhausted;
use support::{Flavor, TEST_TIMEOUT};
use tokiwa::runtime::Driver;

#[test]
fn the_first_probe_at_emfile_fails_then_io_uring_runs() {
    support::watchdog(TEST_TIMEOUT, || {
        let fillers = Exhausted::new();
        for _ in 0..2 {
            let err = Flavor::current_thread()
                .on(Driver::Uring)
                .builder()
                .build()
                .expect_err("no descriptor for a ring");
            assert_eq!(err.raw_os_error(), Some(libc::EMFILE), "{err:?}");
        }
        drop(fillers);

        let rt = Flavor::current_thread().on(Driver::Uring).build();
        assert_eq!(rt.handle().driver(), Driver::Uring);
        let spawned = rt.block_on(rt.spawn(async { 6 * 7 })).unwrap();
        assert_eq!(spawned, 42);

        let rt = Flavor::multi_thread(2).on(Driver::Auto).build();
        assert_eq!(
            rt.handle().driver(),
            Driver::Uring,
            "fell back: {:?}",
            rt.handle().driver_fallback_reason()
        );
        assert_eq!(rt.handle().driver_fallback_reason(), None);
    });
}
