//! What the kernel must offer the io_uring driver, checked once per
//! process, and how a ring is set up.
//!
//! The probe builds one ring with the driver's setup flags and checks, in
//! order: `io_uring_setup` with `SINGLE_ISSUER | DEFER_TASKRUN |
//! TASKRUN_FLAG` (kernel 6.1), the `EXT_ARG` and `NODROP` features, the
//! `POLL_ADD` and `ASYNC_CANCEL` opcodes, and a multishot poll that posts
//! a completion with `F_MORE` for an eventfd write (5.13). A failure names
//! the capability and carries the kernel's errno, so `Builder::build` can
//! say exactly why io_uring mode is unavailable.
//!
//! "Once per process" holds for the kernel's answer, not for an accident
//! of the moment: a refusal (a missing feature or opcode, `ENOSYS` or
//! `EPERM` from a seccomp filter) will not change while the process runs,
//! and is remembered with success. A probe that fails for want of a
//! resource or by interruption (`EMFILE`, `ENFILE`, `ENOMEM`, `EAGAIN`,
//! `EBUSY`, `EINTR`: see [`is_transient`]) learned nothing about the kernel;
//! its error is returned as the kernel gave it (`raw_os_error` intact) and
//! the next runtime probes again.
use io_uring::{opcode, types, IoUring};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::OnceLock;
use std::time::Duration;

/// Submission-queue entries per ring. Completions go to a CQ four times as
/// large; one that overflows even so is kept by the kernel (`NODROP`) and
/// flushed by the next drain.
pub(crate) const SQ_ENTRIES: u32 = 256;
pub(crate) const CQ_ENTRIES: u32 = 1024;

/// The ring setup of one runtime.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RingConfig {
    /// `DEFER_TASKRUN | TASKRUN_FLAG` on top of `SINGLE_ISSUER`. Off only
    /// for the benchmark's ablation (`Builder::uring_defer_taskrun`).
    pub(crate) defer_taskrun: bool,
    pub(crate) cq_entries: u32,
    /// Completion sends for streams (`Builder::uring_completion_io`,
    /// `send.rs`).
    pub(crate) completion_io: bool,
}

impl Default for RingConfig {
    fn default() -> RingConfig {
        RingConfig {
            defer_taskrun: true,
            cq_entries: CQ_ENTRIES,
            completion_io: false,
        }
    }
}

/// Why io_uring mode cannot run, as an `io::Error` of the errno's kind whose
/// message names the missing capability. A transient `cause` is no refusal:
/// it is returned as it came, keeping its OS error code.
pub(crate) fn unsupported(capability: &str, cause: io::Error) -> io::Error {
    if is_transient(&cause) {
        return cause;
    }
    let kind = cause.kind();
    io::Error::new(
        kind,
        format!("tokiwa: io_uring driver unavailable: the kernel refused {capability}: {cause}"),
    )
}

/// Whether `e` is a failure of the moment rather than the kernel's answer:
/// out of descriptors or memory, busy, or interrupted. Such an error says
/// nothing about io_uring support and is never cached.
fn is_transient(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOMEM | libc::EAGAIN | libc::EBUSY | libc::EINTR)
    )
}

/// Creates a ring with the driver's flags. `disabled`: built with
/// `R_DISABLED`, so that the thread that later enables it (its worker)
/// becomes its single issuer.
pub(crate) fn setup_ring(config: &RingConfig, disabled: bool) -> io::Result<IoUring> {
    let mut builder = IoUring::builder();
    builder
        .setup_single_issuer()
        .setup_cqsize(config.cq_entries);
    if config.defer_taskrun {
        builder.setup_defer_taskrun().setup_taskrun_flag();
    }
    if disabled {
        builder.setup_r_disabled();
    }
    builder.build(SQ_ENTRIES).map_err(|e| {
        unsupported(
            if config.defer_taskrun {
                "io_uring_setup with SINGLE_ISSUER | DEFER_TASKRUN | TASKRUN_FLAG"
            } else {
                "io_uring_setup with SINGLE_ISSUER"
            },
            e,
        )
    })
}

/// The kernel's answer, probed until one is had: a transient failure is
/// returned and not remembered.
pub(crate) fn probe() -> io::Result<()> {
    static VERDICT: OnceLock<io::Result<()>> = OnceLock::new();
    let verdict = match VERDICT.get() {
        Some(verdict) => verdict,
        None => match run_probe() {
            Err(e) if is_transient(&e) => return Err(e),
            // Two first probes may race; either's verdict is the kernel's.
            verdict => VERDICT.get_or_init(|| verdict),
        },
    };
    verdict
        .as_ref()
        .map(|_| ())
        .map_err(|e| match e.raw_os_error() {
            Some(code) => io::Error::from_raw_os_error(code),
            None => io::Error::new(e.kind(), e.to_string()),
        })
}

fn run_probe() -> io::Result<()> {
    let mut ring = setup_ring(&RingConfig::default(), false)?;
    let params = ring.params();
    if !params.is_feature_ext_arg() {
        return Err(unsupported(
            "IORING_FEAT_EXT_ARG (timed waits, kernel 5.11)",
            io::Error::from_raw_os_error(libc::EINVAL),
        ));
    }
    if !params.is_feature_nodrop() {
        return Err(unsupported(
            "IORING_FEAT_NODROP (kernel 5.5)",
            io::Error::from_raw_os_error(libc::EINVAL),
        ));
    }
    let mut opcodes = io_uring::Probe::new();
    ring.submitter()
        .register_probe(&mut opcodes)
        .map_err(|e| unsupported("IORING_REGISTER_PROBE", e))?;
    for (code, name) in [
        (opcode::PollAdd::CODE, "IORING_OP_POLL_ADD"),
        (opcode::AsyncCancel::CODE, "IORING_OP_ASYNC_CANCEL"),
    ] {
        if !opcodes.is_supported(code) {
            return Err(unsupported(
                name,
                io::Error::from_raw_os_error(libc::EOPNOTSUPP),
            ));
        }
    }
    // A multishot poll on an eventfd: one write must post one completion
    // that keeps the poll armed.
    // SAFETY: a plain syscall; the descriptor is checked and then owned by
    // exactly one `OwnedFd`.
    let efd = unsafe {
        let fd = libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        OwnedFd::from_raw_fd(fd)
    };
    let poll = opcode::PollAdd::new(types::Fd(efd.as_raw_fd()), libc::POLLIN as u32)
        .multi(true)
        .build()
        .user_data(1);
    // SAFETY: the entry refers to no memory; the eventfd outlives the ring's
    // use of it (the ring is dropped first, below).
    unsafe { ring.submission().push(&poll) }
        .map_err(|_| io::Error::other("fresh ring has a full submission queue"))?;
    ring.submit()
        .map_err(|e| unsupported("IORING_OP_POLL_ADD submission", e))?;
    super::wake::write_eventfd(efd.as_raw_fd())?;
    let ts = types::Timespec::from(Duration::from_secs(1));
    let args = types::SubmitArgs::new().timespec(&ts);
    match ring.submitter().submit_with_args(1, &args) {
        Ok(_) => {}
        Err(e) if e.raw_os_error() == Some(libc::ETIME) => {}
        Err(e) => return Err(unsupported("io_uring_enter with EXT_ARG", e)),
    }
    let cqe = ring.completion().next();
    let multishot = match cqe {
        Some(cqe) if cqe.result() < 0 => {
            return Err(unsupported(
                "IORING_POLL_ADD_MULTI",
                io::Error::from_raw_os_error(-cqe.result()),
            ))
        }
        Some(cqe) => io_uring::cqueue::more(cqe.flags()),
        None => false,
    };
    if !multishot {
        return Err(unsupported(
            "IORING_POLL_ADD_MULTI (kernel 5.13)",
            io::Error::from_raw_os_error(libc::EINVAL),
        ));
    }
    drop(ring);
    drop(efd);
    Ok(())
}

/// The setup flags the kernel recorded for `ring` (`io_uring_params.flags`),
/// for tests that prove which flags a worker's ring runs with.
pub(crate) fn setup_flags(ring: &IoUring) -> u32 {
    /// The head of the kernel's `struct io_uring_params`.
    #[repr(C)]
    struct ParamsHead {
        sq_entries: u32,
        cq_entries: u32,
        flags: u32,
    }
    let params: *const io_uring::Parameters = ring.params();
    // SAFETY: `Parameters` is documented as a `repr(transparent)` wrapper of
    // the kernel's `io_uring_params`, whose first three fields are these
    // `u32`s; the reference is valid for the read.
    unsafe { (*params.cast::<ParamsHead>()).flags }
}
