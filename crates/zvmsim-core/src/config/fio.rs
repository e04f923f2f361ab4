//! A `kind = "fio"` workload's options, named as fio names them (its job-file options), and
//! their checks. One fio job is `numjobs` processes; `jobs` such jobs run side by side (seed
//! 003 scales 1, 2 and 4 jobs of 8 processes).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FioSpec {
    /// Identical fio jobs run at the same time (job sections of the job file).
    #[serde(default = "one")]
    pub jobs: u32,
    /// fio `numjobs`: processes per job.
    #[serde(default = "one")]
    pub numjobs: u32,
    /// fio `rw`: read, write, randread, randwrite, rw (= readwrite), randrw.
    #[serde(default = "default_rw")]
    pub rw: String,
    /// fio `rwmixread`: percentage of reads in a mixed workload.
    #[serde(default = "fifty")]
    pub rwmixread: u32,
    /// fio `bs`: one block size (used when `bssplit` is empty).
    #[serde(default = "default_bs")]
    pub bs: String,
    /// fio `bssplit`: block sizes with their percentages, `4k/25:8k/25:64k/25:128k/25`.
    #[serde(default)]
    pub bssplit: String,
    /// fio `filesize`: a size or a range `1k-100m`; each file's size is drawn from it.
    pub filesize: String,
    /// fio `nrfiles`: files per process.
    #[serde(default = "one")]
    pub nrfiles: u32,
    /// fio `iodepth`: I/Os a process keeps in flight (libaio).
    #[serde(default = "one")]
    pub iodepth: u32,
    /// fio `direct`: 1 for O_DIRECT (the page cache is bypassed).
    #[serde(default = "one")]
    pub direct: u32,
    /// fio `ioengine`: libaio (asynchronous), or psync/sync (one I/O at a time).
    #[serde(default = "default_engine")]
    pub ioengine: String,
    /// fio `directory`: where the files are (for reports).
    #[serde(default = "default_dir")]
    pub directory: String,
    /// The guest's virtual device (hex vdev) holding the file system `directory` is on.
    pub device: String,
}

fn one() -> u32 {
    1
}
fn fifty() -> u32 {
    50
}
fn default_rw() -> String {
    "read".into()
}
fn default_bs() -> String {
    "4k".into()
}
fn default_engine() -> String {
    "psync".into()
}
fn default_dir() -> String {
    "/mnt/fio".into()
}

/// fio's access pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    /// Offsets advance through each file (else drawn at random).
    pub sequential: bool,
    /// Percentage of reads.
    pub read_pct: u32,
}

/// A size as fio reads it: a number with an optional k/m/g suffix (powers of 1024), bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let t = s.trim().to_ascii_lowercase();
    let t = t.strip_suffix('b').unwrap_or(&t);
    let (num, mult) = match t.chars().last()? {
        'k' => (&t[..t.len() - 1], 1u64 << 10),
        'm' => (&t[..t.len() - 1], 1 << 20),
        'g' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: u64 = num.trim().parse().ok()?;
    n.checked_mul(mult)
}

impl FioSpec {
    pub fn pattern(&self) -> Result<Pattern, String> {
        let (sequential, read_pct) = match self.rw.as_str() {
            "read" => (true, 100),
            "write" => (true, 0),
            "randread" => (false, 100),
            "randwrite" => (false, 0),
            "rw" | "readwrite" => (true, self.rwmixread),
            "randrw" => (false, self.rwmixread),
            other => {
                return Err(format!(
                    "rw `{other}`: fio knows read, write, randread, randwrite, rw, readwrite, \
                     randrw (trim and trimwrite are not simulated by zvmsim)"
                ))
            }
        };
        if self.rwmixread > 100 {
            return Err(format!("rwmixread {} is above 100", self.rwmixread));
        }
        Ok(Pattern {
            sequential,
            read_pct,
        })
    }

    /// The block sizes (bytes, multiples of 4 KB) with their cumulative weights (0..=100).
    pub fn block_sizes(&self) -> Result<Vec<(u32, u32)>, String> {
        let text = if self.bssplit.trim().is_empty() {
            format!("{}/100", self.bs)
        } else {
            self.bssplit.clone()
        };
        let mut out = Vec::new();
        let mut acc = 0u32;
        for part in text.split(':') {
            let (size, pct) = part
                .split_once('/')
                .ok_or_else(|| format!("bssplit entry `{part}` is not size/percentage"))?;
            let bytes = parse_size(size).ok_or_else(|| format!("bad block size `{size}`"))?;
            if bytes == 0 || bytes % 4096 != 0 || bytes > (1 << 20) {
                return Err(format!(
                    "block size `{size}`: direct I/O on a DASD with 4 KB blocks needs a \
                     multiple of 4k up to 1m"
                ));
            }
            let p: u32 = pct
                .trim()
                .parse()
                .map_err(|_| format!("bad percentage `{pct}` in bssplit"))?;
            acc += p;
            out.push((bytes as u32, acc));
        }
        if acc != 100 {
            return Err(format!("bssplit percentages add up to {acc}, not 100"));
        }
        Ok(out)
    }

    /// The file-size range in bytes.
    pub fn file_sizes(&self) -> Result<(u64, u64), String> {
        let (lo, hi) = match self.filesize.split_once('-') {
            Some((a, b)) => (parse_size(a), parse_size(b)),
            None => (parse_size(&self.filesize), parse_size(&self.filesize)),
        };
        match (lo, hi) {
            (Some(a), Some(b)) if a > 0 && a <= b => Ok((a, b)),
            _ => Err(format!(
                "filesize `{}` is not a size or a range low-high such as 1k-100m",
                self.filesize
            )),
        }
    }

    /// Everything fio would check before it starts.
    pub fn check(&self) -> Result<(), String> {
        self.pattern()?;
        self.block_sizes()?;
        self.file_sizes()?;
        if self.jobs == 0 || self.numjobs == 0 || self.nrfiles == 0 {
            return Err("jobs, numjobs and nrfiles must be at least 1".into());
        }
        // fio starts at most FIO_MAX_JOBS (4096) processes in one run (fio.h; inference that
        // the studies' release has the same limit); the files are zvmsim's bound (memory).
        let procs = self.jobs as u64 * self.numjobs as u64;
        if procs > 4096 {
            return Err(format!(
                "jobs {} x numjobs {} is {procs} processes; fio runs at most 4096",
                self.jobs, self.numjobs
            ));
        }
        if procs * self.nrfiles as u64 > 1 << 20 {
            return Err(format!(
                "{procs} processes x nrfiles {} is over zvmsim's bound of 1048576 files",
                self.nrfiles
            ));
        }
        if self.iodepth == 0 || self.iodepth > 4096 {
            return Err(format!("iodepth {} is outside 1..4096", self.iodepth));
        }
        if self.direct != 1 {
            return Err(
                "direct=0 (buffered I/O through the page cache) is not simulated \
                        by zvmsim yet; use direct=1"
                    .into(),
            );
        }
        match self.ioengine.as_str() {
            "libaio" | "psync" | "sync" | "pvsync" => {}
            other => {
                return Err(format!(
                    "ioengine `{other}` is not simulated by zvmsim (libaio, psync, sync, pvsync)"
                ))
            }
        }
        if crate::config::io::parse_rdev(&self.device).is_none() {
            return Err(format!(
                "device `{}` is not a virtual device number (1-4 hex digits)",
                self.device
            ));
        }
        Ok(())
    }

    /// I/Os one process keeps in flight: iodepth for libaio, one for the synchronous engines.
    pub fn depth(&self) -> u32 {
        if self.ioengine == "libaio" {
            self.iodepth
        } else {
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> FioSpec {
        toml_edit::de::from_str("filesize = \"1k-100m\"\ndevice = \"0200\"\n").unwrap()
    }

    #[test]
    fn options_parse_as_fio_reads_them() {
        let mut s = spec();
        s.bssplit = "4k/25:8k/25:64k/25:128k/25".into();
        let b = s.block_sizes().unwrap();
        assert_eq!(b, vec![(4096, 25), (8192, 50), (65536, 75), (131072, 100)]);
        assert_eq!(s.file_sizes().unwrap(), (1024, 100 << 20));
        s.rw = "randrw".into();
        assert!(!s.pattern().unwrap().sequential);
        s.bssplit = "4k/50:8k/40".into();
        assert!(s.block_sizes().unwrap_err().contains("90"));
        s.bssplit = "3k/100".into();
        assert!(s.block_sizes().is_err());
        s.bssplit.clear();
        s.direct = 0;
        assert!(s.check().unwrap_err().contains("direct=0"));
    }
}
