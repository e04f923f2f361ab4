pub mod huge;
pub mod queue;
pub mod rng;
