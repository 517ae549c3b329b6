//! What tokio-console sees of resources (`tokio_unstable` + `tracing` only).
//!
//! tokio instruments its timers and sync primitives as *resources*: a
//! `runtime.resource` span per instance (fields `concrete_type`, `kind`,
//! `loc.*`), events on target `runtime::resource::state_update` when its
//! state changes (`<field>`, `<field>.op` = `override`, `add` or `sub`),
//! and for each operation a task waits on (an *async op*) a
//! `runtime.resource.async_op` span (`source`) with a
//! `runtime.resource.async_op.poll` child, all three entered around each
//! poll, with a `runtime::resource::poll_op` event (`op_name`, `is_ready`)
//! per poll. console-subscriber turns those into its resource list and
//! links the async ops to the tasks that polled them.
//!
//! The spans are created where the resource is (so their targets are
//! tokio's module paths: `tokio::time::sleep`, `tokio::sync::…`); this
//! module holds what they share. Without the cfg nothing here is compiled.
use std::task::Poll;

/// The spans of one async op of a resource. Field order is drop order,
/// which tokio's tests observe: the async op, its poll span, the resource.
#[derive(Debug, Clone)]
pub(crate) struct AsyncOpCtx {
    pub(crate) async_op_span: tracing::Span,
    pub(crate) async_op_poll_span: tracing::Span,
    pub(crate) resource_span: tracing::Span,
}

/// Reports one poll of an async op named `name` and what it returned.
#[inline]
pub(crate) fn poll_op<T>(name: &'static str, poll: Poll<T>) -> Poll<T> {
    let is_ready = poll.is_ready();
    tracing::trace!(
        target: "runtime::resource::poll_op",
        op_name = name,
        is_ready = is_ready,
    );
    poll
}

/// The `runtime.resource` span of a sync primitive created at `$loc` (a
/// `&'static Location`), with tokio's target for it and no parent. (The
/// primitives are tokiwa's own only as the package named tokio.)
#[cfg(all(feature = "sync", tokiwa_own_vocabulary))]
macro_rules! sync_resource_span {
    ($target:literal, $concrete_type:literal, $loc:expr) => {{
        let loc: &'static std::panic::Location<'static> = $loc;
        tracing::trace_span!(
            target: $target,
            parent: None,
            "runtime.resource",
            concrete_type = $concrete_type,
            kind = "Sync",
            loc.file = loc.file(),
            loc.line = loc.line(),
            loc.col = loc.column(),
        )
    }};
}
#[cfg(all(feature = "sync", tokiwa_own_vocabulary))]
pub(crate) use sync_resource_span;

// The cfg is on the invocation: on the struct inside, it would leave the
// projection types and impls that `pin_project!` generates without it.
#[cfg(all(feature = "sync", tokiwa_own_vocabulary))]
pin_project_lite::pin_project! {
    /// A future instrumented as an async op of a resource: the three spans
    /// entered around each poll, and a `poll_op` event with its outcome.
    pub(crate) struct AsyncOp<F> {
        #[pin]
        inner: F,
        ctx: AsyncOpCtx,
        poll_op_name: &'static str,
    }
}

/// Makes `inner` an async op (`source`, e.g. `Mutex::lock`) of the
/// resource of `resource_span`, as tokio's `trace::async_op`.
#[cfg(all(feature = "sync", tokiwa_own_vocabulary))]
pub(crate) fn async_op<F>(
    inner: F,
    resource_span: &tracing::Span,
    source: &'static str,
    poll_op_name: &'static str,
    inherits_child_attrs: bool,
) -> AsyncOp<F> {
    resource_span.in_scope(|| {
        let async_op_span = tracing::trace_span!(
            target: "tokio::util::trace",
            "runtime.resource.async_op",
            source = source,
            inherits_child_attrs = inherits_child_attrs,
        );
        let async_op_poll_span = async_op_span.in_scope(
            || tracing::trace_span!(target: "tokio::util::trace", "runtime.resource.async_op.poll"),
        );
        AsyncOp {
            inner,
            ctx: AsyncOpCtx {
                async_op_span,
                async_op_poll_span,
                resource_span: resource_span.clone(),
            },
            poll_op_name,
        }
    })
}

#[cfg(all(feature = "sync", tokiwa_own_vocabulary))]
impl<F: std::future::Future> std::future::Future for AsyncOp<F> {
    type Output = F::Output;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let _resource = this.ctx.resource_span.enter();
        let _async_op = this.ctx.async_op_span.enter();
        let _async_op_poll = this.ctx.async_op_poll_span.enter();
        poll_op(this.poll_op_name, this.inner.poll(cx))
    }
}
