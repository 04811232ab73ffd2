//! `burnmate fit`'s arguments: match directories and the ratings to give opponents.

use std::path::PathBuf;

use anyhow::Result;
use burnmate::tools::match_play::{refit, report};

/// Match directories and the ratings that replace their opponents' own.
#[derive(clap::Args, Debug)]
pub struct FitArgs {
    /// Match directories (`burnmate match --out`), all of the same player.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// An opponent's rating for this fit, KEY=ELO: KEY its name in the match report
    /// or its UCI_Elo label, e.g. 2100=2327 (repeatable).
    #[arg(long = "rating", value_name = "KEY=ELO")]
    ratings: Vec<String>,
}

impl FitArgs {
    /// Fits and prints the report as a match prints its own.
    pub fn run(self) -> Result<()> {
        let given: Vec<refit::GivenRating> = self
            .ratings
            .iter()
            .map(|r| refit::GivenRating::parse(r))
            .collect::<Result<_>>()?;
        let summary = refit::fit_matches(&self.dirs, &given)?;
        let games: u64 = summary
            .opponents
            .iter()
            .map(|o| o.wins + o.draws + o.losses)
            .sum();
        print!("{}", report(&summary, games as usize));
        Ok(())
    }
}
