//! `try_join!`: `join!` for futures of `Result`s, stopping at the first
//! error.
//!
//! The same expansion as `join!` (see that module), with one more step
//! after each poll of a slot: an output that is an `Err` is taken out and
//! returned at once, which drops the other futures. The error is moved
//! through `Option` combinators rather than bound to a variable, so an
//! uninhabited `Ok` or error type never leaves an expression of that type
//! for the caller's `unreachable_code` lint to find.

/// Waits on several concurrent branches that each produce a `Result`,
/// returning `Ok` with all the values once **all** of them have succeeded,
/// or the **first** `Err` as soon as one fails (the other branches are then
/// dropped, which cancels them).
///
/// Every branch's error type must be the same. As with
/// [`join!`](crate::join), the branches run concurrently on the current
/// task, are polled starting from a different branch on each poll unless
/// `biased;` is written first, and must be awaited inside an async context.
///
/// # Examples
///
/// ```
/// # async fn run() {
/// async fn parse(s: &str) -> Result<u32, std::num::ParseIntError> {
///     s.parse()
/// }
///
/// let sum = tokio::try_join!(parse("1"), parse("2")).map(|(a, b)| a + b);
/// assert_eq!(sum, Ok(3));
///
/// assert!(tokio::try_join!(parse("1"), parse("x")).is_err());
/// # }
/// ```
#[macro_export]
macro_rules! try_join {
    (@expand
        order = $order:ty;
        total = ( $($total:tt)* );
        branches = [ $( [ ( $($skip:tt)* ) ( $($index:tt)* ) $fut:expr ] )* ];
    ) => {{
        let mut slots = ( $( $crate::macros::support::maybe_done($fut), )* );
        // Only a reference goes into the `poll_fn` (which is `Unpin`), so
        // the slots cannot be moved once polled.
        let slots = &mut slots;
        let mut order = <$order as ::core::default::Default>::default();

        $crate::macros::support::poll_fn(move |cx| {
            let start = $crate::macros::support::StartOrder::first(&mut order, $($total)*);
            let mut any_pending = false;
            // Pass 0 polls the branches from `start` on, pass 1 those
            // before it.
            for pass in 0..2u8 {
                $(
                    let index: u32 = $($index)*;
                    if (index >= start) == (pass == 0) {
                        let ( $($skip,)* slot, .. ) = &mut *slots;
                        // SAFETY: the slots are a local of the enclosing
                        // async context, reached only through this
                        // reference until dropped in place: never moved
                        // while (or after) they are polled.
                        let mut slot = unsafe { $crate::macros::support::Pin::new_unchecked(slot) };
                        if $crate::macros::support::Future::poll(slot.as_mut(), cx).is_pending() {
                            any_pending = true;
                        } else if slot.as_mut().output_mut().is_some_and(|out| out.is_err()) {
                            let error = slot.take_output().and_then($crate::macros::support::Result::err);
                            return $crate::macros::support::Poll::Ready(
                                error
                                    .map($crate::macros::support::Result::Err)
                                    .expect("try_join! lost an error it had seen"),
                            );
                        }
                    }
                )*
            }
            if any_pending {
                return $crate::macros::support::Poll::Pending;
            }
            // An uninhabited `Ok` type makes the tuple unreachable.
            #[allow(unreachable_code)]
            return $crate::macros::support::Poll::Ready($crate::macros::support::Result::Ok(( $( {
                let ( $($skip,)* slot, .. ) = &mut *slots;
                // SAFETY: as above, the slot is never moved.
                let slot = unsafe { $crate::macros::support::Pin::new_unchecked(slot) };
                slot.take_output()
                    .and_then($crate::macros::support::Result::ok)
                    .expect("try_join! took an output twice")
            }, )* )));
        })
        .await
    }};

    // ===== Normalisation: one branch per step =====
    (@munch
        order = $order:ty; all = $all:tt; total = $total:tt;
        branches = [ $($branches:tt)* ];
    ) => {
        $crate::try_join!(@expand order = $order; total = $total; branches = [ $($branches)* ];)
    };
    (@munch
        order = $order:ty; all = ( $($all:tt)* ); total = ( $($total:tt)* );
        branches = [ $($branches:tt)* ];
        $fut:expr $(, $($rest:tt)*)?
    ) => {
        $crate::try_join!(@munch
            order = $order; all = ( $($all)* _ ); total = ( $($total)* + 1 );
            branches = [ $($branches)* [ ( $($all)* ) ( $($total)* ) $fut ] ];
            $($($rest)*)?
        )
    };

    // ===== Entry points =====
    ($(biased;)?) => {
        async { $crate::macros::support::Result::Ok(()) }.await
    };
    (biased; $($futs:tt)+) => {
        $crate::try_join!(@munch
            order = $crate::macros::support::InOrder; all = (); total = (0);
            branches = [];
            $($futs)+
        )
    };
    ($($futs:tt)+) => {
        $crate::try_join!(@munch
            order = $crate::macros::support::Rotating; all = (); total = (0);
            branches = [];
            $($futs)+
        )
    };
}
