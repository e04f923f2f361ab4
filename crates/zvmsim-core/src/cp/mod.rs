//! CP, the z/VM control program: the dispatcher, real storage management, expanded storage,
//! host page faults and page-ins, and the commands typed on a z/VM console.

pub mod catalog;
pub mod commands;
pub mod defstor;
pub mod directory;
pub mod dispatcher;
pub(crate) mod faults;
pub mod input;
pub mod iocmds;
pub mod mdc;
pub mod mdccmds;
pub mod mdcelig;
pub mod nucleus;
pub mod pagein;
pub mod privclass;
pub mod segments;
pub mod spool;
pub mod storage;
pub mod vdisk;
pub mod vmrm;
pub mod xstor;
