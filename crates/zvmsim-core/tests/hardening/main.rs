//! Issue 13, hardened input: one test binary (one link in CI) for the corpus of bad inputs
//! with their located messages, the fuzz harness over the parsers, the run's resource
//! estimate, the shipped scenarios mutated field by field, and malformed console input typed
//! into small running systems.

mod bad_inputs;
mod console_bases;
mod console_commands;
mod console_inputs;
mod fuzz_parsers;
mod resources;
mod scenario_mutations;
