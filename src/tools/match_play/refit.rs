//! `burnmate fit DIR...`: one rating fitted to every game of finished matches of one
//! player, each opponent at the rating its match gave it or at one the user gives
//! (`--rating KEY=ELO`), e.g. a label ladder's rungs at the ratings measured from
//! their games against each other (`burnmate match uci:stockfish@2100 --uci-elo
//! 1800`) instead of their labels. It reads the games (`results.tsv`), not the
//! summaries, and writes nothing (but cuts off a line a killed match left
//! unfinished, as resuming it would).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use burnmate_oracle::rating::ladder_fit;

use crate::tools::match_play::record::read_rows;
use crate::tools::match_play::{
    MatchSettings, MatchSummary, Opponent, SETTINGS_FILE, opponent_result, tally, triple,
};

/// A rating the user gives an opponent: `KEY=ELO`, KEY its name in reports or its
/// `UCI_Elo` label (`2100=2327` re-rates every Stockfish rung labelled 2100).
#[derive(Clone, Debug, PartialEq)]
pub struct GivenRating {
    key: String,
    rating: f64,
}

impl GivenRating {
    /// Parses `KEY=ELO`; anything else is a one-line error.
    pub fn parse(text: &str) -> Result<GivenRating> {
        let parsed = text.rsplit_once('=').and_then(|(key, elo)| {
            let rating = elo.trim().parse::<f64>().ok().filter(|r| r.is_finite())?;
            Some(GivenRating {
                key: key.trim().to_string(),
                rating,
            })
        });
        match parsed {
            Some(given) if !given.key.is_empty() => Ok(given),
            _ => bail!("--rating '{text}' is not KEY=ELO (e.g. 2100=2327)"),
        }
    }

    /// Whether it rates `opponent`.
    fn names(&self, opponent: &Opponent) -> bool {
        opponent.label() == self.key
            || matches!(opponent, Opponent::Engine { options, .. }
                if options.iter().any(|(name, value)| name == "UCI_Elo" && *value == self.key))
    }
}

/// The fit over every game in the match directories `dirs` (all of one player),
/// each opponent at its `given` rating, else at its match's.
pub fn fit_matches(dirs: &[PathBuf], given: &[GivenRating]) -> Result<MatchSummary> {
    let Some(first) = dirs.first() else {
        bail!("name at least one match directory");
    };
    let mut player: Option<String> = None;
    let mut scale = None;
    let mut opponents = Vec::new();
    let mut levels = Vec::new();
    let mut used = vec![false; given.len()];
    for dir in dirs {
        let path = dir.join(SETTINGS_FILE);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "{} holds no match (cannot read {})",
                dir.display(),
                path.display()
            )
        })?;
        let settings: MatchSettings = serde_json::from_str(&text)
            .with_context(|| format!("{} is damaged", path.display()))?;
        let label = settings.run_label();
        match &player {
            Some(first_label) if *first_label != label => bail!(
                "{} holds games of {label}, {} of {first_label}: a fit rates one player",
                dir.display(),
                first.display()
            ),
            _ => player = Some(label),
        }
        scale.get_or_insert(settings.scale.clone());
        let rows = read_rows(dir)?;
        for (i, opponent) in settings.opponents.iter().enumerate() {
            let t = tally(&settings, &rows, i);
            let mut name = opponent.label();
            let rating = match given.iter().position(|g| g.names(opponent)) {
                Some(k) => {
                    used[k] = true;
                    name.push_str(&format!(" rated {}", given[k].rating));
                    Some(given[k].rating)
                }
                None => match opponent {
                    Opponent::Engine { rating, .. } => *rating,
                    Opponent::Run { .. } => None,
                },
            };
            let Some(rating) = rating else {
                bail!(
                    "{} has no rating in {}; give one with --rating '{}=ELO'",
                    opponent.label(),
                    dir.display(),
                    opponent.label()
                );
            };
            levels.push((rating, t));
            opponents.push(opponent_result(name, Some(rating), t));
        }
    }
    if let Some(k) = used.iter().position(|u| !u) {
        bail!(
            "--rating {}={} names no opponent of these matches",
            given[k].key,
            given[k].rating
        );
    }
    let scale = if given.is_empty() {
        scale
            .flatten()
            .unwrap_or_else(|| "the engine's UCI_Elo scale".into())
    } else {
        "the ratings given with --rating".into()
    };
    Ok(MatchSummary {
        run: player.expect("one directory at least"),
        scale,
        opponents,
        rating: ladder_fit(&levels).map(triple),
        sprt: None,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use burnmate_oracle::rating::Tally;

    use super::*;
    use crate::tools::match_play::engine_opponents;

    /// A match directory of a run against Stockfish at 1800 and 2100, four games
    /// each: `results` the four results of each rung's games, the run white in
    /// games 0 and 2.
    fn ladder_match(name: &str, results: [&str; 8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("burnmate-fit-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let settings = MatchSettings {
            run: "runs/chess".into(),
            opponents: engine_opponents("stockfish", &[1800, 2100], None),
            limit: "nodes 50000".into(),
            games: 4,
            openings: None,
            max_plies: 400,
            plies: 1,
            nodes: None,
            sprt: None,
            with: Vec::new(),
            without: Vec::new(),
            generation: None,
            threads: 1,
            run_identity: None,
            opponent_identities: None,
            time_control: None,
            scale: None,
        };
        std::fs::write(
            dir.join(SETTINGS_FILE),
            serde_json::to_string(&settings).unwrap(),
        )
        .unwrap();
        let log: String = results
            .iter()
            .enumerate()
            .map(|(game, result)| format!("{game}\t{result}\tadjudicated\te2e4\n"))
            .collect();
        std::fs::write(dir.join("results.tsv"), log).unwrap();
        dir
    }

    fn tally(wins: u64, draws: u64, losses: u64) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn given_ratings_replace_the_labels_in_the_fit_over_every_game() {
        // Against 1800: won as white, won as black, drawn, lost as black.
        // Against 2100: drawn, lost as black, lost as white, won as black.
        let dir = ladder_match(
            "given",
            [
                "1-0", "0-1", "1/2-1/2", "1-0", "1/2-1/2", "1-0", "0-1", "0-1",
            ],
        );
        let labels = fit_matches(std::slice::from_ref(&dir), &[]).unwrap();
        let (low, high) = (tally(2, 1, 1), tally(1, 1, 2));
        assert_eq!(
            labels.rating,
            ladder_fit(&[(1800.0, low), (2100.0, high)]).map(triple)
        );
        assert_eq!(labels.scale, "the engine's UCI_Elo scale");
        let given = [GivenRating::parse("2100=2327").unwrap()];
        let refit = fit_matches(std::slice::from_ref(&dir), &given).unwrap();
        assert_eq!(
            refit.rating,
            ladder_fit(&[(1800.0, low), (2327.0, high)]).map(triple)
        );
        assert_eq!(refit.opponents[1].rating, Some(2327.0));
        assert_eq!(
            refit.opponents[1].opponent,
            "stockfish (UCI_Elo 2100) rated 2327"
        );
        assert_eq!((refit.opponents[1].wins, refit.opponents[1].losses), (1, 2));
        assert_eq!(refit.scale, "the ratings given with --rating");
        // Two directories of the same player fit as one ladder of four rungs.
        let twice = fit_matches(&[dir.clone(), dir.clone()], &given).unwrap();
        assert_eq!(twice.opponents.len(), 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_rating_that_names_no_opponent_or_a_directory_without_a_match_is_refused() {
        let dir = ladder_match("refused", ["1-0"; 8]);
        let typo = [GivenRating::parse("2200=2400").unwrap()];
        let err = fit_matches(std::slice::from_ref(&dir), &typo).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--rating 2200=2400 names no opponent of these matches"
        );
        let empty = Path::new("/nonexistent-burnmate-match").to_path_buf();
        let err = fit_matches(&[empty], &[]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("/nonexistent-burnmate-match holds no match")
        );
        assert!(GivenRating::parse("2100").is_err());
        assert!(GivenRating::parse("=2100").is_err());
        assert!(GivenRating::parse("2100=strong").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
