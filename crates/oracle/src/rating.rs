//! Elo from game results: the difference with its 95 % interval (the logistic model
//! of cutechess-cli and fastchess), a sequential probability ratio test (fishtest's
//! generalised SPRT on the trinomial win/draw/loss model), and one Elo fitted to
//! results against several rated opponents (a ladder).
//!
//! With `s` the mean score of `n` games and `σ²` the per-game variance of the
//! results (1, ½, 0 around `s`):
//! ```text
//! elo(s)  = -400 log10(1/s - 1)
//! 95 %    = [elo(s - z σ/√n), elo(s + z σ/√n)],     z = 1.959964
//! ```
//! The SPRT compares the likeliest win/draw/loss probabilities whose expected score is
//! `s0 = score(elo0)` with those whose expected score is `s1 = score(elo1)`
//! (Van den Bergh's maximum-likelihood GSPRT, as fishtest computes it):
//! ```text
//! p̂      = observed frequencies of (loss, draw, win), a count of 0 read as 0.001
//! q_h,i  = p̂_i / (1 + λ_h (a_i - s_h)),  a = (0, ½, 1),  λ_h: Σ q_h,i a_i = s_h
//! LLR    = n Σ_i p̂_i ln(q_1,i / q_0,i)
//! ```
//! Unlike the normal approximation with the sample variance (0 when every game has
//! the same result), this decides a sweep: 23 straight wins accept H1 of `0,50`.
//! The SPRT accepts H1 (elo >= elo1) when LLR >= ln((1-β)/α), H0 (elo <= elo0) when
//! LLR <= ln(β/(1-α)).

/// The 97.5 % quantile of the standard normal distribution.
const Z_95: f64 = 1.959_963_984_540_054;

/// Wins, draws and losses of one player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Tally {
    /// Games played.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Mean score a game (win 1, draw ½, loss 0); 0.5 with no games.
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
    }

    /// Variance of one game's result around [`Tally::score`].
    fn variance(&self) -> f64 {
        let s = self.score();
        let n = self.games().max(1) as f64;
        (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n
    }
}

/// An Elo difference with its 95 % interval (bounds may be infinite: a score of 0
/// or 1 has no finite Elo).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The estimate.
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub low: f64,
    /// Upper end of the 95 % interval.
    pub high: f64,
}

impl EloEstimate {
    /// Half the interval's width (cutechess's "+/-").
    pub fn margin(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// The Elo difference a mean score implies.
pub fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score of a player `elo` points stronger.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of `tally`'s player over its opponent, with its 95 % interval.
pub fn elo_estimate(tally: Tally) -> EloEstimate {
    let s = tally.score();
    let margin = Z_95 * (tally.variance() / tally.games().max(1) as f64).sqrt();
    EloEstimate {
        elo: elo_of_score(s),
        low: elo_of_score((s - margin).max(0.0)),
        high: elo_of_score((s + margin).min(1.0)),
    }
}

/// A sequential probability ratio test of H0 `elo <= elo0` against H1 `elo >= elo1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo of H0.
    pub elo0: f64,
    /// Elo of H1.
    pub elo1: f64,
    /// False-positive rate (accepting H1 when H0 holds).
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

/// What an SPRT says after some games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// H0 accepted: the player is not `elo1` stronger.
    H0,
    /// H1 accepted: the player is at least `elo1` stronger.
    H1,
    /// Play on.
    Continue,
}

impl Sprt {
    /// The test of `elo0` against `elo1` at α = β = 0.05; `elo0 < elo1` required.
    pub fn new(elo0: f64, elo1: f64) -> Result<Sprt, String> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(format!(
                "--sprt needs elo0 < elo1 (two finite numbers), got {elo0},{elo1}"
            ));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        })
    }

    /// The log-likelihood ratio of H1 over H0 given `tally` (0 before any game).
    pub fn llr(&self, tally: Tally) -> f64 {
        if tally.games() == 0 {
            return 0.0;
        }
        let counts = [tally.losses, tally.draws, tally.wins]
            .map(|c| if c == 0 { ZERO_COUNT } else { c as f64 });
        let total: f64 = counts.iter().sum();
        let observed = counts.map(|c| c / total);
        let h0 = likeliest_with_score(observed, score_of_elo(self.elo0));
        let h1 = likeliest_with_score(observed, score_of_elo(self.elo1));
        total
            * (0..3)
                .map(|i| observed[i] * (h1[i] / h0[i]).ln())
                .sum::<f64>()
    }

    /// The LLR's bounds: accept H0 at or below the first, H1 at or above the second.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision after `tally`.
    pub fn decide(&self, tally: Tally) -> SprtDecision {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::H1
        } else if llr <= lower {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        }
    }
}

/// The count an outcome that never happened is read as (fishtest's regularisation):
/// the likeliest model of a sweep then still gives the other outcomes a little mass.
const ZERO_COUNT: f64 = 1e-3;

/// The points of a loss, a draw and a win.
const POINTS: [f64; 3] = [0.0, 0.5, 1.0];

/// The (loss, draw, win) probabilities nearest `observed` in likelihood whose
/// expected score is `score`: `observed_i / (1 + λ (points_i - score))`, with `λ`
/// the root of `Σ observed_i (points_i - score) / (1 + λ (points_i - score)) = 0`
/// (decreasing in `λ` on `(-1/(1-score), 1/score)`; found by bisection).
fn likeliest_with_score(observed: [f64; 3], score: f64) -> [f64; 3] {
    let weight = |lambda: f64, i: usize| 1.0 + lambda * (POINTS[i] - score);
    let slope = |lambda: f64| -> f64 {
        (0..3)
            .map(|i| observed[i] * (POINTS[i] - score) / weight(lambda, i))
            .sum()
    };
    let (mut low, mut high) = (-1.0 / (1.0 - score), 1.0 / score);
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if slope(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    let lambda = 0.5 * (low + high);
    [0, 1, 2].map(|i| observed[i] / weight(lambda, i))
}

/// The maximum-likelihood Elo of a player who scored `tally` against opponents of
/// the given Elo (a ladder), with a 95 % interval from the observed per-game
/// variances (sandwich estimate); `None` when it is unbounded (every game won, or
/// every game lost).
pub fn ladder_fit(levels: &[(f64, Tally)]) -> Option<EloEstimate> {
    let expected_points = |elo: f64| -> f64 {
        levels
            .iter()
            .map(|(rating, t)| t.games() as f64 * score_of_elo(elo - rating))
            .sum()
    };
    let points: f64 = levels
        .iter()
        .map(|(_, t)| t.wins as f64 + 0.5 * t.draws as f64)
        .sum();
    let games: f64 = levels.iter().map(|(_, t)| t.games() as f64).sum();
    if games == 0.0 || points == 0.0 || points == games {
        return None;
    }
    // Expected points grow with the player's Elo: bisect for the observed points.
    let (mut low, mut high) = (-10_000.0, 10_000.0);
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if expected_points(mid) < points {
            low = mid;
        } else {
            high = mid;
        }
    }
    let elo = 0.5 * (low + high);
    let slope = std::f64::consts::LN_10 / 400.0;
    let information: f64 = levels
        .iter()
        .map(|(rating, t)| {
            let e = score_of_elo(elo - rating);
            t.games() as f64 * slope * e * (1.0 - e)
        })
        .sum();
    let spread: f64 = levels
        .iter()
        .map(|(_, t)| t.games() as f64 * t.variance())
        .sum();
    let margin = Z_95 * spread.sqrt() / information;
    Some(EloEstimate {
        elo,
        low: elo - margin,
        high: elo + margin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u64, draws: u64, losses: u64) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn elo_and_interval_of_pinned_counts_match_cutechess() {
        // cutechess-cli printed "99 - 97 - 104 [0.503] 300  Elo difference: 2.3 +/- 31.8"
        // and "45 - 37 - 18 [0.540] 100  Elo difference: 27.9 +/- 62.4" (wins -
        // losses - draws); its margins use an approximate inverse erf (z = 1.9572),
        // the exact z = 1.95996 widens them to 31.87 and 62.50.
        let e = elo_estimate(tally(99, 104, 97));
        assert!((e.elo - 2.3163).abs() < 1e-4, "{e:?}");
        assert!((e.margin() - 31.8676).abs() < 1e-4, "{e:?}");
        let e = elo_estimate(tally(45, 18, 37));
        assert!((e.elo - 27.8544).abs() < 1e-4, "{e:?}");
        assert!((e.margin() - 62.4966).abs() < 1e-4, "{e:?}");
        let e = elo_estimate(tally(60, 20, 20));
        assert!((e.elo - 147.1907).abs() < 1e-4, "{e:?}");
        assert!((e.low - 86.2250).abs() < 1e-4, "{e:?}");
        assert!((e.high - 218.2518).abs() < 1e-4, "{e:?}");
    }

    #[test]
    fn a_perfect_score_has_an_unbounded_elo() {
        let e = elo_estimate(tally(10, 0, 0));
        assert_eq!(e.elo, f64::INFINITY);
        let e = elo_estimate(tally(0, 0, 10));
        assert_eq!(e.elo, f64::NEG_INFINITY);
    }

    #[test]
    fn sprt_llr_of_pinned_counts_and_its_bounds() {
        let sprt = Sprt::new(0.0, 50.0).unwrap();
        assert!((sprt.llr(tally(60, 20, 20)) - 5.955_639).abs() < 1e-5);
        assert!((sprt.llr(tally(20, 20, 60)) + 8.407_855).abs() < 1e-5);
        assert_eq!(sprt.llr(tally(0, 0, 0)), 0.0);
        let (lower, upper) = sprt.bounds();
        assert!((lower + 2.944_439).abs() < 1e-6 && (upper - 2.944_439).abs() < 1e-6);
        let close = Sprt::new(0.0, 10.0).unwrap();
        assert!((close.llr(tally(30, 40, 30)) + 0.069_013).abs() < 1e-5);
        assert!(Sprt::new(5.0, 5.0).is_err());
    }

    #[test]
    fn sprt_llr_matches_a_published_gsprt_example() {
        // jw1912/SPRT's README: `--wins 4307 --losses 4063 --draws 8620 --elo0 0
        // --elo1 3 --gsprt` prints "LLR: 2.99" (the normal approximation: 2.47).
        let sprt = Sprt::new(0.0, 3.0).unwrap();
        assert!((sprt.llr(tally(4307, 8620, 4063)) - 2.991_289).abs() < 1e-5);
    }

    /// The first game after which `sprt` decides on the results `result(game)`.
    fn first_decision(sprt: Sprt, result: impl Fn(u64) -> char) -> Option<(u64, SprtDecision)> {
        let mut t = tally(0, 0, 0);
        for game in 1..=500 {
            match result(game) {
                'w' => t.wins += 1,
                'd' => t.draws += 1,
                _ => t.losses += 1,
            }
            let decision = sprt.decide(t);
            if decision != SprtDecision::Continue {
                return Some((game, decision));
            }
        }
        None
    }

    #[test]
    fn sprt_decides_sweeps() {
        let sprt = Sprt::new(0.0, 50.0).unwrap();
        // Each win adds 0.13357: 22 give 2.939, 23 give 3.073.
        assert!((sprt.llr(tally(1, 0, 0)) - 0.133_571).abs() < 1e-5);
        assert_eq!(first_decision(sprt, |_| 'w'), Some((23, SprtDecision::H1)));
        assert_eq!(first_decision(sprt, |_| 'l'), Some((20, SprtDecision::H0)));
        // Straight losses against -10,10 decide H0 at game 52 (-2.993), and a draw
        // after 90 losses moves the LLR a little, not by hundreds.
        let wide = Sprt::new(-10.0, 10.0).unwrap();
        assert_eq!(first_decision(wide, |_| 'l'), Some((52, SprtDecision::H0)));
        assert!((wide.llr(tally(0, 0, 90)) + 5.180_816).abs() < 1e-5);
        assert!((wide.llr(tally(0, 1, 90)) + 5.238_322).abs() < 1e-5);
    }

    #[test]
    fn sprt_decides_pinned_sequences_at_the_first_game_past_a_bound() {
        let sprt = Sprt::new(0.0, 50.0).unwrap();
        // Win, draw, loss, then wins: H1 at game 25 (LLR 3.038).
        let wins = |game| match game {
            2 => 'd',
            3 => 'l',
            _ => 'w',
        };
        assert_eq!(first_decision(sprt, wins), Some((25, SprtDecision::H1)));
        // Mirrored: H0 sooner (H0 at 0 Elo lies nearer a 0.5 score than H1).
        let losses = |game| match game {
            2 => 'd',
            3 => 'w',
            _ => 'l',
        };
        assert_eq!(first_decision(sprt, losses), Some((22, SprtDecision::H0)));
    }

    /// A match of random games, each a win, draw or loss with the probabilities of a
    /// player `elo` stronger at a 40 % draw rate, played until `sprt` decides.
    fn simulated_match(sprt: Sprt, elo: f64, seed: u64) -> (u64, SprtDecision) {
        let draw = 0.4;
        let win = score_of_elo(elo) - draw / 2.0;
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut t = tally(0, 0, 0);
        loop {
            // xorshift64*: a uniform number in [0, 1).
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let u = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
            if u < win {
                t.wins += 1;
            } else if u < win + draw {
                t.draws += 1;
            } else {
                t.losses += 1;
            }
            let decision = sprt.decide(t);
            if decision != SprtDecision::Continue {
                return (t.games(), decision);
            }
        }
    }

    #[test]
    fn simulated_matches_keep_the_error_rates_and_stop_in_expected_time() {
        let sprt = Sprt::new(0.0, 50.0).unwrap();
        let runs = 400;
        for (elo, wanted) in [(50.0, SprtDecision::H1), (0.0, SprtDecision::H0)] {
            let results: Vec<(u64, SprtDecision)> = (0..runs)
                .map(|seed| simulated_match(sprt, elo, seed + 1))
                .collect();
            let right = results.iter().filter(|(_, d)| *d == wanted).count();
            let mean_games = results.iter().map(|(n, _)| *n as f64).sum::<f64>() / runs as f64;
            // α = β = 0.05: at least 90 % right in 400 runs (3 standard errors).
            assert!(
                right as f64 >= 0.90 * runs as f64,
                "{elo}: {right} of {runs}"
            );
            // The expected stopping time at either hypothesis (Wald: the bound over
            // the per-game drift of the LLR): an independent simulation of the same
            // model gave 148 games at H1 and 171 at H0 over 200 matches each.
            assert!((110.0..230.0).contains(&mean_games), "{elo}: {mean_games}");
        }
    }

    #[test]
    fn ladder_fit_of_one_level_is_that_level_plus_the_match_elo() {
        let fit = ladder_fit(&[(1500.0, tally(60, 20, 20))]).unwrap();
        assert!((fit.elo - 1647.1907).abs() < 1e-3, "{fit:?}");
        // Delta method: 1.96 * 0.04 / (ln 10 / 400 * 0.21) = 64.85.
        assert!((fit.margin() - 64.8535).abs() < 1e-3, "{fit:?}");
    }

    #[test]
    fn ladder_fit_between_two_levels_is_their_midpoint_when_scores_mirror() {
        let fit = ladder_fit(&[(1400.0, tally(7, 0, 3)), (1600.0, tally(3, 0, 7))]).unwrap();
        assert!((fit.elo - 1500.0).abs() < 1e-6, "{fit:?}");
        assert!(ladder_fit(&[(1400.0, tally(5, 0, 0))]).is_none());
    }
}
