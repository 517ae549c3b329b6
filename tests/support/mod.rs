//! Helpers shared by the integration tests (`mod support;` in a test file).
//!
//! * [`flavor`]: the list of runtime flavours every `rt_test!` body runs on,
//!   and the `rt_test!` macro itself;
//! * [`watchdog`]: runs a test body on its own thread and turns a hang into a
//!   failure;
//! * [`panics`]: silences the panics a test provokes on purpose;
//! * [`track`]: counters for polls and drops, and futures that count them;
//! * [`net`]: socket paths, descriptor limits and checksummed data for the
//!   socket tests;
//! * [`completion`]: runtimes with completion I/O on, and socket pairs;
//! * [`child`]: runs one test of the binary in a child process;
//! * [`fds`]: uses up every descriptor, for the `EMFILE` tests;
//! * [`fs`]: temporary directories for the file-system tests.
//! * [`process`]: a child's state in `/proc`, for the process tests.
//!
//! Each test binary uses a different subset, hence the `allow`.
#![allow(dead_code, unused_macros, unused_imports)]

pub mod child;
pub mod completion;
pub mod fds;
#[macro_use]
pub mod flavor;
pub mod fs;
pub mod net;
pub mod panics;
pub mod process;
pub mod track;
pub mod watchdog;

pub use flavor::{Flavor, Scheduler, DRIVERS};
pub use panics::quiet_panics;
pub use track::{counting_waker, panic_message, wait_until, Counter, DropGuard, Tracked};
pub use watchdog::{watchdog, within, TEST_TIMEOUT};
