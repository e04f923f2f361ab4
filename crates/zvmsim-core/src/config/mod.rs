//! What the user gives: the scenario file, its units, its semantic checks, and the model's
//! global parameters.

pub mod params;
pub mod scenario;
pub mod units;
pub mod validate;
