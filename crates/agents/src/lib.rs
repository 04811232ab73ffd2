//! Learning algorithms of burnmate, generic over the Burn device: the backend is a
//! runtime [`burn::tensor::Device`], chosen once by the caller.

pub mod endgame;
pub mod exploration;
pub mod init;
pub mod knight;
pub mod luo;
pub mod optim;
pub mod selfplay;
