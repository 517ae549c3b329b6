//! The report a person reads: every table's figures gathered in one
//! `Report` once the rows have run, then shown three ways from the same
//! figures: a summary at the top of the terminal output (`summary.rs`), a
//! self-contained HTML page of charts (`html.rs`, written under
//! `target/tokiwa-bench/report.html`) and, with `--json`, the figures for
//! scripts (`serde_json` of `Report` itself, so the JSON cannot drift from
//! what the page and the summary show).
//!
//! Each table module turns its collected rows into [`Table`]s (its
//! `tables` function) beside its printer; nothing here measures. A row's
//! figures are keyed by column label (`tokio`, `legacy`, `uring`, or for
//! `echo_compat` `plain`/`compat`); a table's first column is what the
//! others are divided by, in the charts and the summary alike.

mod html;
mod summary;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use html::html;
pub use summary::print_summary;

/// What a figure means, for the summary and the charts: the three figures
/// the summary compares (throughput, p99, CPU per request), a time where
/// the lower is faster (read as throughput's inverse), or anything else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Throughput,
    Time,
    P99,
    Cpu,
    Other,
}

/// One measured quantity of a row, per column.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Figure {
    /// What it is, as a reader says it: "requests/s", "p99".
    pub name: String,
    /// "µs", "ms", "reads/s"...
    pub unit: String,
    pub kind: Kind,
    pub higher_is_better: bool,
    /// Column label -> value; a column without a figure is absent.
    pub values: BTreeMap<String, f64>,
}

impl Figure {
    /// A figure from `(column, value)` pairs, leaving out missing values.
    pub fn new<'a>(
        name: &str,
        unit: &str,
        kind: Kind,
        values: impl IntoIterator<Item = (&'a str, Option<f64>)>,
    ) -> Figure {
        let higher_is_better = match kind {
            Kind::Throughput => true,
            Kind::Time | Kind::P99 | Kind::Cpu | Kind::Other => false,
        };
        Figure {
            name: name.into(),
            unit: unit.into(),
            kind,
            higher_is_better,
            values: values
                .into_iter()
                .filter_map(|(c, v)| Some((c.to_string(), v.filter(|v| v.is_finite())?)))
                .collect(),
        }
    }

    /// For `Kind::Other` figures where more is better ("best" rates).
    pub fn higher_is_better(mut self) -> Figure {
        self.higher_is_better = true;
        self
    }

    /// `column`'s value divided by `base`'s.
    pub fn ratio(&self, column: &str, base: &str) -> Option<f64> {
        let (x, b) = (self.values.get(column)?, self.values.get(base)?);
        (*b != 0.0).then(|| x / b)
    }
}

/// A latency distribution of one column: `(percentile, µs)` points.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Percentiles {
    pub column: String,
    pub points: Vec<(f64, f64)>,
}

/// Which line of the summary a row counts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// External load: the echo server and the load generator.
    ExtEcho,
    /// External load: hyper's hello world and `wrk`, keep-alive.
    ExtHttp,
    /// External load: the Redis-protocol server and `redis-benchmark`.
    ExtRedis,
    /// External load: a connection per request (`wrk` `Connection: close`,
    /// the churn load generator).
    ExtChurn,
    /// External load: the echo load generator at a fixed rate, so latency
    /// and CPU compare at equal throughput.
    ExtPaced,
    Runtime,
    Echo,
    Http,
    Timers,
    Files,
    Processes,
    /// tokiwa-compat's adapter against plain tokiwa: no tokio column.
    EchoCompat,
}

impl Family {
    /// The summary line's name.
    pub fn label(self) -> &'static str {
        match self {
            Family::ExtEcho => "echo server (external load)",
            Family::ExtHttp => "http, wrk (external load)",
            Family::ExtRedis => "redis GET (external load)",
            Family::ExtChurn => "connection churn (external)",
            Family::ExtPaced => "echo at a fixed rate (external)",
            Family::Runtime => "runtime (tokio's rt benches)",
            Family::Echo => "tcp echo (in-process)",
            Family::Http => "http hello (in-process)",
            Family::Timers => "timers",
            Family::Files => "files",
            Family::Processes => "processes",
            Family::EchoCompat => "tokiwa-compat adapter",
        }
    }

    /// What one unit of work is called, for the summary's sentence.
    pub fn work(self) -> &'static str {
        match self {
            Family::ExtEcho | Family::ExtPaced | Family::Echo | Family::EchoCompat => {
                "round trips/s"
            }
            Family::ExtHttp | Family::ExtRedis | Family::Http => "requests/s",
            Family::ExtChurn => "connections/s",
            Family::Runtime => "speed",
            Family::Timers => "speed",
            Family::Files => "file ops/s",
            Family::Processes => "spawns/s",
        }
    }
}

/// One row of a table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// The row's key, as `FILTER` matches it.
    pub key: String,
    pub family: Family,
    pub figures: Vec<Figure>,
    /// Per column, for the percentile plot (external rows).
    pub percentiles: Vec<Percentiles>,
    /// Why the row has no (or partial) figures.
    pub failed: Option<String>,
}

impl Row {
    pub fn new(key: impl Into<String>, family: Family, figures: Vec<Figure>) -> Row {
        Row {
            key: key.into(),
            family,
            figures,
            percentiles: Vec::new(),
            failed: None,
        }
    }

    pub fn failed(key: impl Into<String>, family: Family, why: impl Into<String>) -> Row {
        Row {
            failed: Some(why.into()),
            ..Row::new(key, family, Vec::new())
        }
    }

    /// The first figure of `kind`.
    pub fn figure(&self, kind: Kind) -> Option<&Figure> {
        self.figures.iter().find(|f| f.kind == kind)
    }
}

/// One table of the terminal output, one chart of the page.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Table {
    /// Short and unique: the chart's anchor.
    pub id: String,
    pub title: String,
    /// The columns, the first being what the others are divided by.
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

/// The machine the run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Machine {
    pub cpus: usize,
    pub cpu_model: Option<String>,
    /// `uname -srm`.
    pub kernel: String,
    /// The 1-minute load average before the run.
    pub load_before: Option<f64>,
}

impl Machine {
    pub fn this(load_before: Option<f64>) -> Machine {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|info| {
                info.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, m)| m.trim().to_string())
            });
        Machine {
            cpus: cpus(),
            cpu_model,
            kernel: uname(),
            load_before,
        }
    }
}

/// CPUs this process may run on.
pub fn cpus() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// `uname -srm`: the kernel's name, release and machine.
fn uname() -> String {
    // SAFETY: `utsname` is plain old data, all-zero is a valid value.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable `utsname`.
    if unsafe { libc::uname(&mut u) } != 0 {
        return "unknown".into();
    }
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    format!(
        "{} {} {}",
        field(&u.sysname),
        field(&u.release),
        field(&u.machine)
    )
}

/// Everything one run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// "quick" or "full".
    pub mode: String,
    pub machine: Machine,
    /// Seconds the rows took.
    pub seconds: f64,
    /// Why a column is missing (a kernel that refuses io_uring).
    pub notes: Vec<String>,
    /// Tables that have rows, in the order the terminal prints them.
    pub tables: Vec<Table>,
}

impl Report {
    /// Every row of every table.
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.tables.iter().flat_map(|t| t.rows.iter())
    }
}

/// Where the page (and the default JSON) go: `tokiwa-bench/` in the
/// target directory that holds this binary (`target/release/..`), else in
/// `./target`.
pub fn default_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("tokiwa-bench")))
        .filter(|dir| {
            dir.parent()
                .is_some_and(|t| t.join("CACHEDIR.TAG").exists())
        })
        .unwrap_or_else(|| PathBuf::from("target/tokiwa-bench"))
}

/// Writes `text` to `path`, making its directory.
pub fn write(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

/// The JSON `--json` writes: the report, and its summary lines.
pub fn json(report: &Report) -> String {
    #[derive(Serialize)]
    struct WithSummary<'a> {
        #[serde(flatten)]
        report: &'a Report,
        summary: Vec<summary::Line>,
    }
    let out = WithSummary {
        report,
        summary: summary::summarize(report),
    };
    serde_json::to_string_pretty(&out).expect("a report serializes")
}
