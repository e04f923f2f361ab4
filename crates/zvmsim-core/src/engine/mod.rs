pub mod fifo;
pub mod freelist;
pub mod huge;
pub mod prefetch;
pub mod queue;
pub mod rng;
mod zipf_fast;
