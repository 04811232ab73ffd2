//! Round axis ticks: the "nice numbers" rule (Heckbert, Graphics Gems 1990). The
//! step is 1, 2, 2.5 or 5 times a power of ten, chosen for about five intervals; the
//! axis runs from the last multiple of the step at or below the data to the first
//! at or above it, so every tick is a round number.

/// The ticks of an axis covering `lo..=hi`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ticks {
    /// Tick values from the axis start to its end.
    pub values: Vec<f64>,
    /// The distance between ticks.
    pub step: f64,
}

impl Ticks {
    /// Ticks for data in `lo..=hi` (any order; a single value gets a unit axis).
    pub fn covering(lo: f64, hi: f64) -> Ticks {
        let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
        let (lo, hi) = if hi - lo < 1e-12 {
            (lo - 0.5, hi + 0.5)
        } else {
            (lo, hi)
        };
        let step = nice_step((hi - lo) / 5.0);
        let first = (lo / step + 1e-9).floor();
        let last = (hi / step - 1e-9).ceil();
        let values = (0..=(last - first) as i64)
            .map(|i| round_to_step((first + i as f64) * step, step))
            .collect();
        Ticks { values, step }
    }

    /// The axis start.
    pub fn start(&self) -> f64 {
        self.values[0]
    }

    /// The axis end.
    pub fn end(&self) -> f64 {
        *self.values.last().expect("at least two ticks")
    }

    /// The label of `value`: thousands as `k` (`20k`), else as many decimals as the
    /// step needs (`0.25`, `0.6`, `3`).
    pub fn label(&self, value: f64) -> String {
        if self.step >= 1000.0 && value != 0.0 {
            let thousands = round_to_step(value / 1000.0, self.step / 1000.0);
            return format!("{thousands}k");
        }
        let exponent = (self.step.log10() + 1e-9).floor();
        let two_and_a_half = (self.step / 10f64.powf(exponent) - 2.5).abs() < 1e-9;
        let decimals = (-exponent).max(0.0) as usize + usize::from(two_and_a_half);
        format!("{value:.decimals$}")
    }
}

/// 1, 2, 2.5 or 5 times a power of ten, the smallest at or above `rough`.
fn nice_step(rough: f64) -> f64 {
    let power = 10f64.powf(rough.log10().floor());
    let fraction = rough / power;
    let nice = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .find(|&n| fraction <= n + 1e-9)
        .unwrap_or(10.0);
    nice * power
}

/// `value` without the float noise of `k * step` (0.30000000000000004 -> 0.3).
fn round_to_step(value: f64, step: f64) -> f64 {
    let scale = 10f64.powf((-step.log10().floor() + 2.0).max(0.0));
    (value * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(lo: f64, hi: f64) -> Vec<String> {
        let ticks = Ticks::covering(lo, hi);
        ticks.values.iter().map(|&v| ticks.label(v)).collect()
    }

    #[test]
    fn ticks_of_a_training_run_are_round_thousands() {
        assert_eq!(
            labels(0.0, 99_999.0),
            ["0", "20k", "40k", "60k", "80k", "100k"]
        );
        assert_eq!(Ticks::covering(0.0, 99_999.0).values[1], 20_000.0);
    }

    #[test]
    fn ticks_of_a_reward_curve_are_round_tenths() {
        assert_eq!(
            labels(0.536, 1.0),
            ["0.5", "0.6", "0.7", "0.8", "0.9", "1.0"]
        );
        assert_eq!(labels(0.0, 1.0), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
    }

    #[test]
    fn other_ranges_get_steps_of_one_two_two_and_a_half_or_five() {
        assert_eq!(
            labels(0.0, 12.0),
            ["0.0", "2.5", "5.0", "7.5", "10.0", "12.5"]
        );
        assert_eq!(labels(-3.0, 7.0), ["-4", "-2", "0", "2", "4", "6", "8"]);
        assert_eq!(
            labels(5.0, 5.0),
            ["4.4", "4.6", "4.8", "5.0", "5.2", "5.4", "5.6"]
        );
        assert_eq!(
            labels(0.0, 1.052),
            ["0.00", "0.25", "0.50", "0.75", "1.00", "1.25"]
        );
    }
}
