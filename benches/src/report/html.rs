//! The HTML report: one page, no scripts, every chart an inline SVG drawn
//! by plotters' SVG backend, so it opens offline from `target/`.
//!
//! One chart per table (`<figure class="chart">`): horizontal grouped bars,
//! a group per row and a bar per column, one panel per figure the summary
//! weighs (throughput or time, p99, CPU per request). Rows of one table
//! differ by orders of magnitude (10,000 spawns beside one ping-pong), so a
//! bar is the column's figure divided by the table's first column (tokio),
//! whose bar is 1 and carries the figure itself; the other bars carry the
//! ratio. The rows with latency percentiles (the external servers) get a
//! small percentile plot each (`<figure class="percentiles">`), p50 to
//! p99.9. The summary is an HTML table above them.

use std::fmt::Write as _;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::summary::{summarize, DRIVERS};
use super::{Figure, Kind, Report, Row, Table};

const WIDTH: u32 = 1100;
/// Room for the rows' names left of the bars.
const LABELS: u32 = 250;

/// A column's colour: tokio slate, legacy orange, uring green.
fn colour(table: &Table, column: &str) -> RGBColor {
    match column {
        "tokio" | "plain" => RGBColor(96, 112, 140),
        "legacy" | "compat" => RGBColor(230, 145, 40),
        "uring" => RGBColor(46, 150, 90),
        _ => {
            let palette = [RGBColor(140, 90, 170), RGBColor(200, 70, 70)];
            let i = table.columns.iter().position(|c| c == column).unwrap_or(0);
            palette[i % palette.len()]
        }
    }
}

fn css_colour(c: RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A figure as a person reads it: 3 significant digits, thousands apart.
pub fn human(x: f64) -> String {
    let a = x.abs();
    if a >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", x / 1e3)
    } else if a >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// The panels of a table's chart: the first figure of each kind the
/// summary weighs, in the summary's order.
fn panels(table: &Table) -> Vec<Kind> {
    [Kind::Throughput, Kind::Time, Kind::P99, Kind::Cpu]
        .into_iter()
        .filter(|&k| table.rows.iter().any(|r| r.figure(k).is_some()))
        .collect()
}

fn panel_height(table: &Table, rows: usize) -> u32 {
    let group = 12 * table.columns.len() as u32 + 14;
    70 + group * rows as u32
}

/// The chart of one table, as an SVG document (`<svg>..</svg>`).
pub fn table_chart(table: &Table) -> String {
    let rows: Vec<&Row> = table
        .rows
        .iter()
        .filter(|r| !r.figures.is_empty())
        .collect();
    let panels = panels(table);
    let mut svg = String::new();
    if rows.is_empty() || panels.is_empty() {
        return svg;
    }
    let h = panel_height(table, rows.len());
    {
        let root =
            SVGBackend::with_string(&mut svg, (WIDTH, h * panels.len() as u32)).into_drawing_area();
        root.fill(&WHITE).expect("svg");
        let areas = root.split_evenly((panels.len(), 1));
        for (area, kind) in areas.iter().zip(&panels) {
            draw_panel(&root, area, table, &rows, *kind);
        }
        root.present().expect("svg");
    }
    svg
}

/// One panel: per row a group of bars, each column's figure of `kind`
/// over the first column's.
fn draw_panel(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    table: &Table,
    rows: &[&Row],
    kind: Kind,
) {
    let base = &table.columns[0];
    let figures: Vec<Option<&Figure>> = rows.iter().map(|r| r.figure(kind)).collect();
    let Some(sample) = figures.iter().flatten().next() else {
        return;
    };
    let ratios: Vec<f64> = figures
        .iter()
        .flatten()
        .flat_map(|f| table.columns.iter().filter_map(|c| f.ratio(c, base)))
        .collect();
    let max = ratios.iter().copied().fold(1.0, f64::max);
    let better = if sample.higher_is_better {
        "longer bar is better"
    } else {
        "shorter bar is better"
    };
    // The unit, where every row has the same (ns/spawn beside ns/ping: no).
    let unit = if figures.iter().flatten().all(|f| f.unit == sample.unit) {
        format!(" ({})", sample.unit)
    } else {
        String::new()
    };
    let caption = format!("{}{unit}, relative to {base}: {better}", sample.name);
    let n = rows.len() as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 17))
        .margin(8)
        .margin_left(LABELS)
        .margin_right(70)
        .x_label_area_size(24)
        .build_cartesian_2d(0.0..max * 1.08, 0.0..n)
        .expect("svg");
    chart
        .configure_mesh()
        .disable_y_mesh()
        .disable_y_axis()
        .x_labels(8)
        .x_label_formatter(&|x| format!("{x:.1}×"))
        // Fixed sizes: plotters' defaults scale with the panel's height,
        // which makes a one-row table's axis unreadable.
        .label_style(("sans-serif", 12))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .expect("svg");
    let k = table.columns.len() as f64;
    let bar = 0.8 / k;
    let label_font = ("sans-serif", 13).into_font().color(&BLACK);
    let value_font = ("sans-serif", 11)
        .into_font()
        .color(&RGBColor(40, 40, 40))
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (row, figure)) in rows.iter().zip(&figures).enumerate() {
        let top = n - i as f64 - 0.1;
        let (x, y) = chart.backend_coord(&(0.0, n - i as f64 - 0.5));
        root.draw(&Text::new(
            row.key.clone(),
            (x - 8, y),
            label_font.pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .expect("svg");
        let Some(figure) = figure else { continue };
        for (j, column) in table.columns.iter().enumerate() {
            let Some(r) = figure.ratio(column, base) else {
                continue;
            };
            let y1 = top - j as f64 * bar;
            let y0 = y1 - bar * 0.9;
            let c = colour(table, column);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y0), (r, y1)],
                    c.filled(),
                )))
                .expect("svg");
            let text = if j == 0 {
                format!("{} {}", human(figure.values[column]), figure.unit)
            } else {
                format!("{r:.2}×")
            };
            chart
                .draw_series(std::iter::once(Text::new(
                    text,
                    (r + max * 0.006, (y0 + y1) / 2.0),
                    value_font.clone(),
                )))
                .expect("svg");
        }
    }
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(1.0, 0.0), (1.0, n)],
            BLACK.mix(0.5).stroke_width(1),
        )))
        .expect("svg");
}

/// The percentile plot of one row: a line per column, p50 to p99.9.
pub fn percentile_chart(table: &Table, row: &Row) -> String {
    let mut svg = String::new();
    if row.percentiles.is_empty() {
        return svg;
    }
    let all = || {
        row.percentiles
            .iter()
            .flat_map(|p| p.points.iter().map(|(_, us)| *us))
            .filter(|us| *us > 0.0)
    };
    let max = all().fold(1.0, f64::max);
    let min = all().fold(max, f64::min);
    // x: the percentiles evenly spaced, as the tail matters as much as the
    // middle to a reader.
    let names: Vec<String> = row.percentiles[0]
        .points
        .iter()
        .map(|(q, _)| format!("p{q}"))
        .collect();
    let at = |q: f64| {
        row.percentiles[0]
            .points
            .iter()
            .position(|(x, _)| *x == q)
            .unwrap_or(0) as f64
    };
    let last = names.len().saturating_sub(1) as f64;
    {
        let root = SVGBackend::with_string(&mut svg, (350, 230)).into_drawing_area();
        root.fill(&WHITE).expect("svg");
        let mut chart = ChartBuilder::on(&root)
            .caption(&row.key, ("sans-serif", 14))
            .margin(8)
            .x_label_area_size(22)
            .y_label_area_size(46)
            // Logarithmic: p50 and p99.9 are often 100× apart.
            .build_cartesian_2d(-0.25..last + 0.25, (min * 0.7..max * 1.4).log_scale())
            .expect("svg");
        chart
            .configure_mesh()
            .x_labels(2 * names.len() + 1)
            .x_label_formatter(&|x: &f64| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    names.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc("µs (log scale)")
            .label_style(("sans-serif", 11))
            .light_line_style(WHITE.mix(0.0))
            .disable_y_mesh()
            .y_labels(6)
            // Only 1, 2 and 5 of each decade, else the labels of a
            // narrow range overlap.
            .y_label_formatter(&|y| {
                let m = y / 10f64.powf(y.log10().floor());
                if [1.0, 2.0, 5.0].iter().any(|k| (m - k).abs() < 1e-6) {
                    human(*y)
                } else {
                    String::new()
                }
            })
            .draw()
            .expect("svg");
        for p in &row.percentiles {
            let c = colour(table, &p.column);
            let points: Vec<(f64, f64)> = p.points.iter().map(|&(q, us)| (at(q), us)).collect();
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
                .expect("svg")
                .label(p.column.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 14, y)], c.stroke_width(2))
                });
            chart
                .draw_series(points.into_iter().map(|xy| Circle::new(xy, 3, c.filled())))
                .expect("svg");
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK.mix(0.3))
            .draw()
            .expect("svg");
        root.present().expect("svg");
    }
    svg
}

const STYLE: &str = "
body { font-family: sans-serif; margin: 24px auto; max-width: 1140px; color: #222; }
h1 { margin-bottom: 4px; }
.machine { color: #555; margin-top: 0; }
table.summary { border-collapse: collapse; margin: 12px 0; font-size: 14px; }
table.summary th, table.summary td { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: right; }
table.summary td.family, table.summary th.family { text-align: left; }
table.summary th.driver { text-align: center; border-bottom: 1px solid #999; }
table.summary td.words { text-align: left; color: #444; font-size: 13px; }
td.good { background: #dff3e4; } td.bad { background: #f8e0dc; }
.legend span { display: inline-block; width: 14px; height: 14px; margin: 0 4px -2px 14px; }
section { margin-top: 28px; }
figure { margin: 8px 0; }
.grid { display: flex; flex-wrap: wrap; gap: 6px; }
.grid figure { margin: 0; }
.failed { color: #a33; }
details { margin: 6px 0; font-size: 13px; }
details table { border-collapse: collapse; }
details td, details th { padding: 2px 8px; text-align: right; border-bottom: 1px solid #eee; }
details td:first-child, details th:first-child { text-align: left; }
";

/// A summary cell, green where the driver beats tokio, red where it trails.
fn summary_cell(x: Option<f64>, higher_is_better: bool) -> String {
    match x {
        Some(x) => {
            // Within 2% of tokio: neither, as a quick run's noise is larger.
            let better = if higher_is_better { x } else { 1.0 / x };
            let class = if better > 1.02 {
                "good"
            } else if better < 0.98 {
                "bad"
            } else {
                "even"
            };
            format!("<td class=\"{class}\">{x:.2}×</td>")
        }
        None => "<td>-</td>".into(),
    }
}

fn summary_html(report: &Report) -> String {
    let lines = summarize(report);
    let drivers: Vec<&str> = DRIVERS
        .iter()
        .copied()
        .filter(|d| lines.iter().any(|l| l.drivers.iter().any(|(x, _)| x == d)))
        .collect();
    let mut h = String::from(
        "<table class=\"summary\"><tr><th class=\"family\" rowspan=\"2\">family</th><th rowspan=\"2\">rows</th>",
    );
    for d in &drivers {
        let _ = write!(h, "<th colspan=\"3\" class=\"driver\">{d} ÷ tokio</th>");
    }
    h += "<th class=\"family\" rowspan=\"2\">in words</th></tr>\n<tr>";
    for _ in &drivers {
        h += "<th>speed</th><th>p99</th><th>CPU/req</th>";
    }
    h += "</tr>\n";
    for l in &lines {
        let _ = write!(
            h,
            "<tr><td class=\"family\">{}</td><td>{}</td>",
            esc(&l.label),
            l.rows
        );
        for d in &drivers {
            let r = l
                .drivers
                .iter()
                .find(|(x, _)| x == d)
                .map(|(_, r)| r.clone())
                .unwrap_or_default();
            h += &summary_cell(r.speed, true);
            h += &summary_cell(r.p99, false);
            h += &summary_cell(r.cpu, false);
        }
        let words: Vec<String> = l.words.split("; ").map(esc).collect();
        let _ = writeln!(h, "<td class=\"words\">{}</td></tr>", words.join("<br>"));
    }
    h += "</table>\n<p>speed = requests/s, round trips/s, ops/s, or 1/time (above 1.00× is better than tokio); \
          p99 latency and CPU per request: below 1.00× is better. Each cell is the geometric mean of the family's rows; green: better than tokio by more than 2%, red: worse by more than 2%.</p>\n";
    h
}

/// Every figure of a table as numbers, folded away under the chart.
fn numbers_html(table: &Table) -> String {
    let mut h = String::from(
        "<details><summary>the figures</summary><table><tr><th>row</th><th>figure</th>",
    );
    for c in &table.columns {
        let _ = write!(h, "<th>{}</th>", esc(c));
    }
    h += "</tr>\n";
    for row in &table.rows {
        for (i, f) in row.figures.iter().enumerate() {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{} ({})</td>",
                if i == 0 { esc(&row.key) } else { String::new() },
                esc(&f.name),
                esc(&f.unit)
            );
            for c in &table.columns {
                match f.values.get(c) {
                    Some(v) => {
                        let _ = write!(h, "<td>{}</td>", human(*v));
                    }
                    None => h += "<td>-</td>",
                }
            }
            h += "</tr>\n";
        }
    }
    h += "</table></details>\n";
    h
}

/// The colours of a table's columns.
fn legend(table: &Table) -> String {
    let mut h = String::from("<p class=\"legend\">");
    for c in &table.columns {
        let _ = write!(
            h,
            "<span style=\"background:{}\"></span>{}",
            css_colour(colour(table, c)),
            esc(c)
        );
    }
    h += "</p>\n";
    h
}

/// The whole page.
pub fn html(report: &Report) -> String {
    let m = &report.machine;
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>tokiwa vs tokio: benchmark report</title><style>{STYLE}</style></head><body>\n\
         <h1>tokiwa vs tokio</h1>\n<p class=\"machine\">mode: <b>{}</b> · {} CPUs{} · {} · load average before: {} · the rows took {:.0} s</p>\n",
        esc(&report.mode),
        m.cpus,
        m.cpu_model
            .as_ref()
            .map(|c| format!(" ({})", esc(c)))
            .unwrap_or_default(),
        esc(&m.kernel),
        m.load_before
            .map(|l| format!("{l:.2}"))
            .unwrap_or_else(|| "-".into()),
        report.seconds,
    );
    for note in &report.notes {
        let _ = writeln!(h, "<p class=\"failed\">{}</p>", esc(note));
    }
    h += "<h2>Summary</h2>\n";
    h += &summary_html(report);
    for table in &report.tables {
        let _ = writeln!(
            h,
            "<section id=\"{}\"><h2>{}</h2>",
            esc(&table.id),
            esc(&table.title)
        );
        h += &legend(table);
        let _ = writeln!(
            h,
            "<figure class=\"chart\" id=\"chart-{}\">{}</figure>",
            esc(&table.id),
            table_chart(table)
        );
        for row in table.rows.iter().filter(|r| r.failed.is_some()) {
            let _ = writeln!(
                h,
                "<p class=\"failed\">{}: {}</p>",
                esc(&row.key),
                esc(row.failed.as_deref().unwrap_or_default())
            );
        }
        let with_percentiles: Vec<&Row> = table
            .rows
            .iter()
            .filter(|r| !r.percentiles.is_empty())
            .collect();
        if !with_percentiles.is_empty() {
            h += "<h3>Latency percentiles, per server row (µs, log scale; lower is better)</h3><div class=\"grid\">\n";
            for row in with_percentiles {
                let _ = writeln!(
                    h,
                    "<figure class=\"percentiles\">{}</figure>",
                    percentile_chart(table, row)
                );
            }
            h += "</div>\n";
        }
        h += &numbers_html(table);
        h += "</section>\n";
    }
    h += "</body></html>\n";
    h
}
