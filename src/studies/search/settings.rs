//! The search learner's settings: one for every endgame (the matrix's `mcts`
//! cells and `study = "search"` runs alike), each with the measurements that chose it.

use burnmate_agents::search::SearchConfig;
use burnmate_agents::search_learner::SearchLearnerConfig;
use burnmate_env::endgame::Endgame;
use burnmate_env::tactics::ForcingMoves;

/// Self-play games of a search learner's run on `endgame` (a matrix cell's at
/// budget 1): what took each ending to its result in docs/results/matrix.md.
pub fn self_play_games(endgame: Endgame) -> u64 {
    match endgame {
        Endgame::Kqk => 45_000,
        Endgame::Krk => 36_000,
        Endgame::Kbbk => 40_000,
        Endgame::Kbnk => 120_000,
        // Not yet measured: KRK's budget for the endgames with a defender's piece
        // and with pawns.
        Endgame::Kqkr
        | Endgame::Krkb
        | Endgame::Krkn
        | Endgame::Kpk
        | Endgame::Kqkp
        | Endgame::Krkp
        | Endgame::Kpkp => 36_000,
    }
}

/// Share of the uniform training starts of a pawn ending where white has a pawn
/// (KPK, KPKP) with that pawn made a queen or a rook where it stands
/// ([`burnmate_env::endgame::promoted_start`]). From the ending's own positions
/// alone, the net reaches a promotion's material only through the promotions it
/// already plays, and learns to value one of them: KPK seeds 0-2 (36,000 games,
/// 2026-12-06) valued won KRK (seeds 0, 2) or KQK (seed 1) positions at about a
/// draw, and seed 1 promoted to rooks (72.1 % mated in 2.07x). At 0.25: 98.1 / 99.2 /
/// 98.8 % mated in 1.062 / 1.049 / 1.036x against 96.4 / 72.1 / 98.7 % in 1.103 /
/// 2.072 / 1.055x, both materials valued above 0.88 (`examples/promotion_values.rs`;
/// `results/search-pawn-promotions-2026-12-06/`). White's pawn only: the drift is
/// white's choice between promotions, and black's promoted starts (KRKQ, KRKR) are
/// drawn or lost for white. Not measured to hurt: KRKP seed 0 with them stalled (1.9
/// % of its self-play games mated from 8,000 to 10,500 against 81 % without), but KRKP
/// seed 1 without them stalled as well (~2 % through 20,000 games).
pub const PROMOTED_SHARE: f64 = 0.25;

/// The share of promoted starts a search learner of `endgame` trains with by
/// default: [`PROMOTED_SHARE`] where white has a pawn, none elsewhere.
pub fn promoted_share(endgame: Endgame) -> Option<f64> {
    endgame.white_promotes().then_some(PROMOTED_SHARE)
}

/// Share of KPKP's uniform training starts with black's pawn taken off
/// ([`burnmate_env::endgame::without_black_pawns`]; with [`PROMOTED_SHARE`] drawn
/// independently: KPK, KQK and KRK starts beside KQKP and KRKP ones). From KPKP's own
/// positions the learner's early play almost never mates inside the 100-ply cap (most
/// starts are drawn, a win needs a promotion and then a mate), so the net learns a draw
/// everywhere: seed 0 mated 0-5 % of its self-play games and 4.2 % of the won starts at
/// 36,000 games (2.7 % of its games over 11,000 with the promoted starts alone). With a
/// quarter of black's pawns taken off, seed 0 mated 72 % of its games by 9,000 and
/// 80.7 % of the won starts at 36,000 (`results/search-pawn-curricula-2026-12-06/`).
pub const CAPTURED_SHARE: f64 = 0.25;

/// The share of captured starts a search learner of `endgame` trains with by default:
/// [`CAPTURED_SHARE`] for KPKP, none elsewhere (KQKP and KRKP learn from their own
/// positions on most seeds, and grow their starts back from mate by default).
pub fn captured_share(endgame: Endgame) -> Option<f64> {
    (endgame == Endgame::Kpkp).then_some(CAPTURED_SHARE)
}

/// Share of KPKP's uniform training starts drawn instead a few un-moves back from a
/// KQKP mate (`near_mate_start` in `training.rs`). The captured starts did not rescue
/// every seed: KPKP seed 2 with them alone mated 0-6 % of its self-play games through
/// 16,500 games (stopped there), the draw-everywhere fixed point again. With a quarter
/// of near-mate starts beside them it mated 75.5 % of the won starts at 9,000 games and
/// 80.4 % at 36,000; seeds 0-2 81.6 / 79.3 / 80.4 % in 1.111x, where seeds 0 and 1 with
/// the captured starts alone mated 80.7 / 79.3 % in 1.131x
/// (`results/search-near-mate-2026-12-06/`).
pub const NEAR_MATE_SHARE: f64 = 0.25;

/// The share of near-mate starts a search learner of `endgame` trains with by
/// default: [`NEAR_MATE_SHARE`] for KPKP, none elsewhere (KPK's seeds all learn from
/// their own and their promoted starts).
pub fn near_mate_share(endgame: Endgame) -> Option<f64> {
    (endgame == Endgame::Kpkp).then_some(NEAR_MATE_SHARE)
}

/// Simulations a move when a trained search learner is evaluated (the budget).
pub const SEARCH_EVAL_SIMULATIONS: u32 = 128;

/// The prior weight (`c_puct`) of the search learner's searches, in self-play and
/// evaluation. In evaluation, KQK seed 0's net after 6,000 games on the matrix's
/// 1,000 starts mated 99.1 % in 1.346x the optimum's moves at 1.5, 99.8 % / 1.329x
/// at 1.0, 99.9 % / 1.303x at 0.5, 100 % / 1.301x at 0.25, 97.2 % / 1.378x at 3;
/// KBNK seed 0's full-budget net (`examples/defender_gap.rs`, 400 starts, perfect
/// defender) 62.3 % at 0.25, 66.0 % at 0.5, 52.0 % at 1.0 with 128 simulations, and
/// with 64 simulations and root noise 54.2 % at 0.5 against 29.0 % at 1.5. Self-play
/// searched at 1.5 until 2026-11-27: at 0.5 its games are the stronger ones, and KBNK
/// seeds 0 and 1 mated 68.4 and 28.4 % after 60,000 games against 17.4 and 7.5 %
/// (`results/search-settings/`).
pub const SEARCH_C_PUCT: f32 = 0.5;

/// The search learner's discount per ply (values and their targets). 0.97 until
/// 2026-11-27: a won KBNK position 50 plies from mate was then worth 0.22, close to a
/// draw's 0, and a move pair of progress 0.013, below what the value head resolves;
/// at 0.995 the win is worth 0.78 and the moves-left head ranks the plies (Lc0
/// values wins undiscounted and leaves their length to that head). KBNK seeds 0 and
/// 1 mated 39.4 and 90.5 % after 60,000 games against 17.4 and 7.5 % at 0.97; with
/// the prior weight of 0.5 as well, seed 0 83.7 % (`results/search-settings/`).
pub const SEARCH_DISCOUNT: f32 = 0.995;

/// The search a trained search learner of `endgame` is evaluated and played with:
/// self-play's without root noise, seeing captures that end the game at expansion
/// (`see_endings`), at [`SEARCH_EVAL_SIMULATIONS`] and [`SEARCH_C_PUCT`], with the
/// ending's [`evaluation_forcing`], backing values up with the `discount` the
/// net was trained with. The moves-left term only for a net with that head
/// (`moves_left_head`).
pub fn evaluation_search(endgame: Endgame, discount: f32, moves_left_head: bool) -> SearchConfig {
    let (forcing_share, forcing_moves) = evaluation_forcing(endgame);
    let search = SearchConfig {
        noise: 0.0,
        simulations: SEARCH_EVAL_SIMULATIONS,
        c_puct: SEARCH_C_PUCT,
        discount,
        see_endings: true,
        shortest_win: true,
        forcing_share,
        forcing_moves,
        ..search_learner_config().search
    };
    if moves_left_head {
        search
    } else {
        SearchConfig {
            moves_left_slope: 0.0,
            moves_left_cap: 0.0,
            ..search
        }
    }
}

/// Share of the prior a trained learner's search spreads over forcing moves, and
/// which (`SearchConfig::forcing_share`, `forcing_moves`), in evaluation and play:
/// half in the endings where a one-move tactic decides, none in KQK, KRK and KBBK,
/// which have none to miss. Measured on the matrix's 1000 won starts, 128
/// simulations (`results/search-kqkr-forcing-2026-12-02/`,
/// `results/search-threats-2026-12-03/`), share 0 -> 0.5:
/// - KQKR over checks and captures (the rook's pins and skewers): seeds 0-2
///   65.1 ± 0.7 % -> 68.2 ± 2.4 % mated, drawn starts held as the defender 69 % ->
///   91.5 %; over checks, captures and threats 68.7, 65.3 and 65.1 % against 70.9,
///   66.7 and 66.9 %; over captures and threats, seed 0: 63.2 %.
/// - KRKB and KRKN over checks, captures and threats: KRKB seeds 0-1 96.0 and 97.9
///   % -> 98.9 and 98.7 %, drawn starts held 99.2 % -> 99.6 % (over checks and
///   captures alone: 98.0 and 98.7 %, held 98.8 and 98.4 %); KRKN seed 0 80.2 ->
///   82.1 % (checks and captures: 80.0 %, captures and threats: 79.3 %). Seeds
///   not chosen on gain alike: KRKB seed 2 97.1 -> 98.9 %, KRKN seeds 1-2 79.0 ->
///   81.7 % and 80.4 -> 82.5 % (`results/search-threats-held-out-2026-12-03/`).
/// - KBNK over captures and threats (the king's forks of a loose piece): the
///   shipped net 97.3 -> 98.9 % mated (over checks and captures 96.1 %, over all
///   97.7 %); seeds not chosen on, 1-2: 96.9 -> 98.4 % and 97.5 -> 98.8 %
///   (`results/search-kbnk-seeds-threats-2026-12-03/`).
/// - KQK, KRK, KBBK: the shipped nets over captures and threats mate in 1.061x,
///   1.061x and 1.030x against 1.061x, 1.060x and 1.031x; over checks KQK's 1.072x.
/// - The pawn endings (not yet measured): KPK as the lone-king mates, the others,
///   where a capture of the pawn or a fork decides, as KRKB and KRKN.
pub fn evaluation_forcing(endgame: Endgame) -> (f32, ForcingMoves) {
    match endgame {
        Endgame::Kqkr => (0.5, ForcingMoves::ChecksAndCaptures),
        Endgame::Krkb | Endgame::Krkn | Endgame::Kqkp | Endgame::Krkp | Endgame::Kpkp => {
            (0.5, ForcingMoves::All)
        }
        Endgame::Kbnk => (0.5, ForcingMoves::CapturesAndThreats),
        Endgame::Kqk | Endgame::Krk | Endgame::Kbbk | Endgame::Kpk => {
            (0.0, ForcingMoves::ChecksAndCaptures)
        }
    }
}

/// Whether a new search learner's net has a moves-left head (Lc0's), which its
/// searches weigh by [`MOVES_LEFT_SLOPE`] a ply up to [`MOVES_LEFT_CAP`]. KQK seed 0,
/// 18,000 games, one run beside the other on the same 2-core AMD EPYC: without the
/// head 100 % mated in 1.167x the optimum's moves (raw policy 96.7 %, 1.255x),
/// with it 100 % in 1.082x (raw policy 82.6 %, 1.186x).
pub const SEARCH_MOVES_LEFT_HEAD: bool = true;

/// Share of a move's value gained per ply sooner to the end (self-play and
/// evaluation alike). KQK seed 0, 18,000 games: 1.082x at 0.05 (cap 0.2), 1.085x
/// at 0.1 (cap 0.4); the net of 0.05 evaluated at 0.1 (cap 0.4): 1.074x, at 0.3
/// (cap 0.9) 95.5 % mated. Unscaled by the move's value (the side ahead's every
/// move pulled towards a sooner end, drawn or won): 1.068x at 0.03 (cap 0.1), but
/// 74.7 % mated at 0.1 (cap 0.2), where a drawing move's short end pulled as
/// hard as a mate's; scaled by the move's value, a draw pulls nothing.
pub const MOVES_LEFT_SLOPE: f32 = 0.05;

/// The largest share of a move's value the moves-left term moves.
pub const MOVES_LEFT_CAP: f32 = 0.2;

/// The search learner's hidden layers.
pub const SEARCH_HIDDEN: [usize; 2] = [256, 128];

/// The search learner's setting: 64 simulations a self-play move (evaluation uses
/// [`SEARCH_EVAL_SIMULATIONS`]) at a prior weight of [`SEARCH_C_PUCT`], the most
/// visited move played (root noise is the
/// exploration; sampling by visits kept the curriculum's first level under its 75 %
/// of mates), 64 games side by side, Adam at 1e-3 on minibatches of 256 from the last
/// 50,000 positions, one update per ply round (two spent half of the time on
/// updates; three, KQK seed 0 after 6,000 games: 1.222x the optimum's moves in
/// 183 s of training against 1.243x in 97 s with one, and 1.275x after the same
/// 114 s: more games buy more than more updates), value targets half the game's result and half the root's search value
/// (KQK seed 0, 6,000 games: 95 % mated against 96 % with the result alone, in 9.55
/// moves against 9.80; KRK 9 % against 7 %: within one seed's noise, kept for the
/// lower variance of its targets).
pub fn search_learner_config() -> SearchLearnerConfig {
    SearchLearnerConfig {
        search: SearchConfig {
            simulations: 64,
            noise: 0.25,
            moves_left_slope: if SEARCH_MOVES_LEFT_HEAD {
                MOVES_LEFT_SLOPE
            } else {
                0.0
            },
            moves_left_cap: MOVES_LEFT_CAP,
            c_puct: SEARCH_C_PUCT,
            discount: SEARCH_DISCOUNT,
            ..SearchConfig::default()
        },
        temperature_plies: 0,
        parallel: 64,
        replay_capacity: 50_000,
        batch_size: 256,
        updates: 1,
        lr: 1e-3,
        search_value_weight: 0.5,
        playout_cap: None,
        first_player_simulations: None,
        second_player_simulations: None,
    }
}
