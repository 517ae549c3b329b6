//! `join!`: wait for several futures on the current task, all of them.
//!
//! The expansion keeps each future in a [`MaybeDone`](super::support::MaybeDone)
//! slot of one tuple (reached by destructuring with one `_` per earlier
//! branch) and polls the unfinished ones from a `poll_fn`. Which slot is
//! polled first is decided per poll by a [`StartOrder`](super::support::StartOrder):
//! one further each time by default, always the first with `biased;`. Once
//! every slot holds its output, the outputs are taken out in branch order.

/// Waits on several concurrent branches, returning when **all** of them
/// have completed, with their outputs as a tuple in the order written.
///
/// Each branch is an async expression (anything implementing
/// [`IntoFuture`](std::future::IntoFuture)); they run concurrently on the
/// current task, not in parallel: spawn them ([`spawn`](crate::spawn)) and
/// join the handles for parallelism. `join!` must be used inside an async
/// context. The futures are stored inline, without allocation.
///
/// A branch that completes with an error does not stop the others; use
/// [`try_join!`](crate::try_join) for that.
///
/// # Fairness
///
/// By default each poll of the `join!` starts with a different branch
/// (one further than the last time), so that a branch that spends the
/// task's whole cooperative budget cannot keep the ones after it from
/// making progress. With `biased;` first, every poll goes through the
/// branches in the order written.
///
/// # Examples
///
/// ```
/// # async fn run() {
/// async fn one() -> u32 { 1 }
/// async fn two() -> &'static str { "two" }
///
/// let (a, b) = tokio::join!(one(), two());
/// assert_eq!((a, b), (1, "two"));
///
/// let (a, b) = tokio::join!(biased; one(), two());
/// assert_eq!((a, b), (1, "two"));
/// # }
/// ```
#[macro_export]
macro_rules! join {
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
                        let slot = unsafe { $crate::macros::support::Pin::new_unchecked(slot) };
                        if $crate::macros::support::Future::poll(slot, cx).is_pending() {
                            any_pending = true;
                        }
                    }
                )*
            }
            if any_pending {
                return $crate::macros::support::Poll::Pending;
            }
            // An uninhabited output type makes the tuple unreachable.
            #[allow(unreachable_code)]
            return $crate::macros::support::Poll::Ready(( $( {
                let ( $($skip,)* slot, .. ) = &mut *slots;
                // SAFETY: as above, the slot is never moved.
                let slot = unsafe { $crate::macros::support::Pin::new_unchecked(slot) };
                slot.take_output().expect("join! took an output twice")
            }, )* ));
        })
        .await
    }};

    // ===== Normalisation: one branch per step =====
    (@munch
        order = $order:ty; all = $all:tt; total = $total:tt;
        branches = [ $($branches:tt)* ];
    ) => {
        $crate::join!(@expand order = $order; total = $total; branches = [ $($branches)* ];)
    };
    (@munch
        order = $order:ty; all = ( $($all:tt)* ); total = ( $($total:tt)* );
        branches = [ $($branches:tt)* ];
        $fut:expr $(, $($rest:tt)*)?
    ) => {
        $crate::join!(@munch
            order = $order; all = ( $($all)* _ ); total = ( $($total)* + 1 );
            branches = [ $($branches)* [ ( $($all)* ) ( $($total)* ) $fut ] ];
            $($($rest)*)?
        )
    };

    // ===== Entry points =====
    ($(biased;)?) => {
        async {}.await
    };
    (biased; $($futs:tt)+) => {
        $crate::join!(@munch
            order = $crate::macros::support::InOrder; all = (); total = (0);
            branches = [];
            $($futs)+
        )
    };
    ($($futs:tt)+) => {
        $crate::join!(@munch
            order = $crate::macros::support::Rotating; all = (); total = (0);
            branches = [];
            $($futs)+
        )
    };
}
