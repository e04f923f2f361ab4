//! A `kind = "iozone"` workload's options, named as iozone's command line names them, and the
//! Linux block-layer settings its buffered I/O goes through. Seed 004 runs iozone's sequential
//! write and read tests (`-i 0 -i 1`), one process and one file per disk (`-t`), buffered
//! through the page cache unless `-I` (O_DIRECT).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::fio::parse_size;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IozoneSpec {
    /// iozone `-t`: processes (throughput mode), one file each.
    #[serde(default = "one")]
    pub processes: u32,
    /// iozone `-r`: record size of each write() and read() call.
    #[serde(default = "default_record")]
    pub record: String,
    /// iozone `-s`: size of each process's file.
    pub filesize: String,
    /// iozone `-I`: O_DIRECT, one synchronous I/O per record (no page cache).
    #[serde(default)]
    pub direct: bool,
    /// The guests' disks (virtual device numbers, hex) holding the files, one per process in
    /// order. A disk whose volume is an LVM1 physical volume with several paths (made by the
    /// console's `pvcreate` and `vgcreate` on a SLES 8 guest) uses them all.
    pub devices: Vec<String>,
    /// Linux's block layer: the largest request it builds (2.4: the DASD and zfcp drivers'
    /// request limit).
    #[serde(default = "default_request")]
    pub max_request: String,
    /// Read-ahead chunk of a sequential reader (2.4: f_ramax + 1 pages): the next chunk is
    /// read ahead when the reader enters the last one, so one to two are in flight.
    #[serde(default = "default_readahead")]
    pub readahead: String,
    /// Dirty page-cache data a writer may have before it must write back itself and wait
    /// (2.4 balance_dirty; 2.6 dirty_ratio of the guest's memory).
    #[serde(default = "default_dirty")]
    pub dirty_limit: String,
}

fn one() -> u32 {
    1
}
fn default_record() -> String {
    "64k".into()
}
fn default_request() -> String {
    "128k".into()
}
fn default_readahead() -> String {
    "1m".into()
}
fn default_dirty() -> String {
    "40m".into()
}

/// The options in 4 KB pages.
#[derive(Debug, Clone, Copy)]
pub struct IozonePages {
    pub record: u32,
    pub file: u64,
    pub request: u32,
    pub readahead: u64,
    pub dirty: u64,
}

fn pages(field: &str, s: &str) -> Result<u64, String> {
    match parse_size(s) {
        Some(b) if b >= 4096 && b % 4096 == 0 => Ok(b / 4096),
        _ => Err(format!("{field} `{s}` is not a size of whole 4k pages")),
    }
}

impl IozoneSpec {
    pub fn pages(&self) -> Result<IozonePages, String> {
        let p = IozonePages {
            record: pages("record", &self.record)? as u32,
            file: pages("filesize", &self.filesize)?,
            request: pages("max_request", &self.max_request)? as u32,
            readahead: pages("readahead", &self.readahead)?,
            dirty: pages("dirty_limit", &self.dirty_limit)?,
        };
        if p.record as u64 > p.file {
            return Err(format!(
                "record `{}` is larger than filesize `{}`",
                self.record, self.filesize
            ));
        }
        if p.record > 4096 || p.request > 1024 {
            return Err("record is at most 16m, max_request at most 4m".into());
        }
        Ok(p)
    }

    /// What iozone (and the scenario loader) would refuse before starting.
    pub fn check(&self) -> Result<(), String> {
        self.pages()?;
        if self.processes == 0 || self.processes as usize != self.devices.len() {
            return Err(format!(
                "processes = {} but {} devices: iozone here runs one process per disk",
                self.processes,
                self.devices.len()
            ));
        }
        for d in &self.devices {
            if crate::config::io::parse_rdev(d).is_none() {
                return Err(format!(
                    "device `{d}` is not a virtual device number (1-4 hex digits)"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_in_pages_and_checks() {
        let mut s: IozoneSpec =
            toml_edit::de::from_str("filesize = \"350m\"\ndevices = [\"0200\"]\n").unwrap();
        let p = s.pages().unwrap();
        assert_eq!((p.record, p.file, p.request), (16, 89_600, 32));
        s.check().unwrap();
        s.processes = 2;
        assert!(s.check().unwrap_err().contains("one process per disk"));
        s.processes = 1;
        s.record = "3k".into();
        assert!(s.check().unwrap_err().contains("record"));
    }
}
