//! Real I/O: DASD volumes behind their subchannels.

pub mod dasd;
