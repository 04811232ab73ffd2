//! Ground truth for burnmate: exact solutions the learners are measured against.

pub mod queen4x4;
