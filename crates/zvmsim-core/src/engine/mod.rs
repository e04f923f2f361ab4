pub mod fifo;
pub mod freelist;
pub mod huge;
pub(crate) mod populate;
pub mod prefetch;
pub mod queue;
pub mod rng;
mod zipf_fast;
