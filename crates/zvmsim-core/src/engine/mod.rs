pub mod queue;
pub mod queue_alt;
pub mod rng;
