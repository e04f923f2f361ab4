//! The DASD driver's statistics in debugfs (kernels from 3.x; read in the RHEL 8.1 kernel,
//! 4.18.0-147, drivers/s390/block/dasd.c, and Ubuntu's 4.18.20, the same): one profile in
//! `/sys/kernel/debug/dasd/global/statistics`, one per block device (`dasd/dasda/`) and one
//! per ccw device by bus ID (`dasd/0.0.b9e0/`), aliases included: seed 003's "statistics for
//! HyperPAV alias devices in /sys/kernel/debug/dasd".
//!
//! Facts: each profile is off (`disabled`) until `on` is written to its own file; `off` frees
//! it, `reset` clears it and restarts its clock; the words are matched by prefix after leading
//! blanks, anything else is -EINVAL. A request that ends updates the global profile, its block
//! device's and the profile of the device it was started on: its count and sectors, whether it
//! ran on an alias (`total_pav`: start device not the base) and in transport mode
//! (`total_hpf`), the sums of its times, and the 2.6 profile's seven histograms (buckets as in
//! `dasdprof.rs`), with a read section besides. When it is built, the global and block
//! profiles count the requests on the block's queue including it, the device profile one more
//! than the requests on the start device's queue; both capped at 31.
//!
//! zvmsim's requests end when their interrupt is handled (the irq-to-end time is 0, as in
//! `dasdprof.rs`), and with High Performance FICON on the channels every request is taken to
//! run in transport mode (inference: the ECKD discipline builds a TCW for the requests it
//! can, and fio's 4K-128K requests are within its limits).

use super::dasdprof::bucket;

const N: usize = 32;
/// The histograms of all requests, in the order the file prints them.
pub(crate) const IO: [&str; 8] = [
    "histogram_sectors",
    "histogram_io_times",
    "histogram_io_times_weighted",
    "histogram_time_build_to_ssch",
    "histogram_time_ssch_to_irq",
    "histogram_time_ssch_to_irq_weighted",
    "histogram_time_irq_to_end",
    "histogram_ccw_queue_length",
];
/// The read section's histograms.
pub(crate) const READ: [&str; 6] = [
    "histogram_read_sectors",
    "histogram_read_times",
    "histogram_read_time_build_to_ssch",
    "histogram_read_time_ssch_to_irq",
    "histogram_read_time_irq_to_end",
    "histogram_read_ccw_queue_length",
];

/// One ended request, as the profiles take it (times in ns of simulated time).
#[derive(Debug, Clone, Copy)]
pub struct Ended {
    pub sectors: u64,
    pub alias: bool,
    pub tpm: bool,
    pub read: bool,
    pub build: u64,
    pub start: u64,
    pub stop: u64,
    pub end: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Data {
    /// When it was switched on or reset (ns after IPL).
    since: u64,
    reqs: u32,
    sects: u32,
    alias: u32,
    tpm: u32,
    /// Sums of the total, build-to-SSCH, SSCH-to-interrupt and interrupt-to-end times, µs.
    sums: [u64; 4],
    io: [[u32; N]; 8],
    read_reqs: u32,
    read_sects: u32,
    read_alias: u32,
    read_tpm: u32,
    read: [[u32; N]; 6],
}

impl Data {
    fn new(since: u64) -> Box<Self> {
        Box::new(Data {
            since,
            reqs: 0,
            sects: 0,
            alias: 0,
            tpm: 0,
            sums: [0; 4],
            io: [[0; N]; 8],
            read_reqs: 0,
            read_sects: 0,
            read_alias: 0,
            read_tpm: 0,
            read: [[0; N]; 6],
        })
    }
}

/// One statistics file's profile: None while off.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DebugProfile(Option<Box<Data>>);

impl DebugProfile {
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// `echo TEXT >` the file at `now`: false for what the kernel refuses (-EINVAL).
    pub fn write(&mut self, text: &str, now: u64) -> bool {
        let s = text.trim_start();
        if s.starts_with("reset") {
            if let Some(d) = &mut self.0 {
                *d = Data::new(now);
            }
        } else if s.starts_with("on") {
            if self.0.is_none() {
                self.0 = Some(Data::new(now));
            }
        } else if s.starts_with("off") {
            self.0 = None;
        } else {
            return false;
        }
        true
    }

    /// A request is built with `counter` requests on the queue this profile counts.
    fn start(&mut self, counter: u32, read: bool) {
        if let Some(d) = &mut self.0 {
            let i = (counter as usize).min(N - 1);
            d.io[7][i] += 1;
            if read {
                d.read[5][i] += 1;
            }
        }
    }

    fn end(&mut self, e: &Ended) {
        let Some(d) = &mut self.0 else { return };
        if e.sectors == 0 {
            return;
        }
        let us = |a: u64, b: u64| b.saturating_sub(a) / 1000;
        let (str_t, irq_t, end_t, tot_t) = (
            us(e.build, e.start),
            us(e.start, e.stop),
            us(e.stop, e.end),
            us(e.build, e.end),
        );
        if d.reqs == u32::MAX {
            **d = *Data::new(e.end);
        }
        d.reqs += 1;
        d.sects = d.sects.wrapping_add(e.sectors as u32);
        d.alias += e.alias as u32;
        d.tpm += e.tpm as u32;
        for (s, v) in d.sums.iter_mut().zip([tot_t, str_t, irq_t, end_t]) {
            *s += v;
        }
        let idx = [
            bucket(e.sectors),
            bucket(tot_t),
            bucket(tot_t / e.sectors),
            bucket(str_t),
            bucket(irq_t),
            bucket(irq_t / e.sectors),
            bucket(end_t),
        ];
        for (h, &i) in d.io.iter_mut().zip(&idx) {
            h[i] += 1;
        }
        if e.read {
            d.read_reqs += 1;
            d.read_sects = d.read_sects.wrapping_add(e.sectors as u32);
            d.read_alias += e.alias as u32;
            d.read_tpm += e.tpm as u32;
            for (h, &i) in d
                .read
                .iter_mut()
                .zip([idx[0], idx[1], idx[3], idx[4], idx[6]].iter())
            {
                h[i] += 1;
            }
        }
    }

    /// What `cat` of the file prints; `epoch_s` is the wall-clock second of the IPL.
    pub fn render(&self, epoch_s: u64) -> Vec<String> {
        let Some(d) = &self.0 else {
            return vec!["disabled".into()];
        };
        let hist = |name: &str, a: &[u32; N]| {
            let mut s = format!("{name} ");
            for v in a {
                s.push_str(&format!("{v} "));
            }
            s
        };
        let avg = |sum: u64| if d.reqs > 0 { sum / d.reqs as u64 } else { 0 };
        let mut out = vec![
            format!(
                "start_time {}.{:09}",
                epoch_s + d.since / 1_000_000_000,
                d.since % 1_000_000_000
            ),
            format!("total_requests {}", d.reqs),
            format!("total_sectors {}", d.sects),
            format!("total_pav {}", d.alias),
            format!("total_hpf {}", d.tpm),
            format!("avg_total {}", avg(d.sums[0])),
            format!("avg_build_to_ssch {}", avg(d.sums[1])),
            format!("avg_ssch_to_irq {}", avg(d.sums[2])),
            format!("avg_irq_to_end {}", avg(d.sums[3])),
        ];
        out.extend(IO.iter().zip(&d.io).map(|(n, a)| hist(n, a)));
        out.push(format!("total_read_requests {}", d.read_reqs));
        out.push(format!("total_read_sectors {}", d.read_sects));
        out.push(format!("total_read_pav {}", d.read_alias));
        out.push(format!("total_read_hpf {}", d.read_tpm));
        out.extend(READ.iter().zip(&d.read).map(|(n, a)| hist(n, a)));
        out
    }
}

/// The driver's debugfs profiles: global, per block device and per ccw device (by the
/// driver's device index).
#[derive(Debug, Clone, Default)]
pub struct DebugFs {
    pub global: DebugProfile,
    pub block: Vec<DebugProfile>,
    pub device: Vec<DebugProfile>,
    /// Requests run in transport mode (High Performance FICON on the channels).
    pub tpm: bool,
}

impl DebugFs {
    /// Whether any profile counts (the driver skips the calls otherwise).
    pub fn any_on(&self) -> bool {
        self.global.is_on()
            || self.block.iter().any(DebugProfile::is_on)
            || self.device.iter().any(DebugProfile::is_on)
    }

    /// The profile of a file: `block` true for a block device's, else a ccw device's.
    pub fn profile(&mut self, dev: u32, block: bool) -> &mut DebugProfile {
        let v = if block {
            &mut self.block
        } else {
            &mut self.device
        };
        if v.len() <= dev as usize {
            v.resize(dev as usize + 1, DebugProfile::default());
        }
        &mut v[dev as usize]
    }

    /// A request for block device `b` is built to start on device `dev`: `on_block` requests
    /// on the block's queue with it, `on_dev` on the start device's queue before it.
    pub fn start(&mut self, b: u32, dev: u32, on_block: u32, on_dev: u32, read: bool) {
        self.global.start(on_block, read);
        self.profile(b, true).start(on_block, read);
        self.profile(dev, false).start(on_dev + 1, read);
    }

    /// A request of block device `b`, started on `dev`, ended.
    pub fn end(&mut self, b: u32, dev: u32, e: &Ended) {
        self.global.end(e);
        self.profile(b, true).end(e);
        self.profile(dev, false).end(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switched_per_file_and_counted_where_the_request_ran() {
        let mut fs = DebugFs {
            tpm: true,
            ..Default::default()
        };
        assert_eq!(fs.global.render(0), ["disabled"]);
        assert!(!fs.any_on());
        // The words by prefix, after blanks; `set on` is /proc's syntax, refused here.
        assert!(!fs.profile(1, false).write("set on", 0));
        assert!(fs.profile(1, false).write("  onward", 2_000_000_000));
        assert!(fs.global.write("on", 0));
        assert!(fs.any_on());
        // A 4 KB read of block device 0 started on alias 1: built at 0, SSCH at 10 µs,
        // interrupt and end at 500 µs.
        fs.start(0, 1, 1, 0, true);
        let e = Ended {
            sectors: 8,
            alias: true,
            tpm: true,
            read: true,
            build: 0,
            start: 10_000,
            stop: 500_000,
            end: 500_000,
        };
        fs.end(0, 1, &e);
        let g = fs.global.render(1_700_000_000);
        assert_eq!(g[0], "start_time 1700000000.000000000");
        assert_eq!(
            &g[1..9],
            [
                "total_requests 1",
                "total_sectors 8",
                "total_pav 1",
                "total_hpf 1",
                "avg_total 500",
                "avg_build_to_ssch 10",
                "avg_ssch_to_irq 490",
                "avg_irq_to_end 0",
            ]
        );
        assert!(g[9].starts_with("histogram_sectors 0 0 1 0 ") && g[9].ends_with(" 0 "));
        assert_eq!(g[9].split(' ').count(), 1 + 32 + 1);
        assert!(
            g[16].starts_with("histogram_ccw_queue_length 0 1 0 "),
            "{}",
            g[16]
        );
        assert_eq!(g[17], "total_read_requests 1");
        assert_eq!(g.len(), 1 + 8 + 8 + 4 + 6);
        // The alias's own file counted it (queue: 1 with nothing before it); the block's
        // profile is off.
        let a = fs.profile(1, false).render(1_700_000_000);
        assert_eq!(
            (a[0].as_str(), a[3].as_str()),
            ("start_time 1700000002.000000000", "total_pav 1")
        );
        assert!(a[16].starts_with("histogram_ccw_queue_length 0 1 0 "));
        assert_eq!(fs.profile(0, true).render(0), ["disabled"]);
        assert!(fs.global.write("reset", 3_000_000_000));
        assert_eq!(fs.global.render(0)[1], "total_requests 0");
        assert!(fs.global.write("off\n", 0) && !fs.global.is_on());
        assert!(!fs.global.write("frob", 0));
    }
}
