//! Minimal SVG line charts, readable in any browser with no other tool. Written by
//! hand rather than with plotters: its text layout needs a font backend, and these
//! charts need only lines, ticks and labels.

use std::fmt::Write;

mod ticks;

pub use ticks::Ticks;

/// One named line of (x, y) points.
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;
/// Width of one legend entry.
const LEGEND_ENTRY: f64 = 160.0;
/// Height of one legend row.
const LEGEND_ROW: f64 = 14.0;
const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
];

/// Keeps at most `max` evenly spaced points of a long curve (always the last).
pub fn thin(values: &[f64], max: usize) -> Vec<(f64, f64)> {
    let stride = values.len().div_ceil(max.max(1)).max(1);
    let mut points: Vec<(f64, f64)> = values
        .iter()
        .enumerate()
        .step_by(stride)
        .map(|(i, &v)| (i as f64, v))
        .collect();
    if let Some(&last) = values.last()
        && points.last().map(|p| p.0) != Some((values.len() - 1) as f64)
    {
        points.push(((values.len() - 1) as f64, last));
    }
    points
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Round ticks covering the values `pick` takes from every point.
fn bounds(series: &[Series], pick: impl Fn(&(f64, f64)) -> f64) -> Ticks {
    let values = series.iter().flat_map(|s| s.points.iter().map(&pick));
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo.is_finite() {
        Ticks::covering(lo, hi)
    } else {
        Ticks::covering(0.0, 1.0)
    }
}

/// Renders a line chart as SVG text.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let (x_ticks, y_ticks) = (bounds(series, |p| p.0), bounds(series, |p| p.1));
    let (x0, x1) = (x_ticks.start(), x_ticks.end());
    let (y0, y1) = (y_ticks.start(), y_ticks.end());
    // The legend's rows stand above the plot frame, so it never hides a line.
    let per_row = (((WIDTH - LEFT - RIGHT) / LEGEND_ENTRY) as usize).max(1);
    let rows = series.len().div_ceil(per_row).max(1);
    let top = TOP + LEGEND_ROW * (rows - 1) as f64;
    let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - top - BOTTOM);
    let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| top + ph - (y - y0) / (y1 - y0) * ph;
    let mut svg = opened(title, top, pw, ph);
    for &xv in &x_ticks.values {
        let _ = write!(
            svg,
            r##"<line x1="{x}" y1="{top}" x2="{x}" y2="{b}" stroke="#ddd"/><text x="{x}" y="{ty}" text-anchor="middle">{l}</text>"##,
            x = sx(xv),
            b = top + ph,
            ty = top + ph + 16.0,
            l = x_ticks.label(xv)
        );
    }
    y_gridlines(&mut svg, &y_ticks, pw, sy);
    let _ = write!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        LEFT + pw / 2.0,
        HEIGHT - 12.0,
        escape(x_label)
    );
    y_axis_label(&mut svg, y_label, top + ph / 2.0);
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let points: Vec<String> = s
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        let _ = write!(
            svg,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{}"/>"#,
            points.join(" ")
        );
        if series.len() > 1 {
            let (row, column) = (i / per_row, i % per_row);
            let lx = LEFT + LEGEND_ENTRY * column as f64;
            let ly = TOP - 8.0 + LEGEND_ROW * row as f64;
            let _ = write!(
                svg,
                r#"<line x1="{lx}" y1="{ly}" x2="{b}" y2="{ly}" stroke="{colour}" stroke-width="2"/><text x="{t}" y="{ty}">{}</text>"#,
                escape(&s.name),
                b = lx + 20.0,
                t = lx + 25.0,
                ty = ly + 4.0
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// A chart's opening: the SVG element, a white background, `title` and the plot's
/// frame (`pw` x `ph` from `LEFT`, `top`).
fn opened(title: &str, top: f64, pw: f64, ph: f64) -> String {
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/><text x="{}" y="22" text-anchor="middle" font-size="15">{}</text><rect x="{LEFT}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#,
        WIDTH / 2.0,
        escape(title)
    );
    svg
}

/// A grey line across the frame (`pw` wide) and a label at each of `ticks`, placed
/// by `sy`.
fn y_gridlines(svg: &mut String, ticks: &Ticks, pw: f64, sy: impl Fn(f64) -> f64) {
    for &v in &ticks.values {
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" y1="{y}" x2="{r}" y2="{y}" stroke="#ddd"/><text x="{tx}" y="{ty}" text-anchor="end">{l}</text>"##,
            y = sy(v),
            r = LEFT + pw,
            tx = LEFT - 6.0,
            ty = sy(v) + 4.0,
            l = ticks.label(v)
        );
    }
}

/// The y axis's name, turned upright, centred at height `y`.
fn y_axis_label(svg: &mut String, label: &str, y: f64) {
    let _ = write!(
        svg,
        r#"<text x="16" y="{y}" text-anchor="middle" transform="rotate(-90 16 {y})">{}</text>"#,
        escape(label)
    );
}

/// One named set of bars, one per group: mean and standard deviation, if any.
pub struct Bars {
    /// Legend label.
    pub name: String,
    /// Per group: (mean, sd), or nothing to draw.
    pub values: Vec<Option<(f64, f64)>>,
}

/// Renders grouped bars (with sd whiskers) as SVG text; `marks` draws one black
/// reference line across each group (e.g. the optimum).
pub fn bar_chart(
    title: &str,
    y_label: &str,
    groups: &[String],
    series: &[Bars],
    marks: &[Option<f64>],
) -> String {
    let top = series
        .iter()
        .flat_map(|s| s.values.iter().flatten().map(|(m, sd)| m + sd))
        .chain(marks.iter().flatten().copied())
        .fold(0.0f64, f64::max);
    let y_ticks = Ticks::covering(0.0, if top > 0.0 { top } else { 1.0 });
    let y1 = y_ticks.end();
    let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let sy = |y: f64| TOP + ph - y.clamp(0.0, y1) / y1 * ph;
    let group_w = pw / groups.len().max(1) as f64;
    let bar_w = group_w * 0.8 / series.len().max(1) as f64;
    let mut svg = opened(title, TOP, pw, ph);
    y_gridlines(&mut svg, &y_ticks, pw, sy);
    y_axis_label(&mut svg, y_label, TOP + ph / 2.0);
    for (g, name) in groups.iter().enumerate() {
        let x0 = LEFT + g as f64 * group_w + group_w * 0.1;
        for (i, s) in series.iter().enumerate() {
            let Some(&Some((mean, sd))) = s.values.get(g) else {
                continue;
            };
            let x = x0 + i as f64 * bar_w;
            let colour = COLOURS[i % COLOURS.len()];
            let _ = write!(
                svg,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{colour}"/><line x1="{c:.1}" y1="{lo:.1}" x2="{c:.1}" y2="{hi:.1}" stroke="black"/>"#,
                y = sy(mean),
                w = bar_w * 0.9,
                h = sy(0.0) - sy(mean),
                c = x + bar_w * 0.45,
                lo = sy(mean - sd),
                hi = sy(mean + sd)
            );
        }
        if let Some(Some(mark)) = marks.get(g) {
            let _ = write!(
                svg,
                r#"<line x1="{a:.1}" y1="{y:.1}" x2="{b:.1}" y2="{y:.1}" stroke="black" stroke-width="2"/>"#,
                a = x0 - group_w * 0.05,
                b = x0 + group_w * 0.85,
                y = sy(*mark)
            );
        }
        let _ = write!(
            svg,
            r#"<text x="{x:.1}" y="{y}" text-anchor="middle">{}</text>"#,
            escape(name),
            x = LEFT + (g as f64 + 0.5) * group_w,
            y = TOP + ph + 16.0
        );
    }
    for (i, s) in series.iter().enumerate() {
        let x = LEFT + 10.0 + 120.0 * i as f64;
        let _ = write!(
            svg,
            r#"<rect x="{x}" y="{y}" width="12" height="12" fill="{c}"/><text x="{tx}" y="{ty}">{}</text>"#,
            escape(&s.name),
            y = HEIGHT - 24.0,
            c = COLOURS[i % COLOURS.len()],
            tx = x + 16.0,
            ty = HEIGHT - 14.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_the_first_and_last_points() {
        let values: Vec<f64> = (0..10_001).map(f64::from).collect();
        let points = thin(&values, 100);
        assert!(points.len() <= 102);
        assert_eq!(points[0], (0.0, 0.0));
        assert_eq!(*points.last().unwrap(), (10_000.0, 10_000.0));
    }

    #[test]
    fn chart_has_one_polyline_per_series_and_escapes_text() {
        let series = vec![
            Series {
                name: "a<b".into(),
                points: vec![(0.0, 1.0), (1.0, 2.0)],
            },
            Series {
                name: "c".into(),
                points: vec![(0.0, 0.0), (1.0, 3.0)],
            },
        ];
        let svg = line_chart("t & u", "x", "y", &series);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("t &amp; u") && svg.contains("a&lt;b"));
    }

    #[test]
    fn a_legend_too_wide_for_one_row_wraps_and_lowers_the_frame() {
        let series: Vec<Series> = (0..6)
            .map(|i| Series {
                name: format!("s{i}"),
                points: vec![(0.0, 0.0), (1.0, f64::from(i))],
            })
            .collect();
        let svg = line_chart("t", "x", "y", &series);
        // Three entries of 160 px fit the 630 px frame: s3 starts the second row.
        assert!(
            svg.contains(r#"<line x1="70" y1="32" x2="90" y2="32""#),
            "{svg}"
        );
        assert!(
            svg.contains(r#"<line x1="70" y1="46" x2="90" y2="46""#),
            "{svg}"
        );
        let frame = format!(r#"<rect x="{LEFT}" y="54" width="630" height="316""#);
        assert!(svg.contains(&frame), "{svg}");
    }

    #[test]
    fn bar_chart_draws_one_bar_per_value_and_one_mark_per_group() {
        let series = vec![
            Bars {
                name: "a".into(),
                values: vec![Some((0.5, 0.1)), None],
            },
            Bars {
                name: "b".into(),
                values: vec![Some((1.0, 0.0)), Some((0.25, 0.0))],
            },
        ];
        let groups = vec!["g1".to_string(), "g2".to_string()];
        let svg = bar_chart("t", "y", &groups, &series, &[Some(1.0), None]);
        // Plot frame + background + 3 bars + 2 legend swatches.
        assert_eq!(svg.matches("<rect").count(), 2 + 3 + 2);
        assert_eq!(svg.matches(r#"stroke-width="2""#).count(), 1);
        assert!(svg.contains(">g1<") && svg.contains(">g2<"));
    }
}
