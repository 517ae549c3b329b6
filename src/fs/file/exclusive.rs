//! A wrapper that makes a `Send` value `Sync` by never sharing it.
//!
//! `File`'s state (`Inner`) sits behind an async mutex whose guard lives
//! across the `.await`s of `sync_all`, `set_len` and the others, so those
//! futures are `Sync` only if the state is. The state may hold a boxed
//! ring future, which is `Send` but (being an `async` block's future with
//! no reason to be shared) not `Sync`. tokio's `File` futures are `Sync`
//! (its `async_send_sync.rs` asserts it), so ours must be too.
//!
//! `Sync` means "`&T` may be used from several threads at once". A value
//! that can only be reached through `&mut` (or `Pin<&mut>`) is never used
//! through a shared reference at all, so sharing `&Exclusive<T>` between
//! threads shares nothing: it is sound for any `T`, and `Send` follows
//! `T`'s. This is the idea of the standard library's unstable
//! `std::sync::Exclusive` (and of `sync_wrapper::SyncWrapper`).
use std::fmt;

/// Owns a `T` and gives access to it only through `&mut self`.
pub(super) struct Exclusive<T> {
    inner: T,
}

// SAFETY: no method of `Exclusive` takes `&self` and reaches `inner` (the
// only accessor, `get_mut`, takes `&mut self`, and `Debug` prints no part
// of `inner`). A shared `&Exclusive<T>` therefore gives no access to `T`,
// and several threads holding one cannot race on it, whatever `T` is.
unsafe impl<T> Sync for Exclusive<T> {}

impl<T> Exclusive<T> {
    pub(super) fn new(inner: T) -> Exclusive<T> {
        Exclusive { inner }
    }

    pub(super) fn get_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T> fmt::Debug for Exclusive<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The contents are not printed: that would read them through `&self`.
        f.debug_struct("Exclusive").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::Exclusive;
    use std::cell::Cell;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll, Waker};

    fn assert_sync<T: Sync>(_: &T) {}

    #[test]
    fn a_send_only_value_becomes_sync_and_stays_usable() {
        // `Cell` is `Send` but not `Sync`.
        let mut cell = Exclusive::new(Cell::new(1));
        assert_sync(&cell);
        cell.get_mut().set(2);
        assert_eq!(cell.get_mut().get(), 2);
    }

    #[test]
    fn a_boxed_send_future_becomes_sync_and_still_polls() {
        let mut fut: Exclusive<Pin<Box<dyn Future<Output = u8> + Send>>> =
            Exclusive::new(Box::pin(async { 7 }));
        assert_sync(&fut);
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(fut.get_mut().as_mut().poll(&mut cx), Poll::Ready(7));
    }
}
