//! The DASD driver's profile (CONFIG_DASD_PROFILE, as distribution kernels build it), shown in
//! `/proc/dasd/statistics` and switched with `echo set on|set off|reset >` that file. Facts
//! from drivers/s390/block/dasd.c and dasd_proc.c of the 2.6 kernels (read for 2.6.18 and the
//! dasd_block rework of 2.6.25; SLES 11's 2.6.27/2.6.32 are taken as the same: inference):
//! - off at boot; `set off` also clears the counters, `reset` clears them;
//! - when a request is built, the number of requests already on its block device's queue
//!   (0 to 31) is counted; when it ends (with its sectors), its size in 512-byte sectors and
//!   six times in microseconds: build to end, that per sector, build to start (SSCH), start
//!   to interrupt, that per sector, interrupt to end;
//! - each histogram has 32 buckets: bucket i counts values below 2^(i+2) not counted in a
//!   lower one, bucket 31 the rest;
//! - the first request to end after a clear clears the whole profile again (the kernel tests
//!   its request count for zero), so the queue counts of requests built before it are lost.
//!
//! zvmsim's DASD driver has no separate bottom half: a request ends when its interrupt is
//! handled, so the time from interrupt to end is 0 (bucket 0). Inference.

/// Buckets of a histogram.
const N: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DasdProfile {
    pub on: bool,
    pub reqs: u32,
    pub sects: u32,
    pub secs: [u32; N],
    pub times: [u32; N],
    pub timps: [u32; N],
    pub time1: [u32; N],
    pub time2: [u32; N],
    pub time2ps: [u32; N],
    pub time3: [u32; N],
    pub nr_req: [u32; N],
}

impl Default for DasdProfile {
    fn default() -> Self {
        DasdProfile {
            on: false,
            reqs: 0,
            sects: 0,
            secs: [0; N],
            times: [0; N],
            timps: [0; N],
            time1: [0; N],
            time2: [0; N],
            time2ps: [0; N],
            time3: [0; N],
            nr_req: [0; N],
        }
    }
}

/// The bucket of `v`: the first i with v < 2^(i+2), at most 31.
pub(crate) fn bucket(v: u64) -> usize {
    let mut i = 0;
    while i < N - 1 && (v >> (2 + i)) != 0 {
        i += 1;
    }
    i
}

/// tunedasd's profile items (`-I`), in its order.
pub const ITEMS: [&str; 10] = [
    "reqs", "sects", "sizes", "total", "totsect", "start", "irq", "irqsect", "end", "queue",
];

impl DasdProfile {
    /// A device's own profile: it counts whenever the driver calls it (the driver calls it
    /// only while its profile is on).
    pub fn counting() -> Self {
        DasdProfile {
            on: true,
            ..DasdProfile::default()
        }
    }

    /// BIODASDPRRST (`tunedasd -R`): the counters cleared.
    pub fn reset(&mut self) {
        self.clear();
    }

    /// What `tunedasd -P` prints (s390-tools tunedasd/src/disk.c, disk_profile_summary):
    /// values divided by a power of ten that keeps the request count below 10,000,000.
    pub fn tunedasd_summary(&self) -> Vec<String> {
        let mut factor = 1u32;
        while self.reqs / factor > 9_999_999 {
            factor *= 10;
        }
        let mut out = vec![
            String::new(),
            format!("{} dasd I/O requests", self.reqs),
            format!("with {} sectors(512B each)", self.sects),
            format!("Scale factor is {factor} "),
            String::new(),
            "   __<4    ___8    __16    __32    __64    _128    _256    _512    __1k    __2k    __4k    __8k    _16k    _32k    _64k    128k".into(),
            "   _256    _512    __1M    __2M    __4M    __8M    _16M    _32M    _64M    128M    256M    512M    __1G    __2G    __4G    _>4G".into(),
        ];
        for (title, a) in self.rows() {
            out.push(title.to_string());
            for half in a.chunks(16) {
                out.push(half.iter().map(|v| format!("{:7} ", v / factor)).collect());
            }
        }
        out
    }

    /// What `tunedasd -P -I ITEM` prints (disk_profile_item): a count, or the 32 buckets
    /// unscaled, each `%10d|`. None: not one of `ITEMS`.
    pub fn tunedasd_item(&self, item: &str) -> Option<String> {
        let a = match item {
            "reqs" => return Some(self.reqs.to_string()),
            "sects" => return Some(self.sects.to_string()),
            "sizes" => &self.secs,
            "total" => &self.times,
            "totsect" => &self.timps,
            "start" => &self.time1,
            "irq" => &self.time2,
            "irqsect" => &self.time2ps,
            "end" => &self.time3,
            "queue" => &self.nr_req,
            _ => return None,
        };
        Some(a.iter().map(|v| format!("{v:10}|")).collect())
    }

    /// The histograms with their titles, as both layouts print them.
    fn rows(&self) -> [(&'static str, &[u32; N]); 8] {
        [
            ("Histogram of sizes (512B secs)", &self.secs),
            ("Histogram of I/O times (microseconds)", &self.times),
            ("Histogram of I/O times per sector", &self.timps),
            ("Histogram of I/O time till ssch", &self.time1),
            ("Histogram of I/O time between ssch and irq", &self.time2),
            (
                "Histogram of I/O time between ssch and irq per sector",
                &self.time2ps,
            ),
            ("Histogram of I/O time between irq and end", &self.time3),
            ("# of req in chanq at enqueuing (1..32) ", &self.nr_req),
        ]
    }

    fn clear(&mut self) {
        *self = DasdProfile {
            on: self.on,
            ..DasdProfile::default()
        };
    }

    /// A request is built while `queued` requests are on its block device's queue.
    pub fn start(&mut self, queued: u32) {
        if self.on {
            self.nr_req[(queued as usize).min(N - 1)] += 1;
        }
    }

    /// A request of `sectors` built at `build`, started at `start`, its interrupt at
    /// `stop` and ended at `end` (ns).
    pub fn end(&mut self, sectors: u64, build: u64, start: u64, stop: u64, end: u64) {
        if !self.on || sectors == 0 {
            return;
        }
        let us = |a: u64, b: u64| b.saturating_sub(a) / 1000;
        let (str_t, irq_t, end_t, tot_t) = (
            us(build, start),
            us(start, stop),
            us(stop, end),
            us(build, end),
        );
        if self.reqs == 0 {
            self.clear();
        }
        self.reqs = self.reqs.wrapping_add(1);
        self.sects = self.sects.wrapping_add(sectors as u32);
        self.secs[bucket(sectors)] += 1;
        self.times[bucket(tot_t)] += 1;
        self.timps[bucket(tot_t / sectors)] += 1;
        self.time1[bucket(str_t)] += 1;
        self.time2[bucket(irq_t)] += 1;
        self.time2ps[bucket(irq_t / sectors)] += 1;
        self.time3[bucket(end_t)] += 1;
    }

    /// `echo TEXT > /proc/dasd/statistics`: false if the kernel refuses it (-EINVAL).
    pub fn write(&mut self, text: &str) -> bool {
        let s = text.trim_start();
        if let Some(rest) = s.strip_prefix("set") {
            if !rest.starts_with(char::is_whitespace) {
                return false;
            }
            match rest.trim_start() {
                "on" => self.on = true,
                "off" => {
                    self.on = false;
                    self.clear();
                }
                _ => return false,
            }
            true
        } else if s.starts_with("reset") {
            self.clear();
            true
        } else {
            false
        }
    }

    /// What `cat /proc/dasd/statistics` prints.
    pub fn render(&self) -> Vec<String> {
        if !self.on {
            return vec![
                "Statistics are off - they might be switched on using 'echo set on > /proc/dasd/statistics'"
                    .into(),
            ];
        }
        let mut shift = 0;
        while (self.reqs >> shift) > 9_999_999 {
            shift += 1;
        }
        let mut out = vec![
            format!("{} dasd I/O requests", self.reqs),
            format!("with {} sectors(512B each)", self.sects),
        ];
        let head = |labels: &[&str]| {
            labels
                .iter()
                .map(|l| format!("   {l}"))
                .collect::<Vec<_>>()
                .join("\t")
        };
        out.push(head(&[
            "__<4", "___8", "__16", "__32", "__64", "_128", "_256", "_512", "__1k", "__2k", "__4k",
            "__8k", "_16k", "_32k", "_64k", "128k",
        ]));
        // The second line's last label follows a blank, not a tab.
        out.push(
            head(&[
                "_256", "_512", "__1M", "__2M", "__4M", "__8M", "_16M", "_32M", "_64M", "128M",
                "256M", "512M", "__1G", "__2G", "__4G",
            ]) + "    _>4G",
        );
        for (title, a) in self.rows() {
            out.push(title.to_string());
            for half in a.chunks(16) {
                out.push(half.iter().map(|v| format!("{:7} ", v >> shift)).collect());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_clears_and_layout() {
        assert_eq!(
            (bucket(0), bucket(3), bucket(4), bucket(7), bucket(8)),
            (0, 0, 1, 1, 2)
        );
        assert_eq!(bucket(u64::MAX), 31);
        let mut p = DasdProfile::default();
        assert!(p.render()[0].starts_with("Statistics are off"));
        p.start(3);
        p.end(8, 0, 10_000, 500_000, 500_000);
        assert_eq!(p.reqs, 0, "off: nothing counted");
        assert!(!p.write("set maybe") && !p.write("seton") && !p.write("frob"));
        assert!(p.write("set on"));
        p.start(3);
        assert_eq!(p.nr_req[3], 1);
        // A 4 KB read: built at 0, started at 10 us, interrupt and end at 500 us.
        p.end(8, 0, 10_000, 500_000, 500_000);
        assert_eq!(
            p.nr_req[3], 0,
            "the first end after a clear clears the profile"
        );
        assert_eq!((p.reqs, p.sects), (1, 8));
        assert_eq!(p.secs[2], 1); // 8 sectors: below 16
        assert_eq!(p.times[7], 1); // 500 us: below 512
        assert_eq!(p.timps[4], 1); // 62 us per sector: below 64
        assert_eq!(p.time1[2], 1); // 10 us
        assert_eq!(p.time2[7], 1); // 490 us
        assert_eq!(p.time3[0], 1);
        let r = p.render();
        assert_eq!(r.len(), 4 + 8 * 3);
        assert_eq!(r[0], "1 dasd I/O requests");
        assert_eq!(r[1], "with 8 sectors(512B each)");
        assert!(r[2].starts_with("   __<4\t   ___8\t") && r[2].ends_with("\t   128k"));
        assert!(r[3].ends_with("\t   __4G    _>4G"), "{:?}", r[3]);
        assert_eq!(r[5].len(), 16 * 8);
        assert!(r[5].starts_with("      0       0       1 "));
        assert!(p.write("reset"));
        assert_eq!(p.reqs, 0);
        assert!(p.on);
        assert!(p.write("set off"));
        assert!(!p.on);
    }
}
