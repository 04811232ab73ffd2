//! The 8x8 endgames of the Boar (2022) study, three where the defender keeps a
//! piece (KQKR, KRKB, KRKN) and four with pawns (KPK, KQKP, KRKP, KPKP), on
//! shakmaty's rules: which material, the study's start-position generator, and
//! validation of user-given FENs.

use rand::{Rng, RngExt};
use shakmaty::fen::Fen;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Role,
    Setup, Square,
};
use thiserror::Error;

/// Which endgame: white king and pieces against the black king (alone, or with one
/// piece in KQKR and KRKB).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum Endgame {
    /// King and queen against king.
    Kqk,
    /// King and rook against king.
    Krk,
    /// King and two bishops against king.
    Kbbk,
    /// King, bishop and knight against king (not in the study; the hardest basic mate).
    Kbnk,
    /// King and queen against king and rook (not in the study; mate in 35 at most).
    Kqkr,
    /// King and rook against king and bishop (not in the study; mostly drawn).
    Krkb,
    /// King and rook against king and knight (not in the study; won where the
    /// knight strays from its king).
    Krkn,
    /// King and pawn against king: won where the pawn promotes and the queen mates.
    Kpk,
    /// King and queen against king and pawn (won but for a pawn on the seventh
    /// rank backed by its king).
    Kqkp,
    /// King and rook against king and pawn (the pawn's side wins some: the longest
    /// four-piece mate is its).
    Krkp,
    /// King and pawn against king and pawn.
    Kpkp,
}

impl Endgame {
    /// Every pawnless endgame: the study's three, in its order, then KBNK, KQKR, KRKB
    /// and KRKN.
    pub const ALL: [Endgame; 7] = [
        Endgame::Kqk,
        Endgame::Krk,
        Endgame::Kbbk,
        Endgame::Kbnk,
        Endgame::Kqkr,
        Endgame::Krkb,
        Endgame::Krkn,
    ];

    /// The endgames with pawns (their mates come after a promotion, so their
    /// training starts are not grown backwards from mate).
    pub const WITH_PAWNS: [Endgame; 4] =
        [Endgame::Kpk, Endgame::Kqkp, Endgame::Krkp, Endgame::Kpkp];

    /// Whether a pawn is on the board.
    pub fn has_pawns(self) -> bool {
        self.other_pieces().any(|(_, role)| role == Role::Pawn)
    }

    /// Whether white, the side to mate, has a pawn to promote (KPK, KPKP).
    pub fn white_promotes(self) -> bool {
        self.pieces().contains(&Role::Pawn)
    }

    /// The ending after white's pawn becomes a queen (KPK's KQK, KPKP's KQKP); none
    /// where white has no pawn.
    pub fn promoted(self) -> Option<Endgame> {
        match self {
            Endgame::Kpk => Some(Endgame::Kqk),
            Endgame::Kpkp => Some(Endgame::Kqkp),
            _ => None,
        }
    }

    /// Whether black, the defender, has a pawn white can take (KQKP, KRKP, KPKP).
    pub fn black_has_pawn(self) -> bool {
        self.defender_pieces().contains(&Role::Pawn)
    }

    /// White's pieces besides the king.
    pub fn pieces(self) -> &'static [Role] {
        match self {
            Endgame::Kqk => &[Role::Queen],
            Endgame::Krk => &[Role::Rook],
            Endgame::Kbbk => &[Role::Bishop, Role::Bishop],
            Endgame::Kbnk => &[Role::Bishop, Role::Knight],
            Endgame::Kqkr => &[Role::Queen],
            Endgame::Krkb | Endgame::Krkn | Endgame::Krkp => &[Role::Rook],
            Endgame::Kpk | Endgame::Kpkp => &[Role::Pawn],
            Endgame::Kqkp => &[Role::Queen],
        }
    }

    /// Black's pieces besides the king (none in the lone-king mates).
    pub fn defender_pieces(self) -> &'static [Role] {
        match self {
            Endgame::Kqkr => &[Role::Rook],
            Endgame::Krkb => &[Role::Bishop],
            Endgame::Krkn => &[Role::Knight],
            Endgame::Kqkp | Endgame::Krkp | Endgame::Kpkp => &[Role::Pawn],
            _ => &[],
        }
    }

    /// Whether black has only its king (the study's mates and KBNK).
    pub fn lone_king(self) -> bool {
        self.defender_pieces().is_empty()
    }

    /// Every piece besides the kings, white's first, with its colour.
    pub fn other_pieces(self) -> impl Iterator<Item = (Color, Role)> {
        let white = self.pieces().iter().map(|&r| (Color::White, r));
        white.chain(self.defender_pieces().iter().map(|&r| (Color::Black, r)))
    }

    /// Lowercase name, e.g. "kqk".
    pub fn name(self) -> &'static str {
        match self {
            Endgame::Kqk => "kqk",
            Endgame::Krk => "krk",
            Endgame::Kbbk => "kbbk",
            Endgame::Kbnk => "kbnk",
            Endgame::Kqkr => "kqkr",
            Endgame::Krkb => "krkb",
            Endgame::Krkn => "krkn",
            Endgame::Kpk => "kpk",
            Endgame::Kqkp => "kqkp",
            Endgame::Krkp => "krkp",
            Endgame::Kpkp => "kpkp",
        }
    }

    /// Parses "kqk", "krk", "kbbk", "kbnk", "kqkr", "krkb", "krkn", "kpk", "kqkp",
    /// "krkp" or "kpkp" (any case).
    pub fn parse(name: &str) -> Option<Endgame> {
        Endgame::ALL
            .into_iter()
            .chain(Endgame::WITH_PAWNS)
            .find(|e| e.name().eq_ignore_ascii_case(name))
    }
}

impl std::str::FromStr for Endgame {
    type Err = String;
    /// As [`Endgame::parse`]; the error names the input and every endgame.
    fn from_str(name: &str) -> Result<Endgame, String> {
        Endgame::parse(name).ok_or_else(|| {
            let names: Vec<&str> = Endgame::ALL
                .iter()
                .chain(&Endgame::WITH_PAWNS)
                .map(|e| e.name())
                .collect();
            format!("unknown endgame '{name}': choose {}", names.join(", "))
        })
    }
}

impl TryFrom<String> for Endgame {
    type Error = String;
    fn try_from(name: String) -> Result<Endgame, String> {
        name.parse()
    }
}

impl From<Endgame> for &'static str {
    fn from(endgame: Endgame) -> &'static str {
        endgame.name()
    }
}

impl std::fmt::Display for Endgame {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a start position was rejected.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum StartError {
    /// Not parseable as FEN.
    #[error("'{0}' is not a FEN")]
    Syntax(String),
    /// Parseable, but not a legal chess position.
    #[error("'{0}' is not a legal position")]
    Illegal(String),
    /// Legal, but not this endgame with white to move.
    #[error(
        "'{fen}' is not {endgame} with white to move (expected white king{pieces}, black king{defenders})"
    )]
    Material {
        /// The FEN.
        fen: String,
        /// The expected endgame, upper case.
        endgame: String,
        /// The expected white pieces, e.g. " and queen".
        pieces: String,
        /// The expected black pieces, e.g. " and rook", or " alone".
        defenders: String,
    },
}

/// Parses a FEN and checks that it is a legal position of `endgame`, white to move.
pub fn parse_start(endgame: Endgame, fen: &str) -> Result<Chess, StartError> {
    let parsed: Fen = fen
        .trim()
        .parse()
        .map_err(|_| StartError::Syntax(fen.to_string()))?;
    let position: Chess = parsed
        .into_position(CastlingMode::Standard)
        .map_err(|_| StartError::Illegal(fen.to_string()))?;
    if !has_material(endgame, position.board()) || position.turn() != Color::White {
        let names = |roles: &[Role]| -> String {
            roles
                .iter()
                .map(|r| match r {
                    Role::Queen => " and queen",
                    Role::Rook => " and rook",
                    Role::Bishop => " and bishop",
                    Role::Pawn => " and pawn",
                    _ => " and knight",
                })
                .collect()
        };
        return Err(StartError::Material {
            fen: fen.to_string(),
            endgame: endgame.name().to_uppercase(),
            pieces: names(endgame.pieces()),
            defenders: if endgame.lone_king() {
                " alone".into()
            } else {
                names(endgame.defender_pieces())
            },
        });
    }
    Ok(position)
}

/// Whether `board` holds exactly this endgame's material.
pub fn has_material(endgame: Endgame, board: &Board) -> bool {
    let mut want = Board::empty();
    want.set_piece_at(
        Square::A1,
        Piece {
            color: Color::White,
            role: Role::King,
        },
    );
    want.set_piece_at(
        Square::A2,
        Piece {
            color: Color::Black,
            role: Role::King,
        },
    );
    for (i, (color, role)) in endgame.other_pieces().enumerate() {
        want.set_piece_at(Square::new(40 + i as u32), Piece { color, role });
    }
    board.material() == want.material()
}

/// Whether `board`'s material is `endgame`'s or one its captures and promotions
/// lead to (KPK's KQK, KQKP's KQK and KQKQ, KQKR's KQK ...): what its self-play
/// reaches.
pub fn within_reach(endgame: Endgame, board: &Board) -> bool {
    [Color::White, Color::Black].into_iter().all(|color| {
        let mut left: Vec<Role> = endgame
            .other_pieces()
            .filter(|&(c, _)| c == color)
            .map(|(_, role)| role)
            .collect();
        (board.by_color(color) & !board.kings())
            .into_iter()
            .all(|square| {
                let role = board.role_at(square).expect("an occupied square");
                let same = left.iter().position(|&r| r == role);
                let promoted = || {
                    (role != Role::Pawn)
                        .then(|| left.iter().position(|&r| r == Role::Pawn))
                        .flatten()
                };
                same.or_else(promoted)
                    .map(|at| left.swap_remove(at))
                    .is_some()
            })
    })
}

/// Whether black has taken one of white's pieces (white taking black's goes on).
pub fn white_lost_a_piece(endgame: Endgame, board: &Board) -> bool {
    let white_pieces = board.by_color(Color::White) & !board.kings();
    white_pieces.count() < endgame.pieces().len()
}

/// Draws a start position as the study's generator does: every piece uniformly on a
/// distinct square, no two pieces on adjacent squares, a legal position with white to
/// move (black not in check); KBBK's bishops on opposite colours (same-coloured
/// bishops cannot mate), pawns on ranks 2-7.
pub fn random_start(endgame: Endgame, rng: &mut (impl Rng + ?Sized)) -> Chess {
    loop {
        let count = 2 + endgame.other_pieces().count();
        let squares: Vec<Square> = (0..count)
            .map(|_| Square::new(rng.random_range(0..64)))
            .collect();
        let apart = squares
            .iter()
            .enumerate()
            .all(|(i, a)| squares[i + 1..].iter().all(|b| a.distance(*b) > 1));
        if !apart {
            continue;
        }
        if endgame == Endgame::Kbbk && squares[2].is_light() == squares[3].is_light() {
            continue;
        }
        let pawn_on_back_rank = squares[2..]
            .iter()
            .zip(endgame.other_pieces())
            .any(|(&sq, (_, role))| role == Role::Pawn && Bitboard::BACKRANKS.contains(sq));
        if pawn_on_back_rank {
            continue;
        }
        let mut board = Board::empty();
        board.set_piece_at(
            squares[0],
            Piece {
                color: Color::White,
                role: Role::King,
            },
        );
        board.set_piece_at(
            squares[1],
            Piece {
                color: Color::Black,
                role: Role::King,
            },
        );
        for (&sq, (color, role)) in squares[2..].iter().zip(endgame.other_pieces()) {
            board.set_piece_at(sq, Piece { color, role });
        }
        let mut setup = Setup::empty();
        setup.board = board;
        setup.turn = Color::White;
        // shakmaty refuses a position whose side not to move (black) is in check.
        if let Ok(position) = Chess::from_setup(setup, CastlingMode::Standard) {
            return position;
        }
    }
}

/// A start of a material white's promotions lead to: a [`random_start`] with
/// white's pawn made a queen or a rook (alike) where it stands, white to move,
/// redrawn until legal. What a pawn ending's self-play reaches after white promotes,
/// drawn as often as a learner needs to value both promotions (KPK's KQK and KRK).
/// Panics for an ending where white has no pawn ([`Endgame::white_promotes`]).
pub fn promoted_start(endgame: Endgame, rng: &mut (impl Rng + ?Sized)) -> Chess {
    assert!(
        endgame.white_promotes(),
        "{endgame}: white has no pawn to promote"
    );
    loop {
        let start = random_start(endgame, rng);
        let pawns: Vec<Square> = (start.board().pawns() & start.board().white())
            .into_iter()
            .collect();
        let square = pawns[rng.random_range(0..pawns.len())];
        let role = if rng.random_bool(0.5) {
            Role::Queen
        } else {
            Role::Rook
        };
        let mut setup = start.to_setup(EnPassantMode::Legal);
        setup.board.set_piece_at(
            square,
            Piece {
                color: Color::White,
                role,
            },
        );
        // A piece giving check with white to move is refused: drawn again.
        if let Ok(position) = Chess::from_setup(setup, CastlingMode::Standard) {
            return position;
        }
    }
}

/// `start` with black's pawns taken off: the material white reaches by capturing
/// them (KRKP's KRK, KPKP's KPK), or none where taking them off would leave black's
/// king in check with white to move (a position no move leads to).
pub fn without_black_pawns(start: &Chess) -> Option<Chess> {
    let mut setup = start.to_setup(EnPassantMode::Legal);
    let black_pawns = setup.board.pawns() & setup.board.black();
    for square in black_pawns {
        setup.board.discard_piece_at(square);
    }
    setup.ep_square = None;
    Chess::from_setup(setup, CastlingMode::Standard).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn generated_starts_are_legal_apart_and_of_the_right_material() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for endgame in Endgame::ALL.into_iter().chain(Endgame::WITH_PAWNS) {
            for _ in 0..200 {
                let p = random_start(endgame, &mut rng);
                assert!(has_material(endgame, p.board()));
                assert_eq!(p.turn(), Color::White);
                let occupied: Vec<Square> = p.board().occupied().into_iter().collect();
                for (i, a) in occupied.iter().enumerate() {
                    for b in &occupied[i + 1..] {
                        assert!(a.distance(*b) > 1, "{endgame:?}: pieces adjacent");
                    }
                }
                if endgame == Endgame::Kbbk {
                    let bishops: Vec<Square> = p.board().bishops().into_iter().collect();
                    assert_ne!(bishops[0].is_light(), bishops[1].is_light());
                }
                assert!(
                    (p.board().pawns() & Bitboard::BACKRANKS).is_empty(),
                    "{endgame:?}"
                );
            }
        }
    }

    #[test]
    fn a_material_is_within_reach_through_captures_and_promotions() {
        let board = |fen: &str| crate::fen::position(fen).unwrap().board().clone();
        let kqk = board("7k/8/8/8/8/8/8/KQ6 w - - 0 1");
        assert!(within_reach(Endgame::Kpk, &kqk));
        assert!(within_reach(Endgame::Kqkr, &kqk));
        assert!(!within_reach(Endgame::Krk, &kqk));
        let kqkq = board("7k/7q/8/8/8/8/8/KQ6 w - - 0 1");
        assert!(within_reach(Endgame::Kqkp, &kqkq) && within_reach(Endgame::Kpkp, &kqkq));
        assert!(!within_reach(Endgame::Kpk, &kqkq));
        let kpk = board("7k/8/8/8/8/8/P7/K7 w - - 0 1");
        assert!(within_reach(Endgame::Kpk, &kpk) && !within_reach(Endgame::Kqk, &kpk));
        let kqqk = board("7k/8/8/8/8/8/Q7/KQ6 w - - 0 1");
        assert!(!within_reach(Endgame::Kqkp, &kqqk));
    }

    #[test]
    fn promoted_starts_hold_whites_pawn_made_a_queen_or_rook_within_reach() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for endgame in Endgame::WITH_PAWNS {
            if !endgame.white_promotes() {
                continue;
            }
            let (mut queens, mut rooks) = (0, 0);
            for _ in 0..400 {
                let p = promoted_start(endgame, &mut rng);
                let board = p.board();
                assert_eq!(p.turn(), Color::White);
                assert!(within_reach(endgame, board), "{endgame:?}: {board:?}");
                assert!((board.pawns() & board.white()).is_empty(), "{endgame:?}");
                assert_eq!(board.occupied().count(), 2 + endgame.other_pieces().count());
                queens += usize::from(board.queens().any());
                rooks += usize::from(board.rooks().any());
            }
            // Each promotion in about half of the starts.
            assert!(
                (150..=250).contains(&queens),
                "{endgame:?}: {queens} queens"
            );
            assert_eq!(queens + rooks, 400, "{endgame:?}");
        }
        assert!(Endgame::Kpk.white_promotes() && Endgame::Kpkp.white_promotes());
        assert_eq!(Endgame::Kpk.promoted(), Some(Endgame::Kqk));
        assert_eq!(Endgame::Kpkp.promoted(), Some(Endgame::Kqkp));
        assert_eq!(Endgame::Krkp.promoted(), None);
        assert!(!Endgame::Kqkp.white_promotes() && !Endgame::Krkp.white_promotes());
    }

    #[test]
    fn taking_black_pawns_off_leaves_the_rest_or_refuses_an_exposed_check() {
        let fen = |text: &str| {
            text.parse::<Fen>()
                .unwrap()
                .into_position::<Chess>(CastlingMode::Standard)
                .unwrap()
        };
        let krkp = fen("8/8/8/3k4/8/6p1/1R6/K7 w - - 0 1");
        let krk = without_black_pawns(&krkp).unwrap();
        assert_eq!(
            Fen::from_position(&krk, EnPassantMode::Legal).to_string(),
            "8/8/8/3k4/8/8/1R6/K7 w - - 0 1"
        );
        // The pawn on a4 shields black's king from the rook on a1.
        assert!(without_black_pawns(&fen("k7/8/8/8/p7/8/8/R6K w - - 0 1")).is_none());
        assert!(Endgame::Krkp.black_has_pawn() && Endgame::Kpkp.black_has_pawn());
        assert!(!Endgame::Kpk.black_has_pawn() && !Endgame::Kqkr.black_has_pawn());
    }

    #[test]
    fn the_studys_printed_start_parses_and_bad_fens_are_named() {
        assert!(parse_start(Endgame::Kqk, "8/8/1K6/8/3k4/7Q/8/8 w - - 0 1").is_ok());
        assert!(matches!(
            parse_start(Endgame::Kqk, "not a fen"),
            Err(StartError::Syntax(_))
        ));
        assert!(matches!(
            parse_start(Endgame::Kqk, "8/8/1K6/8/3k4/7R/8/8 w - - 0 1"),
            Err(StartError::Material { .. })
        ));
        assert!(matches!(
            parse_start(Endgame::Kqk, "8/8/1K6/8/3k4/7Q/8/8 b - - 0 1"),
            Err(StartError::Material { .. })
        ));
        // Pawn endings: the pawn named in the error, the names parsed.
        assert!(parse_start(Endgame::Kqkp, "2QK4/8/8/8/8/8/3kp3/8 w - - 0 1").is_ok());
        let error = parse_start(Endgame::Kpk, "2QK4/8/8/8/8/8/3kp3/8 w - - 0 1").unwrap_err();
        assert!(
            error.to_string().contains(
                "KPK with white to move (expected white king and pawn, black king alone)"
            ),
            "{error}"
        );
        assert_eq!("KRKP".parse(), Ok(Endgame::Krkp));
        assert!(Endgame::Kpkp.has_pawns() && !Endgame::Kqkr.has_pawns());
        // Kings touching: not a legal position.
        assert!(!has_material(
            Endgame::Kbbk,
            parse_start(Endgame::Kqk, "8/8/1K6/8/3k4/7Q/8/8 w - - 0 1")
                .unwrap()
                .board()
        ));
        assert!(matches!(
            parse_start(Endgame::Kqk, "8/8/8/3Kk3/8/7Q/8/8 w - - 0 1"),
            Err(StartError::Illegal(_))
        ));
    }
}

/// Why a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchEnd {
    /// White mated: a win.
    Checkmate,
    /// Black has no move and is not in check: a draw.
    Stalemate,
    /// Black took a white piece: a draw (the study counts it with the draws).
    PieceLost,
    /// Black mated white (possible only where black has a piece): a loss.
    Mated,
    /// The same position (placement and side to move) arose a third time.
    Repetition,
    /// Fifty moves by each side without capture or pawn move.
    FiftyMoves,
    /// The configured cap on white moves was reached.
    Cap,
}

impl MatchEnd {
    /// Short name for metrics files.
    pub fn name(self) -> &'static str {
        match self {
            MatchEnd::Checkmate => "checkmate",
            MatchEnd::Stalemate => "stalemate",
            MatchEnd::PieceLost => "piece-lost",
            MatchEnd::Mated => "mated",
            MatchEnd::Repetition => "repetition",
            MatchEnd::FiftyMoves => "fifty-moves",
            MatchEnd::Cap => "cap",
        }
    }
}

/// One match from a start position: the position, its history for repetitions,
/// and the count of white moves.
#[derive(Clone, Debug)]
pub struct Match {
    endgame: Endgame,
    position: Chess,
    /// The repetition key of every position so far, the current one last.
    history: Vec<u64>,
    white_moves: u32,
    cap: u32,
}

impl Match {
    /// A match from `start` (white to move), ending after `cap` white moves at most.
    pub fn new(endgame: Endgame, start: Chess, cap: u32) -> Match {
        let mut m = Match {
            endgame,
            position: start,
            history: Vec::new(),
            white_moves: 0,
            cap,
        };
        m.remember();
        m
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.position
    }

    /// White moves played so far.
    pub fn white_moves(&self) -> u32 {
        self.white_moves
    }

    /// The [`crate::two_player::position_key`] of every position of the match so
    /// far, the current one last (what a search needs to see repetitions).
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// Adds the current position to the history; returns how often it has occurred.
    fn remember(&mut self) -> usize {
        let key = crate::two_player::position_key(&self.position);
        self.history.push(key);
        self.history.iter().filter(|&&k| k == key).count()
    }

    /// Plays `mv` (legal for the side to move) and says whether the match ended.
    pub fn play(&mut self, mv: shakmaty::Move) -> Option<MatchEnd> {
        let white = self.position.turn() == Color::White;
        self.position.play_unchecked(mv);
        if white {
            self.white_moves += 1;
        }
        if self.position.is_checkmate() {
            Some(if white {
                MatchEnd::Checkmate
            } else {
                MatchEnd::Mated
            })
        } else if self.position.is_stalemate() {
            Some(MatchEnd::Stalemate)
        } else if white_lost_a_piece(self.endgame, self.position.board()) {
            Some(MatchEnd::PieceLost)
        } else if self.remember() >= 3 {
            Some(MatchEnd::Repetition)
        } else if self.position.halfmoves() >= 100 {
            Some(MatchEnd::FiftyMoves)
        } else if !white && self.white_moves >= self.cap {
            Some(MatchEnd::Cap)
        } else {
            None
        }
    }
}

/// The squares the black king can reach by king steps through squares that are
/// neither attacked by white nor occupied (its own square not counted): the study's
/// "section" of the heuristic reward.
pub fn black_king_region(position: &Chess) -> u32 {
    let board = position.board();
    let Some(king) = board.king_of(Color::Black) else {
        return 0;
    };
    let occupied = board.occupied();
    let blockers = occupied & !shakmaty::Bitboard::from_square(king);
    let open = |sq: Square| {
        !occupied.contains(sq) && board.attacks_to(sq, Color::White, blockers).is_empty()
    };
    let mut region = shakmaty::Bitboard::EMPTY;
    let mut frontier = vec![king];
    while let Some(sq) = frontier.pop() {
        for next in shakmaty::attacks::king_attacks(sq) {
            if !region.contains(next) && open(next) {
                region.add(next);
                frontier.push(next);
            }
        }
    }
    region.count() as u32
}

#[cfg(test)]
mod match_tests {
    use super::*;

    fn chess(fen: &str) -> Chess {
        crate::fen::position(fen).expect("a legal FEN")
    }

    fn play_uci(m: &mut Match, uci: &str) -> Option<MatchEnd> {
        let mv = uci
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(m.position())
            .unwrap();
        m.play(mv)
    }

    #[test]
    fn checkmate_and_stalemate_end_the_match() {
        let mut m = Match::new(Endgame::Kqk, chess("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1"), 50);
        assert_eq!(play_uci(&mut m, "c1c8"), Some(MatchEnd::Checkmate));
        assert_eq!(m.white_moves(), 1);
        let mut m = Match::new(Endgame::Kqk, chess("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1"), 50);
        assert_eq!(play_uci(&mut m, "c1c7"), Some(MatchEnd::Stalemate));
    }

    #[test]
    fn taking_a_piece_and_threefold_repetition_are_draws() {
        let mut m = Match::new(Endgame::Krk, chess("8/8/8/8/8/8/6R1/K6k b - - 0 1"), 50);
        assert_eq!(play_uci(&mut m, "h1g2"), Some(MatchEnd::PieceLost));
        let mut m = Match::new(Endgame::Kqk, chess("7k/8/8/8/8/8/8/KQ6 w - - 0 1"), 50);
        for uci in ["b1b2", "h8g8", "b2b1", "g8h8", "b1b2", "h8g8", "b2b1"] {
            assert_eq!(play_uci(&mut m, uci), None, "{uci}");
        }
        assert_eq!(play_uci(&mut m, "g8h8"), Some(MatchEnd::Repetition));
        // The history holds the start and every position after it, repeats equal.
        let keys = m.history();
        assert_eq!(keys.len(), 9);
        assert_eq!(keys[8], crate::two_player::position_key(m.position()));
        assert!(keys[0] == keys[4] && keys[4] == keys[8] && keys[0] != keys[1]);
    }

    #[test]
    fn the_fifty_move_rule_and_the_cap_end_the_match() {
        let mut m = Match::new(Endgame::Kqk, chess("7k/8/8/8/8/8/8/KQ6 w - - 99 80"), 500);
        assert_eq!(play_uci(&mut m, "b1b2"), Some(MatchEnd::FiftyMoves));
        let mut m = Match::new(Endgame::Kqk, chess("7k/8/8/8/8/8/8/KQ6 w - - 0 1"), 1);
        assert_eq!(play_uci(&mut m, "b1b2"), None);
        assert_eq!(play_uci(&mut m, "h8g8"), Some(MatchEnd::Cap));
    }

    #[test]
    fn the_region_is_flood_filled_through_safe_empty_squares() {
        // Rook a7 holds the 7th rank and the a-file: black king h8 reaches b8-g8.
        assert_eq!(black_king_region(&chess("7k/R7/8/8/8/8/8/K7 b - - 0 1")), 6);
        // Rook a4 cuts the board on the 4th rank and holds the a-file: black king e8
        // owns files b-h of ranks 5-8 (28 squares) minus its own.
        assert_eq!(
            black_king_region(&chess("4k3/8/8/8/R7/8/8/K7 b - - 0 1")),
            27
        );
        // A lone black king far from everything reaches all free, unattacked squares.
        let open = black_king_region(&chess("7k/8/8/8/8/8/8/K6Q b - - 0 1"));
        assert!(open > 30 && open < 63, "{open}");
    }

    #[test]
    fn with_a_defender_piece_white_taking_it_goes_on_and_black_taking_ends() {
        // White's queen takes the rook: the match goes on (now KQK).
        let mut m = Match::new(Endgame::Kqkr, chess("7k/8/8/8/2r5/8/8/2Q1K3 w - - 0 1"), 50);
        assert_eq!(play_uci(&mut m, "c1c4"), None);
        // Black's rook takes the queen: a lost piece.
        let mut m = Match::new(Endgame::Kqkr, chess("7k/8/8/8/2r5/8/8/2Q1K3 b - - 0 1"), 50);
        assert_eq!(play_uci(&mut m, "c4c1"), Some(MatchEnd::PieceLost));
    }
}
