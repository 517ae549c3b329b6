//! The report keeps every row a run measured, and the page has a chart per
//! table: checked on a tiny real run and on synthetic rows of every family.

use super::summary::{summarize, summary_text};
use super::*;

fn figure(name: &str, kind: Kind, values: &[(&str, f64)]) -> Figure {
    Figure::new(name, "u", kind, values.iter().map(|&(c, v)| (c, Some(v))))
}

/// Rows of every family, external ones with percentiles, and a failed row.
fn synthetic() -> Report {
    let three = |t: f64, l: f64, u: f64| [("tokio", t), ("legacy", l), ("uring", u)];
    let mut echo = Row::new(
        "ext/echo/c16/64B/multi(2)",
        Family::ExtEcho,
        vec![
            figure("throughput", Kind::Throughput, &three(100.0, 95.0, 110.0)),
            figure("p99", Kind::P99, &three(50.0, 55.0, 45.0)),
            figure("CPU", Kind::Cpu, &three(10.0, 11.0, 9.0)),
        ],
    );
    echo.percentiles = ["tokio", "legacy", "uring"]
        .iter()
        .map(|c| Percentiles {
            column: c.to_string(),
            points: vec![(50.0, 20.0), (99.0, 50.0), (99.9, 80.0)],
        })
        .collect();
    let redis = Row::new(
        "ext/redis/GET/c50/multi(2)",
        Family::ExtRedis,
        vec![figure(
            "throughput",
            Kind::Throughput,
            &three(200.0, 200.0, 400.0),
        )],
    );
    let redis_slow = Row::new(
        "ext/redis/GET/c1/multi(2)",
        Family::ExtRedis,
        vec![figure(
            "throughput",
            Kind::Throughput,
            &three(200.0, 200.0, 100.0),
        )],
    );
    let churn = Row::failed("ext/churn/c16/multi(2)", Family::ExtChurn, "wrk missing");
    let rt = Row::new(
        "chained_spawn/current",
        Family::Runtime,
        vec![figure(
            "median time",
            Kind::Time,
            &three(100.0, 125.0, 80.0),
        )],
    );
    let compat = Row::new(
        "echo_compat/c1/64B/multi(2) uring",
        Family::EchoCompat,
        vec![figure(
            "round trips",
            Kind::Throughput,
            &[("plain", 10.0), ("compat", 9.9)],
        )],
    );
    let cols = |v: &[&str]| v.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    Report {
        mode: "quick".into(),
        machine: Machine::this(Some(0.1)),
        seconds: 1.0,
        notes: Vec::new(),
        tables: vec![
            Table {
                id: "external".into(),
                title: "external".into(),
                columns: cols(&["tokio", "legacy", "uring"]),
                rows: vec![echo, redis, redis_slow, churn],
            },
            Table {
                id: "runtime".into(),
                title: "runtime".into(),
                columns: cols(&["tokio", "legacy", "uring"]),
                rows: vec![rt],
            },
            Table {
                id: "echo_compat".into(),
                title: "compat".into(),
                columns: cols(&["plain", "compat"]),
                rows: vec![compat],
            },
        ],
    }
}

/// The keys of the rows in a report's JSON, read back as a script would.
fn json_keys(json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).expect("valid JSON");
    v["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .flat_map(|t| t["rows"].as_array().expect("rows").clone())
        .map(|r| r["key"].as_str().expect("key").to_string())
        .collect()
}

#[test]
fn json_has_every_row_and_reads_back() {
    let report = synthetic();
    let json = json(&report);
    let keys = json_keys(&json);
    for row in report.rows() {
        assert!(keys.contains(&row.key), "{} missing from the JSON", row.key);
    }
    assert_eq!(keys.len(), report.rows().count());
    let back: Report = serde_json::from_str(&json).expect("a Report");
    let echo = back.tables[0].rows[0].figure(Kind::Throughput).unwrap();
    assert_eq!(echo.values["uring"], 110.0);
    assert_eq!(back.tables[0].rows[0].percentiles.len(), 3);
    assert!(back.tables[0].rows[3].failed.is_some());
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["summary"][0]["family"], "ext_echo");
}

#[test]
fn html_has_a_chart_per_table_and_no_scripts() {
    let report = synthetic();
    let page = html(&report);
    assert_eq!(
        page.matches("<figure class=\"chart\"").count(),
        report.tables.len()
    );
    // Each chart holds an inline SVG with one panel per figure it weighs
    // (external: throughput, p99, CPU).
    let external = html::table_chart(&report.tables[0]);
    assert!(
        external.starts_with("<svg"),
        "{}",
        &external[..40.min(external.len())]
    );
    assert_eq!(page.matches("<figure class=\"percentiles\"").count(), 1);
    assert_eq!(page.matches("<svg").count(), report.tables.len() + 1);
    assert!(!page.contains("<script"));
    assert!(page.contains(&report.machine.kernel));
    assert!(page.contains("mode: <b>quick</b>"));
    // The failed row says why.
    assert!(page.contains("wrk missing"));
    // The ratio is written on each group.
    assert!(
        external.contains("1.10×"),
        "uring's throughput ratio on the chart"
    );
}

#[test]
fn summary_is_the_geometric_mean_per_family_and_says_it_in_words() {
    let lines = summarize(&synthetic());
    let families: Vec<Family> = lines.iter().map(|l| l.family).collect();
    // External rows first, the compat adapter (no tokio) and the failed
    // churn row left out.
    assert_eq!(
        families,
        [Family::ExtEcho, Family::ExtRedis, Family::Runtime]
    );
    let uring = |l: &summary::Line| {
        l.drivers
            .iter()
            .find(|(d, _)| d == "uring")
            .unwrap()
            .1
            .clone()
    };
    let echo = uring(&lines[0]);
    assert!((echo.speed.unwrap() - 1.1).abs() < 1e-9);
    assert!((echo.cpu.unwrap() - 0.9).abs() < 1e-9);
    assert_eq!(
        lines[0].words,
        "uring 1.10× tokio's round trips/s at 0.90× its CPU, p99 0.90×; \
         legacy 0.95× at 1.10× its CPU, p99 1.10×"
    );
    // 2× and 0.5× cancel.
    assert!((uring(&lines[1]).speed.unwrap() - 1.0).abs() < 1e-9);
    assert_eq!(lines[1].rows, 2);
    // A time: 80 against tokio's 100 is 1.25× its speed.
    assert!((uring(&lines[2]).speed.unwrap() - 1.25).abs() < 1e-9);
    let text = summary_text(&lines);
    assert!(text
        .lines()
        .any(|l| l.starts_with("echo server (external load)")));
    assert!(text.contains("1.25×"));
}

/// A tiny real run: one runtime row on every column the kernel allows; the
/// JSON of what `main` collects has it, with a figure per column.
#[test]
fn json_of_a_tiny_run_has_every_row() {
    crate::columns::probe(true);
    let plan = crate::rt_rows::Plan {
        rounds: 1,
        warmup: 1,
        iters: 3,
        min_iters: 3,
        row_budget: std::time::Duration::from_millis(50),
    };
    crate::rt_rows::run(&plan, &|key: &str| {
        key == "chained_spawn/current" || key == "ping_pong/current"
    });
    let report = crate::collect(&crate::QUICK);
    let json = json(&report);
    let keys = json_keys(&json);
    assert_eq!(keys, ["ping_pong/current", "chained_spawn/current"]);
    let back: Report = serde_json::from_str(&json).unwrap();
    for row in back.rows() {
        let time = row.figure(Kind::Time).expect("a median time");
        for c in &crate::columns::columns().main {
            assert!(time.values[c.label()] > 0.0, "{} on {}", row.key, c.label());
        }
    }
    assert_eq!(summarize(&back)[0].family, Family::Runtime);
    assert!(html(&back).contains("id=\"chart-runtime\""));
}
