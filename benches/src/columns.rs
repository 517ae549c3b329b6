//! The columns every table compares: tokio, tokiwa's legacy driver and
//! tokiwa's io_uring driver, plus, for a few `tcp_echo` rows in full mode,
//! the io_uring driver without `DEFER_TASKRUN | TASKRUN_FLAG` (the ablation
//! of issue 4: which part of uring's gain those two flags bring), and, on
//! the external-load rows, the io_uring driver with completion I/O
//! (`uring_completion_io(true)`), beside the default readiness I/O.
//!
//! The workload files are compiled once per runtime (see `main.rs`); a
//! `Column` picks which copy runs and, for tokiwa, how its builder is
//! configured. Whether the kernel lets us run io_uring is found out once, at
//! start-up, by building a runtime: a kernel or sandbox that refuses it costs
//! the uring columns, never the run.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::echo_round::{EchoRound, EchoShape};
use crate::{on_tokio, on_tokiwa, Flavour, Workload};

/// One runtime configuration measured side by side with the others.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Column {
    Tokio,
    Legacy,
    Uring,
    /// The uring driver with `SINGLE_ISSUER` only (`uring_defer_taskrun(false)`).
    UringNoDefer,
    /// The uring driver with completion sends and receives
    /// (`uring_completion_io(true)`); external-load rows only.
    UringCompletion,
}

impl Column {
    /// The name in table headers and row labels (at most 8 characters).
    pub fn label(self) -> &'static str {
        match self {
            Column::Tokio => "tokio",
            Column::Legacy => "legacy",
            Column::Uring => "uring",
            Column::UringNoDefer => "no-defer",
            Column::UringCompletion => "uring-c",
        }
    }

    /// Builds the runtime the rt rows measure.
    pub fn build(self, flavour: Flavour) -> AnyRuntime {
        match self {
            Column::Tokio => AnyRuntime::Tokio(on_tokio::w::build(flavour, self)),
            _ => AnyRuntime::Tokiwa(on_tokiwa::w::build(flavour, self)),
        }
    }

    pub fn tcp_echo_round(self, shape: EchoShape) -> EchoRound {
        match self {
            Column::Tokio => on_tokio::net::tcp_echo_round(shape, self),
            _ => on_tokiwa::net::tcp_echo_round(shape, self),
        }
    }

    pub fn sleep_many(
        self,
        flavour: Flavour,
        delays: Arc<[Duration]>,
        iters: usize,
    ) -> Vec<Duration> {
        match self {
            Column::Tokio => on_tokio::timers::sleep_many(flavour, self, delays, iters),
            _ => on_tokiwa::timers::sleep_many(flavour, self, delays, iters),
        }
    }

    pub fn sleep_lateness(self, flavour: Flavour, period: Duration, samples: usize) -> Vec<i64> {
        match self {
            Column::Tokio => on_tokio::timers::sleep_lateness(flavour, self, period, samples),
            _ => on_tokiwa::timers::sleep_lateness(flavour, self, period, samples),
        }
    }
}

/// A runtime of either kind, for the rt rows (which keep one per column
/// across iterations).
pub enum AnyRuntime {
    Tokio(tokio::runtime::Runtime),
    Tokiwa(tokiwa::runtime::Runtime),
}

impl AnyRuntime {
    /// Runs one iteration of `w`; returns the timed region's length.
    pub fn run(&self, w: Workload, flavour: Flavour) -> Duration {
        match self {
            AnyRuntime::Tokio(rt) => on_tokio::w::run(w, rt, flavour),
            AnyRuntime::Tokiwa(rt) => on_tokiwa::w::run(w, rt, flavour),
        }
    }
}

/// Which columns this run has, decided once by `probe`.
pub struct Columns {
    /// The columns of every table: tokio, legacy and (when the kernel allows)
    /// uring.
    pub main: Vec<Column>,
    /// Whether the ablation column can run (the kernel allows uring).
    pub ablation: bool,
    /// Why a uring column is missing, for the header.
    pub missing: Vec<String>,
}

static COLUMNS: OnceLock<Columns> = OnceLock::new();

/// The columns `probe` found; tokio and legacy before it ran.
pub fn columns() -> &'static Columns {
    COLUMNS.get_or_init(|| Columns {
        main: vec![Column::Tokio, Column::Legacy],
        ablation: false,
        missing: Vec::new(),
    })
}

/// The column the ratios describe: uring, or legacy without it.
pub fn subject() -> Column {
    *columns().main.last().expect("tokio at least")
}

/// What `subject` is compared with in the ratio columns.
pub fn bases() -> Vec<Column> {
    let subject = subject();
    columns()
        .main
        .iter()
        .copied()
        .filter(|&c| c != subject)
        .collect()
}

/// Builds a multi-thread tokiwa runtime on `column` and checks that it
/// really runs io_uring; the error says why not.
fn try_uring(column: Column) -> Result<(), String> {
    on_tokiwa::w::try_build(Flavour::MultiThread, column).map(drop)
}

/// Finds out whether the kernel runs tokiwa's uring driver, in both setups
/// (`uring` false: the uring columns are left out without trying them).
/// Call once, before any row runs.
pub fn probe(uring: bool) {
    let mut main = vec![Column::Tokio, Column::Legacy];
    let mut missing = Vec::new();
    let uring = if uring {
        try_uring(Column::Uring)
    } else {
        Err("--no-uring".to_string())
    };
    match &uring {
        Ok(()) => main.push(Column::Uring),
        Err(e) => missing.push(format!("uring column skipped: {e}")),
    }
    let ablation = uring.is_ok()
        && match try_uring(Column::UringNoDefer) {
            Ok(()) => true,
            Err(e) => {
                missing.push(format!("no-defer column skipped: {e}"));
                false
            }
        };
    let _ = COLUMNS.set(Columns {
        main,
        ablation,
        missing,
    });
}

/// `x / base` to two places, or "-" without both figures.
pub fn ratio(x: Option<f64>, base: Option<f64>) -> String {
    match (x, base) {
        (Some(x), Some(b)) if b != 0.0 => format!("{:.2}", x / b),
        _ => "-".into(),
    }
}

/// A figure, or "-" when it was not measured.
pub fn fig(x: Option<f64>, decimals: usize) -> String {
    match x {
        Some(x) => format!("{x:.decimals$}"),
        None => "-".into(),
    }
}

/// Prints `text` without the padding its last column leaves.
pub fn out(text: &str) {
    println!("{}", text.trim_end());
}

/// One group of table cells: a figure per main column (`figure` gets the
/// column's position in `columns().main`), then the subject's ratio to
/// each base. As wide as [`group_head`].
pub fn group(decimals: usize, figure: impl Fn(usize) -> Option<f64>) -> String {
    let cols = &columns().main;
    let value = |c: Column| figure(cols.iter().position(|&x| x == c)?);
    let mut cells: String = cols
        .iter()
        .map(|&c| format!("{:>9}", fig(value(c), decimals)))
        .collect();
    for b in bases() {
        cells += &format!("{:>9}", ratio(value(subject()), value(b)));
    }
    cells
}

/// The header of a [`group`]: the main columns' labels, then `/base` for
/// each ratio.
pub fn group_head() -> String {
    let mut head: String = columns()
        .main
        .iter()
        .map(|c| format!("{:>9}", c.label()))
        .collect();
    for b in bases() {
        head += &format!("{:>9}", format!("/{}", b.label()));
    }
    head
}

/// `(label, value)` pairs of `columns` for [`crate::report::Figure::new`].
pub fn per_column<'a>(
    columns: &'a [Column],
    value: impl Fn(usize) -> Option<f64> + 'a,
) -> impl Iterator<Item = (&'a str, Option<f64>)> + 'a {
    columns
        .iter()
        .enumerate()
        .map(move |(i, c)| (c.label(), value(i)))
}

/// The labels of `columns`.
pub fn labels(columns: &[Column]) -> Vec<String> {
    columns.iter().map(|c| c.label().to_string()).collect()
}
