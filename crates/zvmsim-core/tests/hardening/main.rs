//! Issue 13, hardened input: one test binary (one link in CI) for the corpus of bad inputs
//! with their located messages, the fuzz harness over the parsers, and the run's resource
//! estimate.

mod bad_inputs;
mod fuzz_parsers;
mod resources;
