//! Exhaustive check of the 4x4 rules against a brute-force generator written from
//! coordinates alone, over every placement of the three pieces.

use burnmate_env::queen4x4::{ACTIONS, Action, DIRECTIONS, Position, Queen4x4Outcome, Square};

type Coord = (i8, i8);

fn coord(sq: Square) -> Coord {
    (sq.row(), sq.col())
}

fn on_board((r, c): Coord) -> bool {
    (0..4).contains(&r) && (0..4).contains(&c)
}

fn king_distance(a: Coord, b: Coord) -> i8 {
    (a.0 - b.0).abs().max((a.1 - b.1).abs())
}

/// Squares strictly between `a` and `b` on a line, or `None` if not on a line.
fn between(a: Coord, b: Coord) -> Option<Vec<Coord>> {
    let (dr, dc) = (b.0 - a.0, b.1 - a.1);
    if a == b || !(dr == 0 || dc == 0 || dr.abs() == dc.abs()) {
        return None;
    }
    let n = dr.abs().max(dc.abs());
    let step = (dr.signum(), dc.signum());
    Some(
        (1..n)
            .map(|k| (a.0 + k * step.0, a.1 + k * step.1))
            .collect(),
    )
}

/// Whether the queen controls `target` (her own square included), blocked by the
/// white king only.
fn queen_controls(p: &Position, target: Coord) -> bool {
    let q = coord(p.queen);
    if target == q {
        return true;
    }
    match between(q, target) {
        Some(path) => !path.contains(&coord(p.white_king)) && target != coord(p.white_king),
        None => false,
    }
}

fn brute_black_moves(p: &Position) -> Vec<Coord> {
    let bk = coord(p.black_king);
    let wk = coord(p.white_king);
    let mut moves = Vec::new();
    for r in 0..4 {
        for c in 0..4 {
            let t = (r, c);
            if king_distance(t, bk) == 1 && king_distance(t, wk) > 1 && !queen_controls(p, t) {
                moves.push(t);
            }
        }
    }
    moves
}

fn brute_white_actions(p: &Position) -> Vec<usize> {
    let (wk, q, bk) = (coord(p.white_king), coord(p.queen), coord(p.black_king));
    let mut legal = Vec::new();
    for a in 0..ACTIONS {
        let ok = match Action::from_index(a) {
            Action::Queen {
                direction,
                distance,
            } => {
                let (dr, dc) = DIRECTIONS[direction];
                let path: Vec<Coord> = (1..=distance)
                    .map(|k| (q.0 + k * dr, q.1 + k * dc))
                    .collect();
                let to = *path.last().unwrap();
                on_board(to)
                    && !path.contains(&wk)
                    && !path.contains(&bk)
                    && (king_distance(to, bk) > 1 || king_distance(to, wk) == 1)
            }
            Action::King { direction } => {
                let (dr, dc) = DIRECTIONS[direction];
                let to = (wk.0 + dr, wk.1 + dc);
                on_board(to) && to != q && king_distance(to, bk) > 1
            }
        };
        if ok {
            legal.push(a);
        }
    }
    legal
}

fn every_placement() -> impl Iterator<Item = Position> {
    Square::all().flat_map(|k| {
        Square::all().flat_map(move |q| Square::all().filter_map(move |b| Position::new(k, q, b)))
    })
}

#[test]
fn black_king_moves_equal_brute_force_everywhere() {
    for p in every_placement() {
        let mut got: Vec<Coord> = Square::all()
            .filter(|sq| p.black_king_moves() & sq.bit() != 0)
            .map(coord)
            .collect();
        got.sort();
        assert_eq!(got, brute_black_moves(&p), "{p}");
        assert_eq!(
            p.black_in_check(),
            queen_controls(&p, coord(p.black_king)),
            "{p}"
        );
    }
}

#[test]
fn white_legal_actions_equal_brute_force_everywhere() {
    for p in every_placement().filter(|p| !p.white_king.touches(p.black_king)) {
        assert_eq!(p.legal_action_list(), brute_white_actions(&p), "{p}");
    }
}

#[test]
fn outcomes_follow_check_and_mobility() {
    let (mut mates, mut stalemates) = (0, 0);
    for p in every_placement().filter(|p| !p.white_king.touches(p.black_king)) {
        let expected = match (
            brute_black_moves(&p).is_empty(),
            queen_controls(&p, coord(p.black_king)),
        ) {
            (false, _) => Queen4x4Outcome::Ongoing,
            (true, true) => Queen4x4Outcome::Checkmate,
            (true, false) => Queen4x4Outcome::Stalemate,
        };
        assert_eq!(p.outcome(), expected, "{p}");
        mates += usize::from(expected == Queen4x4Outcome::Checkmate);
        stalemates += usize::from(expected == Queen4x4Outcome::Stalemate);
    }
    assert!(mates > 0 && stalemates > 0);
}

#[test]
fn legal_moves_never_expose_the_queen_or_touch_kings() {
    for p in
        every_placement().filter(|p| !p.white_king.touches(p.black_king) && !p.black_in_check())
    {
        for a in p.legal_action_list() {
            let after = p.play(Action::from_index(a));
            assert!(!after.white_king.touches(after.black_king), "{p} {a}");
            // A queen next to the black king must be defended by the white king
            // (geometry only, independent of how black's moves are generated).
            if after.queen.touches(after.black_king) {
                assert!(after.white_king.touches(after.queen), "{p} {a}");
            }
        }
    }
}

#[test]
fn black_king_never_has_more_than_seven_moves_with_white_to_move() {
    // The encoding's mobility one-hot has slots 0..=7; this pins that it suffices.
    for p in
        every_placement().filter(|p| !p.white_king.touches(p.black_king) && !p.black_in_check())
    {
        assert!(p.black_king_moves().count_ones() <= 7, "{p}");
    }
}
