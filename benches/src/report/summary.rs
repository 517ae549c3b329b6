//! The summary at the top of the output: one line per workload family,
//! each tokiwa driver against tokio, for the three figures a user weighs
//! (throughput, p99 latency, CPU per request), then the same in words.
//!
//! A family's ratio is the geometric mean of its rows' ratios (the mean
//! that treats 2× and 0.5× as cancelling); where a row has a time instead of
//! a rate (the runtime rows, `sleep_100k`), its speed is tokio's time over
//! the driver's. The details, row by row, are in the tables below it.

use serde::{Deserialize, Serialize};

use super::{Family, Kind, Report, Row};

/// The drivers compared with tokio, in the order the summary shows them.
pub const DRIVERS: [&str; 2] = ["uring", "legacy"];
const BASE: &str = "tokio";

/// A driver's ratios to tokio over one family.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Ratios {
    /// Throughput (or inverse time): > 1 is better.
    pub speed: Option<f64>,
    /// p99 latency: < 1 is better.
    pub p99: Option<f64>,
    /// CPU per request: < 1 is better.
    pub cpu: Option<f64>,
}

/// One line of the summary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Line {
    pub family: Family,
    pub label: String,
    /// Rows with figures that count in the line.
    pub rows: usize,
    /// Per driver (`uring`, `legacy`), when it ran.
    pub drivers: Vec<(String, Ratios)>,
    /// The line in words.
    pub words: String,
}

fn geomean(xs: &[f64]) -> Option<f64> {
    let xs: Vec<f64> = xs.iter().copied().filter(|x| *x > 0.0).collect();
    (!xs.is_empty()).then(|| (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

/// The speed of `driver` relative to tokio on one row.
fn speed(row: &Row, driver: &str) -> Option<f64> {
    match row.figure(Kind::Throughput) {
        Some(f) => f.ratio(driver, BASE),
        None => row
            .figure(Kind::Time)
            .and_then(|f| f.ratio(driver, BASE))
            .map(|x| 1.0 / x),
    }
}

fn ratios(rows: &[&Row], driver: &str) -> Ratios {
    let of = |f: &dyn Fn(&Row) -> Option<f64>| {
        geomean(&rows.iter().filter_map(|r| f(r)).collect::<Vec<_>>())
    };
    Ratios {
        speed: of(&|r| speed(r, driver)),
        p99: of(&|r| r.figure(Kind::P99)?.ratio(driver, BASE)),
        cpu: of(&|r| r.figure(Kind::Cpu)?.ratio(driver, BASE)),
    }
}

/// "uring 1.12× tokio's requests/s at 0.93× its CPU, p99 0.95×"; `short`
/// leaves out what the first driver's phrase already said.
fn words(family: Family, driver: &str, r: &Ratios, short: bool) -> Option<String> {
    let mut s = if short {
        format!("{driver} {:.2}×", r.speed?)
    } else {
        format!("{driver} {:.2}× tokio's {}", r.speed?, family.work())
    };
    if let Some(cpu) = r.cpu {
        s += &format!(" at {cpu:.2}× its CPU");
    }
    if let Some(p99) = r.p99 {
        s += &format!(", p99 {p99:.2}×");
    }
    Some(s)
}

/// The summary's lines, families in the order of [`Family`]; families
/// without a tokio column (the compat adapter) are left out.
pub fn summarize(report: &Report) -> Vec<Line> {
    let mut families: Vec<Family> = report
        .rows()
        .filter(|r| r.failed.is_none() && r.figures.iter().any(|f| f.values.contains_key(BASE)))
        .map(|r| r.family)
        .collect();
    families.sort();
    families.dedup();
    families
        .into_iter()
        .map(|family| {
            let rows: Vec<&Row> = report
                .rows()
                .filter(|r| r.family == family && r.failed.is_none())
                .collect();
            let drivers: Vec<(String, Ratios)> = DRIVERS
                .iter()
                .filter(|d| {
                    rows.iter()
                        .any(|r| r.figures.iter().any(|f| f.values.contains_key(**d)))
                })
                .map(|d| (d.to_string(), ratios(&rows, d)))
                .collect();
            let words: Vec<String> = drivers
                .iter()
                .enumerate()
                .filter_map(|(i, (d, r))| words(family, d, r, i > 0))
                .collect();
            Line {
                family,
                label: family.label().into(),
                rows: rows.len(),
                drivers,
                words: words.join("; "),
            }
        })
        .collect()
}

fn cell(x: Option<f64>) -> String {
    match x {
        Some(x) => format!("{x:.2}×"),
        None => "-".into(),
    }
}

/// The summary as terminal text.
pub fn summary_text(lines: &[Line]) -> String {
    let mut t = String::new();
    t += "SUMMARY: tokiwa's drivers against tokio, per workload family (geometric mean of the rows' ratios; every row is in the tables below)\n";
    t += "  speed = requests/s, round trips/s, ops/s or 1/time: above 1.00× is better than tokio; p99 latency and CPU per request: below 1.00× is better\n\n";
    let drivers: Vec<&str> = DRIVERS
        .iter()
        .copied()
        .filter(|d| lines.iter().any(|l| l.drivers.iter().any(|(x, _)| x == d)))
        .collect();
    let mut head1 = format!("{:<30} {:>4} ", "family", "rows");
    let mut head2 = format!("{:<30} {:>4} ", "", "");
    for d in &drivers {
        head1 += &format!("| {:^23} ", format!("{d} / tokio"));
        head2 += &format!("| {:>7} {:>7} {:>7} ", "speed", "p99", "CPU");
    }
    t += head1.trim_end();
    t += "\n";
    t += head2.trim_end();
    t += "\n";
    t += &"-".repeat(head2.trim_end().len());
    t += "\n";
    for l in lines {
        let mut line = format!("{:<30} {:>4} ", l.label, l.rows);
        for d in &drivers {
            let r = l
                .drivers
                .iter()
                .find(|(x, _)| x == d)
                .map(|(_, r)| r.clone())
                .unwrap_or_default();
            line += &format!(
                "| {:>7} {:>7} {:>7} ",
                cell(r.speed),
                cell(r.p99),
                cell(r.cpu)
            );
        }
        t += line.trim_end();
        t += "\n";
        if !l.words.is_empty() {
            t += &format!("    {}\n", l.words);
        }
    }
    t
}

/// Prints the summary of `report`.
pub fn print_summary(report: &Report) {
    println!("{}", summary_text(&summarize(report)));
}
