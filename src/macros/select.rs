//! `select!`: wait on several branches at once, run the first that
//! completes with a matching value, cancel the rest.
//!
//! # How the expansion works
//!
//! The macro first normalises its input one branch per recursion (so 64
//! branches stay far from the recursion limit), giving every branch three
//! things derived from the branches before it:
//!
//! * one `_` per earlier branch: `let (_, _, fut, ..) = &mut futures` reaches
//!   the branch's future inside the tuple of all futures;
//! * its index as the expression `0 + 1 + 1`;
//! * one `.later()` per earlier branch, which reads its output back out of
//!   the value the poll returned.
//!
//! The expansion then
//!
//! 1. evaluates the preconditions and marks the branches they disable;
//! 2. evaluates every branch's future (disabled ones too, as tokio does),
//!    first all together in one tuple (so `&mut temporary()` lives long
//!    enough), then converts them with `IntoFuture`;
//! 3. polls them with `poll_fn`: after checking the task's cooperative
//!    budget, it starts at a pseudo-random branch (the first one if
//!    `biased;`) and polls every enabled branch once, in two passes (from the
//!    start to the end, then from the beginning to the start). A branch that
//!    completes is disabled; if its output matches the pattern (tested by
//!    reference, with the pattern's bindings made plain by
//!    `select_pattern_probe!` from `tokiwa-macros`) the poll returns it,
//!    else the poll goes on with the next branch;
//! 4. drops the futures (so the handler may use what they borrowed), then
//!    runs the chosen branch's handler with the pattern bound by value, or
//!    the `else` expression if every branch was disabled.
//!
//! The chosen output travels as a [`Chosen`](super::support::Chosen) built
//! by method calls, one layer per earlier branch: the output type of every
//! branch is inferred, and no macro recursion is needed per branch.
//! Handlers end up in an `if`/`else` chain, so `break`, `continue`,
//! `return` and `?` in a handler act on the code around the `select!`.

/// Waits on several concurrent branches, returning when the **first** of
/// them completes with a value matching its pattern; the other branches are
/// then cancelled (dropped).
///
/// ```text
/// <pattern> = <async expression> (, if <precondition>)? => <handler>,
/// ```
///
/// Each branch is an async expression (anything implementing
/// [`IntoFuture`](std::future::IntoFuture)), a pattern to match its output
/// against, an optional precondition, and a handler expression that may
/// use the pattern's bindings. An optional `else => <expression>` branch
/// comes last. `select!` must be used inside an async context (an
/// `async fn`, block or closure); all branches run on the current task,
/// concurrently but not in parallel.
///
/// # What happens, in order
///
/// 1. Every precondition is evaluated; a branch whose precondition is
///    `false` is disabled for this call.
/// 2. Every async expression is evaluated, disabled branches' included
///    (their futures are never polled).
/// 3. The enabled futures are polled concurrently. When one completes, its
///    branch is disabled and its output is matched against the pattern: if
///    it matches, every future is dropped and the handler runs with the
///    bindings; if it does not, the other branches keep going.
/// 4. If every branch becomes disabled, the `else` expression is evaluated;
///    without an `else` branch this panics.
///
/// The value of `select!` is the value of the handler (or `else`) that ran,
/// so every handler must have the same type.
///
/// # Fairness
///
/// By default each poll starts at a pseudo-randomly chosen branch, so that
/// a branch which is always ready cannot starve the others. Writing
/// `biased;` first makes every poll start at the first branch and go in
/// the order written instead, which is useful when the order matters (a
/// shutdown signal before the work queue, say) and leaves fairness to the
/// caller.
///
/// # Cooperative scheduling
///
/// Before polling any branch, `select!` checks the task's cooperative
/// budget: once the budget is used up it yields (returns `Pending` and
/// wakes the task), even if a branch that ignores the budget is ready. A
/// loop around `select!` therefore cannot keep the other tasks of its
/// worker from running.
///
/// # Cancellation
///
/// Dropping the futures of the branches that did not complete cancels
/// them: a branch is only safe to use in a loop if losing its future
/// midway loses nothing (receiving from a channel is; reading into a
/// buffer with `read_exact` is not). To carry an operation across loop
/// turns, create it before the loop, pin it with [`pin!`](crate::pin) and
/// use `&mut fut` as the branch's expression.
///
/// # Limits
///
/// Up to 64 branches (the recursion limit allows a few more, but no more
/// is promised).
///
/// # Examples
///
/// ```
/// # async fn run() {
/// async fn quick() -> u32 { 1 }
/// async fn never() -> u32 { std::future::pending().await }
///
/// let v = tokio::select! {
///     v = quick() => v,
///     v = never() => v + 100,
/// };
/// assert_eq!(v, 1);
///
/// // A precondition, a refutable pattern and `else`.
/// let mut remaining = vec![Some(1), None];
/// loop {
///     let next = remaining.pop();
///     tokio::select! {
///         Some(Some(n)) = async { next } => assert_eq!(n, 1),
///         _ = std::future::ready(()), if remaining.is_empty() && next.is_none() => break,
///         else => {},
///     }
/// }
/// # }
/// ```
#[macro_export]
macro_rules! select {
    // ===== Expansion of the normalised input =====
    (@expand
        biased = $biased:tt;
        all = ( $($all:tt)* );
        total = ( $($total:tt)* );
        branches = [ $(
            [
                ( $($skip:tt)* )
                ( $($index:tt)* )
                ( $($peel:tt)* )
                $bind:pat = $fut:expr;
                if ( $($cond:expr)? ) => $handler:expr
            ]
        )+ ];
        else = $else:expr
    ) => {{
        // Branches that may not complete this call: those whose
        // precondition failed, then those that completed.
        let mut disabled = [false; $($total)*];
        $( $crate::select!(@precondition disabled[$($index)*] $($cond)?); )+

        // The poll's result: which branch completed (the index of none if
        // all were disabled), and its output.
        let (branch, chosen) = {
            // Evaluated in one `let`, so temporaries the expressions borrow
            // (`&mut std::future::ready(())`) live to the end of this block.
            let futures = ( $( $fut, )+ );
            let mut futures = ( $(
                $crate::macros::support::IntoFuture::into_future({
                    let ( $($skip,)* fut, .. ) = futures;
                    fut
                }),
            )+ );
            // The closure holds a reference, never the futures themselves:
            // a `poll_fn` is `Unpin`, so futures it owned could be moved
            // after being polled.
            let futures = &mut futures;

            $crate::macros::support::poll_fn(|cx| {
                use $crate::macros::support::Deeper as _;

                // Yield once the task's budget is gone, even if a branch
                // that ignores the budget is ready.
                $crate::macros::support::ready!($crate::macros::support::poll_budget_available(cx));

                let start: u32 = if $biased {
                    0
                } else {
                    $crate::macros::support::thread_rng_n($($total)*)
                };
                let mut any_pending = false;
                // Pass 0 polls the branches from `start` on, pass 1 those
                // before it.
                for pass in 0..2u8 {
                    $(
                        let index: u32 = $($index)*;
                        if (index >= start) == (pass == 0) && !disabled[index as usize] {
                            let ( $($skip,)* fut, .. ) = &mut *futures;
                            // SAFETY: `futures` is a local of the enclosing
                            // async context, reached only through this
                            // reference from here until it is dropped in
                            // place at the end of the block: it is never
                            // moved while (or after) its futures are polled.
                            let fut = unsafe { $crate::macros::support::Pin::new_unchecked(fut) };
                            match $crate::macros::support::Future::poll(fut, cx) {
                                $crate::macros::support::Poll::Pending => any_pending = true,
                                $crate::macros::support::Poll::Ready(out) => {
                                    disabled[index as usize] = true;
                                    match &out {
                                        #[allow(unused_variables)]
                                        $crate::macros::support::select_pattern_probe!($bind) => {
                                            return $crate::macros::support::Poll::Ready((
                                                index,
                                                $crate::macros::support::Chosen::This(out)
                                                    $( .deeper::<$skip>() )*,
                                            ));
                                        }
                                        // The pattern was refuted: the
                                        // branch stays disabled.
                                        #[allow(unreachable_patterns)]
                                        _ => {}
                                    }
                                }
                            }
                        }
                    )+
                }
                if any_pending {
                    $crate::macros::support::Poll::Pending
                } else {
                    $crate::macros::support::Poll::Ready((
                        $($total)*,
                        $crate::macros::support::NoBranch $( .deeper::<$all>() )*,
                    ))
                }
            })
            .await
        };

        $(
            if branch == $($index)* {
                match chosen $($peel)* .this() {
                    // A branch whose output type is uninhabited never
                    // runs its handler.
                    #[allow(unreachable_code, unreachable_patterns)]
                    $bind => $handler,
                    #[allow(unreachable_patterns)]
                    _ => unreachable!("select! branch output no longer matches its pattern"),
                }
            } else
        )+
        {
            $else
        }
    }};

    // A branch's precondition (if any) disables it when false.
    (@precondition $disabled:ident[$($index:tt)*] $cond:expr) => {
        if !$cond {
            $disabled[$($index)*] = true;
        }
    };
    (@precondition $disabled:ident[$($index:tt)*]) => {};

    // ===== Normalisation: one branch per step =====

    // Done, no `else`: running out of branches is a panic.
    (@munch
        biased = $biased:tt; all = $all:tt; total = $total:tt; peel = $peel:tt;
        branches = [ $($branches:tt)* ];
    ) => {
        $crate::select!(@expand
            biased = $biased; all = $all; total = $total;
            branches = [ $($branches)* ];
            else = panic!("all branches are disabled and there is no else branch")
        )
    };
    (@munch
        biased = $biased:tt; all = $all:tt; total = $total:tt; peel = $peel:tt;
        branches = [ $($branches:tt)* ];
        else => $else:expr $(,)?
    ) => {
        $crate::select!(@expand
            biased = $biased; all = $all; total = $total;
            branches = [ $($branches)* ];
            else = $else
        )
    };
    // A block handler, with or without a comma after it.
    (@munch
        biased = $biased:tt; all = ( $($all:tt)* ); total = ( $($total:tt)* ); peel = ( $($peel:tt)* );
        branches = [ $($branches:tt)* ];
        $bind:pat = $fut:expr $(, if $cond:expr)? => $handler:block, $($rest:tt)*
    ) => {
        $crate::select!(@munch
            biased = $biased; all = ( $($all)* _ ); total = ( $($total)* + 1 ); peel = ( $($peel)* .later() );
            branches = [ $($branches)* [ ( $($all)* ) ( $($total)* ) ( $($peel)* ) $bind = $fut; if ( $($cond)? ) => $handler ] ];
            $($rest)*
        )
    };
    (@munch
        biased = $biased:tt; all = ( $($all:tt)* ); total = ( $($total:tt)* ); peel = ( $($peel:tt)* );
        branches = [ $($branches:tt)* ];
        $bind:pat = $fut:expr $(, if $cond:expr)? => $handler:block $($rest:tt)*
    ) => {
        $crate::select!(@munch
            biased = $biased; all = ( $($all)* _ ); total = ( $($total)* + 1 ); peel = ( $($peel)* .later() );
            branches = [ $($branches)* [ ( $($all)* ) ( $($total)* ) ( $($peel)* ) $bind = $fut; if ( $($cond)? ) => $handler ] ];
            $($rest)*
        )
    };
    // An expression handler: a comma, or the end of the input, after it.
    (@munch
        biased = $biased:tt; all = ( $($all:tt)* ); total = ( $($total:tt)* ); peel = ( $($peel:tt)* );
        branches = [ $($branches:tt)* ];
        $bind:pat = $fut:expr $(, if $cond:expr)? => $handler:expr $(, $($rest:tt)*)?
    ) => {
        $crate::select!(@munch
            biased = $biased; all = ( $($all)* _ ); total = ( $($total)* + 1 ); peel = ( $($peel)* .later() );
            branches = [ $($branches)* [ ( $($all)* ) ( $($total)* ) ( $($peel)* ) $bind = $fut; if ( $($cond)? ) => $handler ] ];
            $($($rest)*)?
        )
    };

    // Anything else left over is not a branch.
    (@munch $($unexpected:tt)*) => {
        compile_error!(
            "select! expects branches `<pattern> = <async expression> (, if <precondition>)? => <handler>,` and an optional last `else => <expression>`"
        )
    };

    // ===== Entry points =====

    () => {
        compile_error!("select! requires at least one branch.")
    };
    ($(biased;)? else => $else:expr $(,)?) => {{
        $else
    }};
    (biased; $($branches:tt)+) => {
        $crate::select!(@munch
            biased = true; all = (); total = (0); peel = ();
            branches = [];
            $($branches)+
        )
    };
    ($($branches:tt)+) => {
        $crate::select!(@munch
            biased = false; all = (); total = (0); peel = ();
            branches = [];
            $($branches)+
        )
    };
}
