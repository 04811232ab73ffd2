//! A UCI engine as the side under test: `burnmate match uci:stockfish@2100 --uci-elo
//! 1800` plays Stockfish at `UCI_Elo` 2100 against itself at 1800 with the same
//! `--go` limit, so the rungs of a label ladder can be re-rated from their games
//! against each other (and `burnmate fit` can then re-fit a run's ladder games on the
//! measured ratings).

use std::path::Path;

use anyhow::{Result, bail};

use crate::tools::match_play::{Opponent, engine_opponents};

/// The prefix that names a UCI engine where a run is expected.
pub const UCI_PREFIX: &str = "uci:";

/// The engine `run` names, `uci:COMMAND` (full strength) or `uci:COMMAND@ELO` (at
/// `UCI_Elo` ELO), or `None` where `run` names a run; a malformed name is a one-line
/// error.
pub fn parse(run: &Path) -> Result<Option<Opponent>> {
    let Some(spec) = run.to_str().and_then(|s| s.strip_prefix(UCI_PREFIX)) else {
        return Ok(None);
    };
    let (command, elo) = match spec.split_once('@') {
        Some((command, elo)) => match elo.parse::<u32>() {
            Ok(elo) => (command, vec![elo]),
            Err(_) => bail!("{}: '{elo}' is not a UCI_Elo rating", run.display()),
        },
        None => (spec, Vec::new()),
    };
    if command.is_empty() {
        bail!(
            "{}: name the engine, e.g. {UCI_PREFIX}stockfish@2100",
            run.display()
        );
    }
    Ok(engine_opponents(command, &elo, None).pop())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(run: &str) -> Vec<(String, String)> {
        match parse(Path::new(run)).unwrap() {
            Some(Opponent::Engine { options, .. }) => options,
            other => panic!("{run} parsed as {other:?}"),
        }
    }

    #[test]
    fn an_engine_name_with_a_rating_limits_its_strength() {
        assert_eq!(
            options("uci:stockfish@2100"),
            vec![
                ("UCI_LimitStrength".to_string(), "true".to_string()),
                ("UCI_Elo".to_string(), "2100".to_string())
            ]
        );
        assert!(options("uci:/usr/games/stockfish").is_empty());
        let engine = parse(Path::new("uci:stockfish@1800")).unwrap().unwrap();
        assert_eq!(engine.label(), "stockfish (UCI_Elo 1800)");
    }

    #[test]
    fn runs_are_not_engines_and_bad_names_are_refused() {
        assert_eq!(parse(Path::new("runs/chess")).unwrap(), None);
        assert_eq!(parse(Path::new("builtin:net")).unwrap(), None);
        let err = parse(Path::new("uci:stockfish@strong")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "uci:stockfish@strong: 'strong' is not a UCI_Elo rating"
        );
        assert!(parse(Path::new("uci:@2100")).is_err());
    }
}
