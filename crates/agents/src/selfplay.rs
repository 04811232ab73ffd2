//! The selfplay study (Dias): per side one convolutional piece selector and six move
//! selectors, trained on material rewards by playing each other.

pub mod choice;
pub mod net;
#[cfg(test)]
mod tests;
pub mod trainer;
