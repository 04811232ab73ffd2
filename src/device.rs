//! Where tensors live: the backend choice, GPU failures as one-line errors, and the size limits that keep an allocation from aborting.

pub mod backend;
pub mod gpu_failure;
pub mod limits;
