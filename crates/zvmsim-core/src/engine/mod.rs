pub mod queue;
pub mod rng;
