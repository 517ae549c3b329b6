//! The cooperative budget as the primitives see it: tokiwa's own with a
//! runtime, nothing without one (then there is no scheduler to yield to).
#[cfg(feature = "rt")]
pub(crate) use crate::task::coop::cooperative;

/// Without a runtime there is no budget: the future as it is.
#[cfg(not(feature = "rt"))]
pub(crate) fn cooperative<F: std::future::Future>(future: F) -> F {
    future
}
