//! The I/O error a resource returns once its runtime has shut down, and
//! [`is_rt_shutdown_err`], which recognises it.
//!
//! A socket, timer or other resource belongs to the runtime whose driver it
//! was registered with; once that runtime is dropped, every operation on
//! the resource fails with this error, from whichever runtime it is
//! polled. tokio makes the error recognisable by its exact text, under
//! `ErrorKind::Other` and with no source, and so does tokiwa (the same
//! text, so code that matched tokio's message keeps working).
use std::io;

/// tokio's text for the error.
const RUNTIME_SHUTTING_DOWN: &str = "A Tokio 1.x context was found, but it is being shutdown.";

/// The error of an operation on a resource whose runtime has shut down.
/// (Only the I/O driver's resources return it; without one it is unused.)
#[cfg_attr(not(tokiwa_io_driver), allow(dead_code))]
pub(crate) fn shutdown_error() -> io::Error {
    io::Error::other(RUNTIME_SHUTTING_DOWN)
}

/// Whether `err` is the error a resource returns because its runtime has
/// shut down (for example accepting on a `TcpListener` whose runtime was
/// dropped, from another runtime).
///
/// It is recognised as tokio recognises it: `ErrorKind::Other`, no source,
/// and exactly the message of that error. An error that merely mentions it
/// (with a prefix or suffix), or one of another kind, is not.
///
/// ```
/// use tokiwa::net::TcpListener;
/// use tokiwa::runtime::Runtime;
///
/// let first = Runtime::new().unwrap();
/// let second = Runtime::new().unwrap();
/// let listener = first.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
/// drop(first);
///
/// second.block_on(async {
///     let err = listener.accept().await.unwrap_err();
///     assert!(tokiwa::runtime::is_rt_shutdown_err(&err));
/// });
/// ```
pub fn is_rt_shutdown_err(err: &io::Error) -> bool {
    match err.get_ref() {
        Some(inner) => {
            err.kind() == io::ErrorKind::Other
                && inner.source().is_none()
                && inner.to_string() == RUNTIME_SHUTTING_DOWN
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_only_the_shutdown_error() {
        assert!(is_rt_shutdown_err(&shutdown_error()));
        assert!(!is_rt_shutdown_err(&io::Error::other("some other error")));
        assert!(!is_rt_shutdown_err(&io::Error::from(io::ErrorKind::Other)));
        let prefixed = format!("Error: {RUNTIME_SHUTTING_DOWN}");
        assert!(!is_rt_shutdown_err(&io::Error::other(prefixed)));
        let kind = io::Error::new(io::ErrorKind::NotFound, RUNTIME_SHUTTING_DOWN);
        assert!(!is_rt_shutdown_err(&kind));
    }
}
