//! Running out of descriptors on purpose, for the `EMFILE` tests.
//!
//! The descriptor limit is per process, so a test binary that uses this
//! holds one test and nothing else (or runs its cases in child processes,
//! `support::child`).
use std::fs::File;

fn nofile_limit() -> libc::rlimit {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a live, writable `rlimit`.
    assert_eq!(
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
        0
    );
    limit
}

fn set_nofile_limit(limit: libc::rlimit) {
    // SAFETY: `limit` is a valid `rlimit` no higher than the hard limit.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) }, 0);
}

/// Every descriptor the process may still open, held: the soft
/// `RLIMIT_NOFILE` is lowered to a little above the highest descriptor in
/// use, and every free number below it holds `/dev/null`. Dropping it
/// frees them and restores the limit.
#[derive(Debug)]
pub struct Exhausted {
    fillers: Vec<File>,
    original: libc::rlimit,
}

impl Exhausted {
    /// Uses up every descriptor; the next `open` fails with `EMFILE`.
    pub fn new() -> Exhausted {
        let original = nofile_limit();
        let highest = std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u64>().ok())
            .max()
            .unwrap();
        let mut limit = original;
        limit.rlim_cur = highest + 16;
        set_nofile_limit(limit);
        let mut fillers = Vec::new();
        loop {
            match File::open("/dev/null") {
                Ok(file) => fillers.push(file),
                Err(e) if e.raw_os_error() == Some(libc::EMFILE) => {
                    return Exhausted { fillers, original };
                }
                Err(e) => panic!("unexpected error while filling descriptors: {e}"),
            }
        }
    }

    /// Frees one descriptor: the next `open` succeeds, the one after it
    /// fails with `EMFILE`.
    pub fn free_one(&mut self) {
        self.fillers.pop().expect("a descriptor to free");
    }
}

impl Drop for Exhausted {
    fn drop(&mut self) {
        self.fillers.clear();
        // SAFETY: `original` is the `rlimit` read before it was lowered.
        let rc = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &self.original) };
        // Not while unwinding: a second panic would abort the test binary.
        if rc != 0 && !std::thread::panicking() {
            panic!(
                "failed to restore RLIMIT_NOFILE: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}
