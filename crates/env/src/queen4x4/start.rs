//! Start positions: the study's generator, its exact distribution, and parsing of
//! user-given starts such as "Qa1 Ka2 / Kc2".

use rand::{Rng, RngExt};
use thiserror::Error;

use super::position::Position;
use super::square::{SIDE, Square};

/// Squares where the white king and the queen start: files b-d, ranks 1-3.
fn white_start_squares() -> impl Iterator<Item = Square> + Clone {
    (1..SIDE).flat_map(|row| (1..SIDE).map(move |col| Square::at(row, col).expect("on board")))
}

/// Squares where the black king may start against this white king and queen: free,
/// not next to the white king, and not controlled by the queen.
fn black_start_squares(white_king: Square, queen: Square) -> Vec<Square> {
    let probe = Position {
        white_king,
        queen,
        black_king: white_king,
    };
    let control = probe.queen_control();
    Square::all()
        .filter(|&sq| sq != white_king && !sq.touches(white_king) && control & sq.bit() == 0)
        .collect()
}

/// Every start position with its exact probability under the study's generator.
///
/// White king and queen are drawn uniformly from the 72 ordered pairs of distinct
/// squares on files b-d x ranks 1-3; a pair that leaves the black king no square is
/// redrawn, so the surviving pairs are equally likely; the black king is then
/// uniform over its allowed squares.
pub fn start_distribution() -> Vec<(Position, f64)> {
    let pairs: Vec<(Square, Square, Vec<Square>)> = white_start_squares()
        .flat_map(|k| white_start_squares().map(move |q| (k, q)))
        .filter(|(k, q)| k != q)
        .map(|(k, q)| (k, q, black_start_squares(k, q)))
        .filter(|(_, _, blacks)| !blacks.is_empty())
        .collect();
    let pair_probability = 1.0 / pairs.len() as f64;
    pairs
        .into_iter()
        .flat_map(|(k, q, blacks)| {
            let p = pair_probability / blacks.len() as f64;
            blacks.into_iter().map(move |b| {
                (
                    Position {
                        white_king: k,
                        queen: q,
                        black_king: b,
                    },
                    p,
                )
            })
        })
        .collect()
}

/// Draws a start position with the study's generator (see [`start_distribution`]).
pub fn random_start(rng: &mut (impl Rng + ?Sized)) -> Position {
    let squares: Vec<Square> = white_start_squares().collect();
    loop {
        let white_king = squares[rng.random_range(0..squares.len())];
        let queen = squares[rng.random_range(0..squares.len())];
        if white_king == queen {
            continue;
        }
        let blacks = black_start_squares(white_king, queen);
        if blacks.is_empty() {
            continue;
        }
        let black_king = blacks[rng.random_range(0..blacks.len())];
        return Position {
            white_king,
            queen,
            black_king,
        };
    }
}

/// Why a start specification was rejected.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SpecError {
    /// The text is not "<white pieces> / <black king>".
    #[error("start '{0}' must look like \"Qa1 Ka2 / Kc2\" (white king and queen, '/', black king)")]
    Shape(String),
    /// A piece token is not K or Q followed by a square a1..d4.
    #[error("'{0}' is not a piece on the 4x4 board (expected K or Q and a square a1..d4)")]
    Token(String),
    /// Two pieces share a square, or a piece is missing or repeated.
    #[error(
        "start '{0}' needs exactly one white king, one queen and one black king on distinct squares"
    )]
    Pieces(String),
    /// The position cannot arise with white to move (black in check or kings adjacent).
    #[error("start '{0}' is illegal with white to move: {1}")]
    Illegal(String, &'static str),
}

/// Parses a start such as "Qa1 Ka2 / Kc2": white pieces before '/', black king after.
pub fn parse_start(spec: &str) -> Result<Position, SpecError> {
    let (white, black) = spec
        .split_once('/')
        .ok_or_else(|| SpecError::Shape(spec.to_string()))?;
    let token = |t: &str| -> Result<(char, Square), SpecError> {
        let mut chars = t.chars();
        let piece = chars.next().filter(|c| *c == 'K' || *c == 'Q');
        match (piece, Square::parse(chars.as_str())) {
            (Some(p), Some(sq)) => Ok((p, sq)),
            _ => Err(SpecError::Token(t.to_string())),
        }
    };
    let whites = white
        .split_whitespace()
        .map(token)
        .collect::<Result<Vec<_>, _>>()?;
    let blacks = black
        .split_whitespace()
        .map(token)
        .collect::<Result<Vec<_>, _>>()?;
    let find = |c: char| {
        let mut found = whites.iter().filter(|(p, _)| *p == c).map(|(_, sq)| *sq);
        match (found.next(), found.next()) {
            (Some(sq), None) => Some(sq),
            _ => None,
        }
    };
    let pieces = || SpecError::Pieces(spec.to_string());
    let (white_king, queen) = (find('K').ok_or_else(pieces)?, find('Q').ok_or_else(pieces)?);
    let black_king = match blacks.as_slice() {
        [('K', sq)] if whites.len() == 2 => *sq,
        _ => return Err(pieces()),
    };
    let position = Position::new(white_king, queen, black_king).ok_or_else(pieces)?;
    if white_king.touches(black_king) {
        return Err(SpecError::Illegal(spec.to_string(), "the kings touch"));
    }
    if position.black_in_check() {
        return Err(SpecError::Illegal(spec.to_string(), "black is in check"));
    }
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn demonstration_start_parses() {
        let p = parse_start("Qa1 Ka2 / Kc2").unwrap();
        assert_eq!(p.queen, Square::parse("a1").unwrap());
        assert_eq!(p.white_king, Square::parse("a2").unwrap());
        assert_eq!(p.black_king, Square::parse("c2").unwrap());
    }

    #[test]
    fn malformed_starts_name_the_problem() {
        assert!(matches!(
            parse_start("Qa1 Ka2 Kc2"),
            Err(SpecError::Shape(_))
        ));
        assert!(matches!(
            parse_start("Qa1 Ke2 / Kc2"),
            Err(SpecError::Token(_))
        ));
        assert!(matches!(
            parse_start("Qa1 Qa2 / Kc2"),
            Err(SpecError::Pieces(_))
        ));
        assert!(matches!(
            parse_start("Qa1 Ka1 / Kc2"),
            Err(SpecError::Pieces(_))
        ));
        assert!(matches!(
            parse_start("Qa1 Kb2 / Kc2"),
            Err(SpecError::Illegal(_, _))
        ));
        assert!(matches!(
            parse_start("Qc1 Ka4 / Kc3"),
            Err(SpecError::Illegal(_, _))
        ));
    }

    #[test]
    fn distribution_sums_to_one_and_only_holds_generator_positions() {
        let dist = start_distribution();
        let total: f64 = dist.iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
        for (pos, _) in &dist {
            assert!(!pos.black_in_check());
            assert!(!pos.white_king.touches(pos.black_king));
            assert!(pos.white_king.row() >= 1 && pos.white_king.col() >= 1);
            assert!(pos.queen.row() >= 1 && pos.queen.col() >= 1);
        }
    }

    #[test]
    fn distribution_has_71_equally_likely_pairs_and_233_starts() {
        // Counted independently (by hand-written script over the rules above): of the
        // 72 ordered (white king, queen) pairs, 71 leave the black king a square; the
        // 233 starts split 33 / 6 / 15 / 13 / 4 pairs with 2 / 3 / 4 / 5 / 6 squares.
        let dist = start_distribution();
        assert_eq!(dist.len(), 233);
        let mut pairs: std::collections::HashMap<(Square, Square), (usize, f64)> =
            std::collections::HashMap::new();
        for (pos, p) in &dist {
            let entry = pairs.entry((pos.white_king, pos.queen)).or_default();
            entry.0 += 1;
            entry.1 += p;
        }
        assert_eq!(pairs.len(), 71);
        let mut by_squares = [0usize; 7];
        for (squares, weight) in pairs.values() {
            by_squares[*squares] += 1;
            // Each surviving pair is equally likely, whatever its number of squares
            // (a sampler uniform over the 233 starts fails here).
            assert!((weight - 1.0 / 71.0).abs() < 1e-12, "{weight}");
        }
        assert_eq!(by_squares, [0, 0, 33, 6, 15, 13, 4]);
    }

    #[test]
    fn random_starts_follow_the_exact_distribution() {
        let dist = start_distribution();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let draws = 200_000;
        let mut counts = std::collections::HashMap::new();
        for _ in 0..draws {
            *counts.entry(random_start(&mut rng)).or_insert(0usize) += 1;
        }
        assert_eq!(counts.len(), dist.len());
        for (pos, p) in dist {
            let freq = counts[&pos] as f64 / draws as f64;
            let sigma = (p * (1.0 - p) / draws as f64).sqrt();
            assert!(
                (freq - p).abs() < 5.0 * sigma + 1e-9,
                "{pos}: {freq} vs {p}"
            );
        }
    }
}
