//! Which driver a runtime runs: the builder's choice, else the
//! `TOKIWA_DRIVER` environment variable, else `auto`.
use std::fmt;
use std::io;

/// The environment variable read when the builder made no choice.
pub(crate) const ENV_VAR: &str = "TOKIWA_DRIVER";

/// The I/O driver of a runtime: how its workers wait for events and how
/// they are woken.
///
/// * `Legacy`: each worker's epoll instance is waited on by a poll thread,
///   which wakes the worker through a condition variable. Always
///   available.
/// * `Uring`: each worker owns an io_uring (`SINGLE_ISSUER |
///   DEFER_TASKRUN | TASKRUN_FLAG`, Linux 6.1+), blocks in it itself and is
///   woken through an eventfd. Needs the cargo feature `uring`.
/// * `Auto` (the default): `Uring` when the feature is on and the kernel
///   supports it, else `Legacy` ([`Handle::driver_fallback_reason`] says
///   why).
///
/// Chosen with [`Builder::driver`]; when the builder is not told, the
/// environment variable `TOKIWA_DRIVER=auto|legacy|uring` decides (the
/// builder's explicit choice wins over the variable).
///
/// [`Builder::driver`]: crate::runtime::Builder::driver
/// [`Handle::driver_fallback_reason`]: crate::runtime::Handle::driver_fallback_reason
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Driver {
    /// io_uring when available, else legacy.
    Auto,
    /// epoll with a poll thread per worker.
    Legacy,
    /// A ring per worker, woken through an eventfd.
    Uring,
}

impl Driver {
    /// Parses `auto`, `legacy` or `uring` (the variable's values).
    fn parse(value: &str) -> Option<Driver> {
        match value.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Some(Driver::Auto),
            "legacy" | "epoll" => Some(Driver::Legacy),
            "uring" | "io_uring" | "io-uring" => Some(Driver::Uring),
            _ => None,
        }
    }
}

impl fmt::Display for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Driver::Auto => "auto",
            Driver::Legacy => "legacy",
            Driver::Uring => "uring",
        })
    }
}

/// The driver to start, before ring creation (which can still fail).
#[derive(Debug)]
#[cfg_attr(not(feature = "uring"), allow(dead_code))]
pub(crate) struct Choice {
    /// `Legacy` or `Uring`.
    pub(crate) driver: Driver,
    /// `driver` came from `Auto`: a failure to set up rings falls back to
    /// legacy instead of failing the build.
    pub(crate) may_fall_back: bool,
    /// Why `Auto` chose legacy.
    pub(crate) reason: Option<String>,
}

/// Resolves the builder's choice (`None`: not told) against the
/// environment, the cargo features and the kernel.
pub(crate) fn choose(requested: Option<Driver>) -> io::Result<Choice> {
    let requested = match requested {
        Some(driver) => driver,
        None => match std::env::var(ENV_VAR) {
            Ok(value) => Driver::parse(&value).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("tokiwa: {ENV_VAR}={value:?} is not one of auto, legacy, uring"),
                )
            })?,
            Err(_) => Driver::Auto,
        },
    };
    match requested {
        Driver::Legacy => Ok(Choice {
            driver: Driver::Legacy,
            may_fall_back: false,
            reason: None,
        }),
        Driver::Uring => match uring_support() {
            Ok(()) => Ok(Choice {
                driver: Driver::Uring,
                may_fall_back: false,
                reason: None,
            }),
            Err(e) => Err(e),
        },
        Driver::Auto => Ok(match uring_support() {
            Ok(()) => Choice {
                driver: Driver::Uring,
                may_fall_back: true,
                reason: None,
            },
            Err(e) => Choice {
                driver: Driver::Legacy,
                may_fall_back: false,
                reason: Some(e.to_string()),
            },
        }),
    }
}

/// Whether io_uring mode can run here (the kernel probe, cached once it
/// has an answer).
fn uring_support() -> io::Result<()> {
    #[cfg(feature = "uring")]
    {
        super::uring::probe::probe()
    }
    #[cfg(not(feature = "uring"))]
    {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "tokiwa: io_uring driver unavailable: tokiwa was built without its `uring` feature",
        ))
    }
}
