//! `pin!`: pinning futures (or any value) to the stack.

/// Pins values on the stack, shadowing each binding with a `Pin<&mut T>`.
///
/// A future returned by an `async fn` is usually `!Unpin`: polling it
/// through a reference (`(&mut fut).await`, or as a `select!` branch that is
/// used again on the next turn of a loop) needs it pinned first. `pin!`
/// moves the value into a new binding of the same name that is never
/// moved again, and replaces the name with a pinned mutable reference to it,
/// so the original value cannot be reached (nor moved) any more.
///
/// Two forms are accepted: existing bindings, or `let` statements.
///
/// ```
/// # async fn run() {
/// async fn compute() -> u32 { 7 }
///
/// let fut = compute();
/// tokio::pin!(fut);
/// assert_eq!((&mut fut).await, 7);
///
/// tokio::pin! {
///     let a = compute();
///     let b = compute();
/// }
/// assert_eq!((&mut a).await + (&mut b).await, 14);
/// # }
/// ```
#[macro_export]
macro_rules! pin {
    ($($value:ident),* $(,)?) => { $(
        // Own the value here, whatever it was before (a by-value binding
        // from a pattern, a `mut` binding, ...).
        let mut $value = $value;
        // Shadowing hides the owned value for the rest of the scope: it can
        // only be reached through the pinned reference, so it never moves.
        #[allow(unused_mut)]
        let mut $value = {
            // SAFETY: the value was moved into a local of the caller's scope
            // just above and that binding is now shadowed, so nothing can
            // move it again before it is dropped in place at the end of the
            // scope; this is exactly the guarantee `Pin` asks for.
            unsafe { $crate::macros::support::Pin::new_unchecked(&mut $value) }
        };
    )* };
    ($(let $value:ident = $init:expr;)*) => { $(
        let $value = $init;
        $crate::pin!($value);
    )* };
}
