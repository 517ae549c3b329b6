//! The external-load table: per row and column the median of the rounds,
//! then each tokiwa driver's ratios to tokio, then the targets.

use super::{Load, RowResult, Sample, RESULTS};
use crate::columns::{columns, fig, out, Column};
use crate::columns::{labels, per_column};
use crate::report::{self, Family, Figure, Kind, Percentiles, Table};

fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    Some(xs[xs.len() / 2])
}

/// The median of each figure over a column's rounds; the syscalls from its
/// counting round.
fn summary(all: &[Sample]) -> Option<Sample> {
    let samples: Vec<&Sample> = all.iter().filter(|s| !s.counted).collect();
    let of =
        |f: fn(&Sample) -> Option<f64>| median(samples.iter().copied().filter_map(f).collect());
    Some(Sample {
        rate: of(|s| Some(s.rate))?,
        mean_us: of(|s| s.mean_us),
        p50_us: of(|s| s.p50_us),
        p99_us: of(|s| s.p99_us),
        p999_us: of(|s| s.p999_us),
        cpu_us: of(|s| Some(s.cpu_us))?,
        cross: of(|s| s.cross),
        switches: of(|s| s.switches),
        syscalls: median(all.iter().filter_map(|s| s.syscalls).collect()),
        counted: false,
        steal_pct: of(|s| s.steal_pct),
    })
}

/// Student's t at 97.5% for `df` degrees of freedom (two-sided 95%).
fn t975(df: usize) -> f64 {
    const T: [f64; 10] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    ];
    T.get(df.wrapping_sub(1)).copied().unwrap_or(1.96)
}

/// The mean of `column`'s CPU per request over tokio's, paired round by
/// round (the columns of a round run back to back), with the half-width of
/// its 95% interval; `None` under two rounds.
fn cpu_ratio_interval(row: &RowResult, column: Column) -> Option<(f64, f64)> {
    let of = |c: Column| row.samples.iter().find(|(k, _)| *k == c).map(|(_, s)| s);
    let (mine, tokio) = (of(column)?, of(Column::Tokio)?);
    let measured = |s: &&Sample| !s.counted;
    let ratios: Vec<f64> = mine
        .iter()
        .filter(measured)
        .zip(tokio.iter().filter(measured))
        .map(|(a, b)| a.cpu_us / b.cpu_us)
        .filter(|r| r.is_finite())
        .collect();
    let n = ratios.len();
    if n < 2 {
        return None;
    }
    let mean = ratios.iter().sum::<f64>() / n as f64;
    let var = ratios.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some((mean, t975(n - 1) * (var / n as f64).sqrt()))
}

fn get(row: &RowResult, column: Column) -> Option<Sample> {
    row.samples
        .iter()
        .find(|(c, _)| *c == column)
        .and_then(|(_, s)| summary(s))
}

fn x(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
        _ => "-".into(),
    }
}

/// A target on one figure: `ratio` of the driver to tokio, and whether it
/// is met.
struct Check {
    what: String,
    met: bool,
}

/// Seed 002's claim for the io_uring driver against legacy at equal
/// throughput (a paced row): mean latency at least 11% lower, p99.9 at
/// least 15% lower. Returns the line that states it, if both ran.
fn uring_vs_legacy(row: &RowResult, checks: &mut Vec<Check>) -> Option<String> {
    let (u, l) = (get(row, Column::Uring)?, get(row, Column::Legacy)?);
    let mean = u.mean_us? / l.mean_us?;
    let p999 = u.p999_us? / l.p999_us?;
    let mut line = format!(
        "uring vs legacy at {:.0} and {:.0} round trips/s: mean {:.0} / {:.0} us = {mean:.2}x (claim <= 0.89x), \
         p99.9 {:.0} / {:.0} us = {p999:.2}x (claim <= 0.85x)",
        u.rate,
        l.rate,
        u.mean_us?,
        l.mean_us?,
        u.p999_us?,
        l.p999_us?
    );
    // Equal throughput is the claim's premise: a driver that fell behind
    // the schedule makes the comparison void.
    if (u.rate / l.rate - 1.0).abs() > 0.02 {
        line.push_str(" (throughputs differ: not an equal-load comparison)");
        return Some(line);
    }
    checks.push(Check {
        what: format!("{} uring vs legacy: mean <= 0.89x: {mean:.2}x", row.label),
        met: mean <= 0.89,
    });
    checks.push(Check {
        what: format!("{} uring vs legacy: p99.9 <= 0.85x: {p999:.2}x", row.label),
        met: p999 <= 0.85,
    });
    Some(line)
}

/// The targets of issues 25 (io_uring) and 26 (legacy) against tokio.
fn targets(row: &RowResult, checks: &mut Vec<Check>) {
    let Some(tokio) = get(row, Column::Tokio) else {
        return;
    };
    let mut claim = |column: Column, what: &str, ratio: Option<f64>, ok: fn(f64) -> bool| {
        if let Some(r) = ratio {
            checks.push(Check {
                what: format!("{} {}: {what} {r:.2}x", row.label, column.label()),
                met: ok(r),
            });
        }
    };
    let p99 = |s: &Sample| s.p99_us.zip(tokio.p99_us).map(|(a, b)| a / b);
    // The CPU ratio the table prints beside the interval: the paired
    // rounds' mean where there are two rounds or more, so a claim and its
    // row never disagree (the ratio of the summaries moved up to 0.09 away
    // from it in a full run).
    let cpu = |column: Column, s: &Sample| {
        cpu_ratio_interval(row, column)
            .map(|(mean, _)| mean)
            .or(Some(s.cpu_us / tokio.cpu_us))
    };
    let setup = matches!(row.load, Load::Churn { .. } | Load::Wrk { close: true, .. });
    if let Load::Paced { .. } = row.load {
        // Equal throughput by construction: the tail is what differs.
        if let Some(u) = get(row, Column::Uring) {
            let p999 = u.p999_us.zip(tokio.p999_us).map(|(a, b)| a / b);
            claim(Column::Uring, "p99.9 <= 0.85x:", p999, |r| r <= 0.85);
        }
        return;
    }
    if let Some(u) = get(row, Column::Uring) {
        let cpu = cpu(Column::Uring, &u);
        if setup {
            claim(Column::Uring, "CPU/connection <= 1.0x:", cpu, |r| r <= 1.0);
        } else {
            claim(Column::Uring, "CPU/request <= 0.85x:", cpu, |r| r <= 0.85);
            claim(
                Column::Uring,
                "throughput >= 1.0x:",
                Some(u.rate / tokio.rate),
                |r| r >= 1.0,
            );
            claim(Column::Uring, "p99 <= 1.0x:", p99(&u), |r| r <= 1.0);
        }
    }
    if let Some(l) = get(row, Column::Legacy) {
        let cpu = cpu(Column::Legacy, &l);
        if setup {
            claim(Column::Legacy, "CPU/connection <= 1.2x:", cpu, |r| r <= 1.2);
        } else {
            claim(Column::Legacy, "CPU/request <= 1.1x:", cpu, |r| r <= 1.1);
            claim(
                Column::Legacy,
                "throughput >= 0.95x:",
                Some(l.rate / tokio.rate),
                |r| r >= 0.95,
            );
            claim(Column::Legacy, "p99 <= 1.2x:", p99(&l), |r| r <= 1.2);
        }
        if let (Load::Echo { conns: 1, .. }, Some(sys)) = (row.load, l.syscalls) {
            checks.push(Check {
                what: format!(
                    "{} legacy: syscalls per round trip <= 5: {sys:.2}",
                    row.label
                ),
                met: sys <= 5.0,
            });
        }
    }
}

pub fn print(_plan: &super::Plan) {
    let rows = RESULTS.lock().unwrap();
    if rows.is_empty() {
        return;
    }
    println!();
    println!(
        "EXTERNAL LOAD: each server in its own process, loaded by another process on the same CPUs (unpinned)"
    );
    println!(
        "  echo: this crate's one-thread epoll load generator; http: wrk; redis: redis-benchmark -t get. \
         CPU = the server process's user + system time per request (lower is better); \
         cross = io_uring waits for readiness that another worker's ring reaps, per request; \
         sys, cs = the server's syscalls (perf stat) and context switches per request; \
         epoll1t, uring1t = hand-written one-thread echo servers (the floor). \
         CPU in full mode: the mean ratio over paired rounds +- its 95% interval. \
         steal = the share of the machine's CPU the hypervisor took during the runs (median); \
         a run above {:.0}% ({}% on the paced row, read by its tail) is made again, at most {} times",
        super::steal::RERUN_ABOVE_PCT,
        super::steal::TAIL_RERUN_ABOVE_PCT,
        super::steal::RERUNS
    );
    out(&format!(
        "{:<28} {:<7} {:>10} {:>8} {:>8} {:>9} {:>9} {:>6} {:>6} {:>7} {:>6}   {}",
        "row",
        "column",
        "req/s",
        "p50 us",
        "p99 us",
        "p99.9 us",
        "CPU us/r",
        "sys/r",
        "cs/r",
        "cross/r",
        "steal",
        "vs tokio: req/s  p99  CPU"
    ));
    let mut checks = Vec::new();
    for row in rows.iter() {
        if let Some(why) = &row.skipped {
            if row.samples.iter().all(|(_, s)| s.is_empty()) {
                out(&format!("{:<28} skipped: {why}", row.label));
                continue;
            }
        }
        let tokio = get(row, Column::Tokio);
        let limits = row
            .limits
            .iter()
            .filter_map(|(l, samples)| Some((l.label(), None, summary(samples)?)));
        let columns = row
            .samples
            .iter()
            .filter_map(|(c, _)| Some((c.label(), Some(*c), get(row, *c)?)));
        for (i, (label, column, s)) in columns.chain(limits).enumerate() {
            let name = if i == 0 { row.label.as_str() } else { "" };
            let vs = if column == Some(Column::Tokio) {
                String::new()
            } else {
                let t = tokio.unwrap_or_default();
                let cpu = match column.and_then(|c| cpu_ratio_interval(row, c)) {
                    Some((mean, half)) => format!("{mean:.2}x+-{half:.2}"),
                    None => x(Some(s.cpu_us), tokio.map(|_| t.cpu_us)),
                };
                format!(
                    "{:>7}  {:>5}  {:>5}",
                    x(Some(s.rate), tokio.map(|_| t.rate)),
                    x(s.p99_us, t.p99_us),
                    cpu,
                )
            };
            out(&format!(
                "{:<28} {:<7} {:>10.0} {:>8} {:>8} {:>9} {:>9} {:>6} {:>6} {:>7} {:>6}   {vs}",
                name,
                label,
                s.rate,
                fig(s.p50_us, 0),
                fig(s.p99_us, 0),
                fig(s.p999_us, 0),
                format!("{:.2}", s.cpu_us),
                fig(s.syscalls, 2),
                fig(s.switches, 2),
                fig(s.cross, 3),
                s.steal_pct
                    .map_or_else(|| "-".to_string(), |p| format!("{p:.0}%")),
            ));
        }
        if row.reruns > 0 {
            out(&format!(
                "{:<28} ({} run(s) made again: the hypervisor took too much of the CPU)",
                "", row.reruns
            ));
        }
        if let Some(why) = &row.skipped {
            out(&format!("{:<28} (incomplete: {why})", ""));
        }
        targets(row, &mut checks);
        if matches!(row.load, Load::Paced { .. }) {
            // Seed 002's claim stays checked beside issue 25's.
            if let Some(line) = uring_vs_legacy(row, &mut checks) {
                out(&format!("{:<28} {line}", ""));
            }
        }
    }
    let missed: Vec<&Check> = checks.iter().filter(|c| !c.met).collect();
    println!(
        "targets vs tokio: io_uring <= 0.85x CPU/request, >= 1.0x throughput, <= 1.0x p99, \
         <= 1.0x CPU per connection set up, at a fixed rate <= 0.85x p99.9; legacy <= 1.1x CPU/request, \
         >= 0.95x throughput, <= 1.2x p99, <= 1.2x CPU per connection, <= 5 syscalls per round trip on one connection; \
         at a fixed rate, io_uring vs legacy: mean <= 0.89x, p99.9 <= 0.85x. {} of {} met",
        checks.len() - missed.len(),
        checks.len()
    );
    for c in missed {
        println!("  missed: {}", c.what);
    }
}

/// The summary line a row counts in.
fn family(load: Load) -> Family {
    match load {
        Load::Echo { .. } => Family::ExtEcho,
        Load::Wrk { close: false, .. } => Family::ExtHttp,
        Load::Redis { .. } => Family::ExtRedis,
        Load::Wrk { close: true, .. } | Load::Churn { .. } => Family::ExtChurn,
        Load::Paced { .. } => Family::ExtPaced,
    }
}

/// The rows run so far, for the report: the medians the table prints, and
/// each column's p50/p99/p99.9 for the percentile plot.
pub fn tables() -> Vec<Table> {
    let Ok(rows) = RESULTS.try_lock() else {
        return Vec::new();
    };
    if rows.is_empty() {
        return Vec::new();
    }
    let cols = &columns().main;
    let rows = rows
        .iter()
        .map(|row| {
            let key = format!("ext/{}", row.label).replace(' ', "/");
            let family = family(row.load);
            let got: Vec<Option<Sample>> = cols.iter().map(|&c| get(row, c)).collect();
            if got.iter().all(Option::is_none) {
                let why = row.skipped.clone().unwrap_or_else(|| "no samples".into());
                return report::Row::failed(key, family, why);
            }
            let fig = |name: &str, unit: &str, kind: Kind, f: fn(&Sample) -> Option<f64>| {
                Figure::new(
                    name,
                    unit,
                    kind,
                    per_column(cols, |i| got[i].as_ref().and_then(f)),
                )
            };
            let unit = match row.load {
                Load::Wrk { close: true, .. } | Load::Churn { .. } => "connections/s",
                Load::Echo { .. } | Load::Paced { .. } => "round trips/s",
                _ => "requests/s",
            };
            let mut r = report::Row::new(
                key,
                family,
                vec![
                    fig("throughput", unit, Kind::Throughput, |s| Some(s.rate)),
                    fig("p50", "µs", Kind::Other, |s| s.p50_us),
                    fig("p99", "µs", Kind::P99, |s| s.p99_us),
                    fig("p99.9", "µs", Kind::Other, |s| s.p999_us),
                    fig("server CPU per request", "µs", Kind::Cpu, |s| {
                        Some(s.cpu_us)
                    }),
                    fig("cross-worker waits per request", "", Kind::Other, |s| {
                        s.cross
                    }),
                    fig("server syscalls per request", "", Kind::Other, |s| {
                        s.syscalls
                    }),
                    fig(
                        "server context switches per request",
                        "",
                        Kind::Other,
                        |s| s.switches,
                    ),
                    // Beside the figures, so a reader of the JSON or the
                    // page can tell a noisy run from a regression.
                    fig("hypervisor steal during the runs", "%", Kind::Other, |s| {
                        s.steal_pct
                    }),
                ],
            );
            r.percentiles = cols
                .iter()
                .zip(&got)
                .filter_map(|(c, s)| {
                    let s = s.as_ref()?;
                    let points: Vec<(f64, f64)> =
                        [(50.0, s.p50_us), (99.0, s.p99_us), (99.9, s.p999_us)]
                            .into_iter()
                            .filter_map(|(q, us)| Some((q, us?)))
                            .collect();
                    (!points.is_empty()).then(|| Percentiles {
                        column: c.label().into(),
                        points,
                    })
                })
                .collect();
            r.failed = row.skipped.as_ref().map(|why| format!("incomplete: {why}"));
            r
        })
        .collect();
    vec![Table {
        id: "external".into(),
        title: "External load: each server in its own process, loaded from another process".into(),
        columns: labels(cols),
        rows,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(cpu_us: f64) -> Sample {
        Sample {
            rate: 100_000.0,
            p50_us: Some(50.0),
            p99_us: Some(100.0),
            p999_us: Some(200.0),
            mean_us: None,
            cpu_us,
            cross: None,
            switches: None,
            syscalls: None,
            counted: false,
            steal_pct: None,
        }
    }

    #[test]
    fn the_cpu_target_is_judged_by_the_paired_mean_the_table_prints() {
        // Paired ratios 0.8, 0.8 and 1.0: a mean of 0.87, over the 0.85x
        // target, while the medians' ratio (8 / 10) is under it.
        let row = RowResult {
            label: "echo c16/64B multi(2)".into(),
            load: Load::Echo { conns: 16, msg: 64 },
            samples: vec![
                (Column::Tokio, [10.0, 10.0, 5.0].map(round).to_vec()),
                (Column::Uring, [8.0, 8.0, 5.0].map(round).to_vec()),
            ],
            limits: Vec::new(),
            reruns: 0,
            skipped: None,
        };
        let mut checks = Vec::new();
        targets(&row, &mut checks);
        let cpu = checks
            .iter()
            .find(|c| c.what.contains("CPU/request"))
            .expect("a CPU claim");
        assert!(cpu.what.ends_with("0.87x"), "{}", cpu.what);
        assert!(!cpu.met);
    }
}
