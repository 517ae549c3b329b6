//! What tokio-console sees of a task (`tokio_unstable` + `tracing` only).
//!
//! `console-subscriber` builds its task list from tokio's instrumentation,
//! so tokiwa emits the same, with tokio's names, targets and fields:
//!
//! * a `runtime.spawn` span per task (target `tokio::task`, or
//!   `tokio::task::blocking` for `spawn_blocking`), with `kind`,
//!   `task.name`, `task.id`, `size.bytes` (and `original_size.bytes` when
//!   the future was boxed), `loc.file`, `loc.line`, `loc.col`;
//! * the span entered around every poll: the enter/exit pairs are the poll
//!   count and busy time the console shows;
//! * the span entered once more while the future is dropped, and closed
//!   with it (the console's "completed");
//! * the same span, of kind `block_on`, around the future of each
//!   `block_on` ([`block_on`]);
//! * an event on target `tokio::task::waker` for each waker operation
//!   (`op` = `waker.clone`, `waker.drop`, `waker.wake`,
//!   `waker.wake_by_ref`), whose `task.id` is the span's id, which the
//!   header keeps for that.
//!
//! How: the spawn wraps the future in `tracing`'s `Instrumented` before the
//! task's cell is allocated (`new_task`), as tokio does, so the schedulers
//! and the harness are untouched: the span is entered by the wrapper's
//! `poll` and `Drop`. The cost when no subscriber is interested is one
//! check of the span's callsite interest per spawn (cached by `tracing`)
//! and of the waker event's per waker operation; without the cfg none of
//! this is compiled.
//!
//! As in tokio, a future larger than [`BOX_THRESHOLD`] is boxed before it
//! is put in the cell (the span reports both sizes). tokio does this in
//! every build to keep big futures off the stack; tokiwa only here, where
//! the span reports it, so that builds without the cfg are unchanged.
use super::core::{Cell, Header};
use super::raw::RawTask;
use super::spawn_meta::SpawnMeta;
use super::Schedule;
use std::future::Future;
use std::mem;
use tracing::Instrument;

/// Futures larger than this are boxed at spawn (tokio's threshold).
pub(crate) const BOX_THRESHOLD: usize = if cfg!(debug_assertions) { 2048 } else { 16384 };

/// The `kind` field of the `runtime.spawn` span.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// `spawn`, `Builder::spawn`, `JoinSet::spawn`.
    Task,
    /// `spawn_local` on a `LocalSet` (on a `LocalRuntime` it is a `Task`,
    /// as in tokio).
    Local,
    /// The future of a `block_on` (not a task, but tokio reports it as
    /// one, with an id of its own).
    BlockOn,
    /// `spawn_blocking`: the closure's type name and size.
    Blocking {
        fn_type: &'static str,
        fn_size: usize,
    },
}

impl Kind {
    /// A blocking task running a closure of type `F`.
    pub(crate) fn blocking<F>() -> Kind {
        Kind::Blocking {
            fn_type: std::any::type_name::<F>(),
            fn_size: mem::size_of::<F>(),
        }
    }
}

/// Allocates the task for `future`, instrumented with its `runtime.spawn`
/// span (boxed first if it is large).
pub(crate) fn new_task<T: Future, S: Schedule>(
    future: T,
    scheduler: S,
    meta: &SpawnMeta<'_>,
) -> RawTask {
    let original_size = mem::size_of::<T>();
    if original_size > BOX_THRESHOLD && !matches!(meta.kind, Kind::Blocking { .. }) {
        instrumented(Box::pin(future), scheduler, meta, original_size)
    } else {
        instrumented(future, scheduler, meta, original_size)
    }
}

fn instrumented<T: Future, S: Schedule>(
    future: T,
    scheduler: S,
    meta: &SpawnMeta<'_>,
    original_size: usize,
) -> RawTask {
    let span = span(meta, mem::size_of::<T>(), original_size);
    let tracing_id = span.id();
    let mut cell = Cell::new(future.instrument(span), scheduler, meta);
    cell.header.tracing_id = tracing_id;
    RawTask::from_cell(cell)
}

/// The `runtime.spawn` span of a task whose future is `size` bytes (and
/// was `original_size` before boxing).
fn span(meta: &SpawnMeta<'_>, size: usize, original_size: usize) -> tracing::Span {
    let name = meta.name.unwrap_or_default();
    let id = meta.id.0.get();
    let loc = meta.spawned_at;
    match meta.kind {
        Kind::Blocking { fn_type, fn_size } => tracing::trace_span!(
            target: "tokio::task::blocking",
            "runtime.spawn",
            kind = %"blocking",
            task.name = %name,
            task.id = id,
            "fn" = %fn_type,
            original_size.bytes = None::<usize>,
            size.bytes = fn_size,
            loc.file = loc.file(),
            loc.line = loc.line(),
            loc.col = loc.column(),
        ),
        kind => {
            let kind = match kind {
                Kind::Local => "local",
                Kind::BlockOn => "block_on",
                _ => "task",
            };
            let original_size = (original_size != size).then_some(original_size);
            tracing::trace_span!(
                target: "tokio::task",
                parent: None,
                "runtime.spawn",
                %kind,
                task.name = %name,
                task.id = id,
                original_size.bytes = original_size,
                size.bytes = size,
                loc.file = loc.file(),
                loc.line = loc.line(),
                loc.col = loc.column(),
            )
        }
    }
}

/// `future`, instrumented with the `runtime.spawn` span tokio gives the
/// future of a `block_on` (kind `block_on`, a fresh task id, the caller's
/// location), entered around each of its polls.
#[track_caller]
pub(crate) fn block_on<F: Future>(future: F) -> tracing::instrument::Instrumented<F> {
    let meta = SpawnMeta::new_unnamed().with_kind(Kind::BlockOn);
    let size = mem::size_of::<F>();
    future.instrument(span(&meta, size, size))
}

/// Reports a waker operation on the task of `header` (`op` is one of
/// tokio's `waker.*` names).
#[inline]
pub(crate) fn waker_op(header: &Header, op: &'static str) {
    if let Some(id) = &header.tracing_id {
        tracing::trace!(
            target: "tokio::task::waker",
            op = op,
            task.id = id.into_u64(),
        );
    }
}
