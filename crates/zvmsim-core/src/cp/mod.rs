//! CP, the z/VM control program: real storage management, expanded storage, and the commands
//! typed on a z/VM console.

pub mod catalog;
pub mod commands;
pub mod storage;
pub mod xstor;
