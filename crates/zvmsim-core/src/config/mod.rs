//! What the user gives: the scenario file, its units, its semantic checks, and the model's
//! global parameters.

pub mod agelist;
pub mod apache;
pub mod appserver;
pub mod bounds;
pub mod dbench;
pub mod directory;
pub mod fio;
pub mod io;
pub mod io_check;
pub mod iozone;
pub mod level;
pub mod linux;
mod names;
mod overrides;
pub mod paging;
pub mod params;
pub mod resources;
pub mod scenario;
pub mod shared;
mod source;
pub mod units;
pub mod validate;
