// A learner's Elo against its training time: the ratings `burnmate match` fitted for
// nets trained for different times, as a markdown table and an SVG chart.
//
// cargo run --release --example elo_curve -- OUT.svg [SERIES:]SECONDS=MATCH_DIR ...
//
// Each MATCH_DIR is a finished `burnmate match` (a ladder or one UCI_Elo level, so
// its summary.json has a rating); SECONDS is the net's training time (CPU seconds of
// the run's generations.csv for a chess run); SERIES names the line the point
// belongs to (e.g. `seed0`, `seed1`; default `rating`). The chart draws, for each
// series, the rating and its 95 % interval's ends against training hours.

use std::path::Path;

use anyhow::{Context, Result, bail};
use burnmate::output::plot::{Series, line_chart};

/// One net's rating: training seconds, rating, 95 % interval.
#[derive(Debug, PartialEq)]
pub struct Point {
    /// The line the point belongs to.
    pub series: String,
    /// Training time in seconds.
    pub seconds: f64,
    /// The fitted rating and its interval's ends.
    pub rating: [f64; 3],
    /// The run as the match named it.
    pub run: String,
}

/// The rating `burnmate match` wrote in `dir/summary.json`, a point of `series`.
pub fn read_point(series: &str, seconds: f64, dir: &Path) -> Result<Point> {
    let path = dir.join("summary.json");
    let text = std::fs::read_to_string(&path).with_context(|| path.display().to_string())?;
    let summary: serde_json::Value = serde_json::from_str(&text)?;
    let rating = summary["rating"]
        .as_array()
        .filter(|r| r.len() == 3)
        .with_context(|| format!("{}: no fitted rating", path.display()))?;
    let number = |i: usize| rating[i].as_f64().unwrap_or(f64::NAN);
    Ok(Point {
        series: series.to_string(),
        seconds,
        rating: [number(0), number(1), number(2)],
        run: summary["run"].as_str().unwrap_or("").to_string(),
    })
}

/// The markdown table and the SVG chart of `points` (in training order): one
/// rating line and two interval lines for each series.
pub fn render(points: &[Point]) -> (String, String) {
    let mut table =
        String::from("| series | training | run | rating (95 %) |\n|---|---:|---|---:|\n");
    let shown = |v: f64| {
        if v.is_finite() {
            format!("{v:.0}")
        } else {
            "unbounded".into()
        }
    };
    for p in points {
        table += &format!(
            "| {} | {:.2} h | {} | {} [{}, {}] |\n",
            p.series,
            p.seconds / 3600.0,
            p.run,
            shown(p.rating[0]),
            shown(p.rating[1]),
            shown(p.rating[2])
        );
    }
    let mut names: Vec<&str> = Vec::new();
    for p in points {
        if !names.contains(&p.series.as_str()) {
            names.push(&p.series);
        }
    }
    let line = |series: &str, name: String, k: usize| Series {
        name,
        points: points
            .iter()
            .filter(|p| p.series == series && p.rating[k].is_finite())
            .map(|p| (p.seconds / 3600.0, p.rating[k]))
            .collect(),
    };
    let series: Vec<Series> = names
        .iter()
        .flat_map(|name| {
            [
                line(name, name.to_string(), 0),
                line(name, format!("{name}: 95 % low"), 1),
                line(name, format!("{name}: 95 % high"), 2),
            ]
        })
        .collect();
    let chart = line_chart(
        "Elo against training time",
        "training (CPU-hours)",
        "rating on Stockfish's UCI_Elo scale",
        &series,
    );
    (table, chart)
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((out, pairs)) = args.split_first() else {
        bail!("usage: elo_curve OUT.svg [SERIES:]SECONDS=MATCH_DIR ...");
    };
    let points = pairs
        .iter()
        .map(|pair| {
            let (point, dir) = pair
                .split_once('=')
                .with_context(|| format!("'{pair}': expected [SERIES:]SECONDS=MATCH_DIR"))?;
            let (series, seconds) = point.split_once(':').unwrap_or(("rating", point));
            let seconds = seconds
                .parse()
                .with_context(|| format!("'{pair}': {seconds:?} is not a number of seconds"))?;
            read_point(series, seconds, Path::new(dir))
        })
        .collect::<Result<Vec<_>>>()?;
    let (table, chart) = render(&points);
    std::fs::write(out, chart)?;
    print!("{table}");
    Ok(())
}
