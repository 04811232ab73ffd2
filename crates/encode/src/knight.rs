//! The knight study's 4-number state: knight row, knight column, king row, king
//! column, raw 0..7 as floats (not scaled, as in the study).

use burnmate_env::environment::Encoder;
use burnmate_env::knight::KnightState;

/// The study's 4-number encoding as an [`Encoder`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KnightEncoding;

impl Encoder<KnightState> for KnightEncoding {
    fn width(&self) -> usize {
        FEATURES
    }

    fn encode(&self, state: &KnightState, row: &mut [f32]) {
        encode(state, row);
    }
}

/// Number of features.
pub const FEATURES: usize = 4;

/// Writes the 4 features of `state` into `row`.
pub fn encode(state: &KnightState, row: &mut [f32]) {
    assert_eq!(row.len(), FEATURES, "a knight row holds {FEATURES} floats");
    row[0] = f32::from(state.knight.0);
    row[1] = f32::from(state.knight.1);
    row[2] = f32::from(state.king.0);
    row[3] = f32::from(state.king.1);
}

/// The 4 features of `state` as an array.
pub fn row(state: &KnightState) -> [f32; FEATURES] {
    let mut row = [0.0; FEATURES];
    encode(state, &mut row);
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_columns_are_written_raw() {
        let mut row = [9.0; FEATURES];
        encode(&KnightState::new((1, 7), (6, 0)), &mut row);
        assert_eq!(row, [1.0, 7.0, 6.0, 0.0]);
    }
}
