//! FCP: SCSI LUNs behind FCP channels (zfcp), the server's fixed-block volumes. A LUN's path
//! is fixed (its channel, host adapter and rank, as the zfcp configuration names them); SCSI
//! has no extents to serialize and no CKD emulation. zfcp's queue depth is modelled as command
//! slots, each running one command at a time.

use super::channel::Channels;
use super::extent;
use super::server::{Data, Staged};
use super::subchannel::Subchannel;
use super::{IoId, IoRequest, IoSystem, SubKind, SubOwner, FCP, NONE};
use crate::engine::rng::Stream;

impl IoSystem {
    /// FCP channels and the LUNs' command slots (`queue_depth` subchannel-like slots per LUN,
    /// each running one SCSI command at a time), each LUN on its rank.
    pub(super) fn configure_fcp(
        &mut self,
        f: &crate::config::io::FcpSpec,
        staged: &mut Staged,
    ) -> Result<(), String> {
        let spec = crate::config::io::ChannelSpec {
            count: f.chpids.max(1),
            speed: f.speed,
            zhpf: false,
            exchanges: u32::MAX,
            ficon_overhead: f.overhead,
            ..Default::default()
        };
        check_rates(f)?;
        let mut ch = Channels::new(&spec, Stream::new(0, 0));
        if let Some(r) = f.channel_rate {
            ch.limit_rate(r.bytes());
        }
        if let Some(r) = f.write_rate {
            ch.limit_write_rate(r.bytes());
        }
        self.fcp_chans = Some(ch);
        // Bytes already placed per rank.
        let mut used: Vec<u64> = Vec::new();
        let depth = f.queue_depth.max(1);
        for (li, l) in f.luns.iter().enumerate() {
            let first = crate::config::io::parse_rdev(&l.rdev)
                .ok_or_else(|| format!("io.fcp.luns[{li}].rdev: `{}` is not hex", l.rdev))?;
            if l.chpid >= f.chpids.max(1) {
                return Err(format!(
                    "io.fcp.luns[{li}].chpid: channel {} of {} (chpids): give 0 to {}",
                    l.chpid,
                    f.chpids.max(1),
                    f.chpids.max(1) - 1
                ));
            }
            // A LUN's path and place are fixed: its host adapter and rank must exist, and
            // the LUNs of a rank must fit in its data (checked before any is allocated).
            let ranks = staged.ranks().count();
            if l.rank as u64 >= ranks {
                return Err(format!(
                    "io.fcp.luns[{li}].rank: rank {} of {ranks} (io.server.ranks): give 0 to {}",
                    l.rank,
                    ranks - 1
                ));
            }
            let ports = staged.ports();
            if l.host_adapter >= ports {
                return Err(format!(
                    "io.fcp.luns[{li}].host_adapter: port {} of {ports} (io.server.host_adapters): give 0 to {}",
                    l.host_adapter,
                    ports - 1
                ));
            }
            if l.size.bytes() < 4096 {
                return Err(format!(
                    "io.fcp.luns[{li}].size: {} holds no 4 KB block; give a size of at least 4K",
                    l.size.bytes()
                ));
            }
            let r = l.rank as usize;
            if used.len() <= r {
                used.resize(r + 1, 0);
            }
            let room = staged.ranks().data_bytes();
            let need = (l.count as u64)
                .checked_mul(l.size.bytes())
                .and_then(|b| b.checked_add(used[r]));
            if need.map_or(true, |n| n > room) {
                return Err(format!(
                    "io.fcp.luns[{li}].size: {} LUNs of {} bytes do not fit on rank {} with {} bytes of data ({} bytes already placed)",
                    l.count,
                    l.size.bytes(),
                    l.rank,
                    room,
                    used[r]
                ));
            }
            for k in 0..l.count {
                let vol = staged.add_volume_on(l.size.bytes(), l.rank, used[r]);
                used[r] += l.size.bytes();
                self.extents.push(extent::Extents::default());
                for s in 0..depth {
                    let rdev = (first as u64 + k as u64 * depth as u64 + s as u64)
                        .try_into()
                        .map_err(|_| format!("io.fcp.luns[{li}]: range passes FFFF"))?;
                    self.unique(rdev)
                        .map_err(|e| format!("io.fcp.luns[{li}].rdev: {e}"))?;
                    let mut sc = Subchannel::new(rdev, SubKind::Base, FCP, 0.0);
                    sc.owner = SubOwner::Free;
                    self.subs.push(sc);
                    self.vol_of.push(vol);
                    self.fcp_path.resize(self.subs.len() - 1, None);
                    self.fcp_path.push(Some((l.chpid, l.host_adapter)));
                }
            }
        }
        Ok(())
    }

    /// FCP LUN command slots: (subchannel, first slot of its LUN, 4 KB blocks).
    pub fn fcp_slots(&self) -> Vec<(u32, bool, u64)> {
        let mut out = Vec::new();
        let mut last_vol = NONE;
        for (i, p) in self.fcp_path.iter().enumerate() {
            if p.is_some() {
                let v = self.vol_of[i];
                let blocks = self
                    .server
                    .staged
                    .as_ref()
                    .map_or(0, |s| s.volume_blocks(v));
                out.push((i as u32, v != last_vol, blocks));
                last_vol = v;
            }
        }
        out
    }

    /// A SCSI command on an FCP LUN: its channel, the switch, its host adapter, the server.
    pub(super) fn fcp_service(
        &mut self,
        id: IoId,
        vol: u32,
        r: &IoRequest,
        now: u64,
        fp: (u32, u32),
    ) -> u64 {
        let (Some(ch), Some(sv)) = (self.fcp_chans.as_mut(), self.server.staged.as_mut()) else {
            return now;
        };
        let p = ch.take(fp.0);
        self.path_of[id.0 as usize] = p;
        self.typed.staged.add(r.pages);
        let half = ch.overhead_ns / 2;
        let bytes = r.pages as u64 * 4096;
        let at_server = sv.adapter(fp.1, now + half);
        let flags = Data {
            write: r.write,
            ckd: false,
        };
        let data_end = if r.write {
            let arrived = ch.transfer_out(p, at_server, bytes);
            let moved = sv.adapter_data(fp.1, vol, at_server, bytes, flags);
            sv.write(vol, r.block, r.pages as u64, arrived.max(moved))
        } else {
            let ready = sv.read(vol, r.block, r.pages as u64, at_server);
            ch.transfer(p, ready, bytes)
                .max(sv.adapter_data(fp.1, vol, ready, bytes, flags))
        };
        data_end + (ch.overhead_ns - half)
    }
}

/// The link speed and the channel's data rates are above 0 (a zero rate would stretch every
/// transfer to hours), and the write rate is at most the reads' (Channels::limit_write_rate
/// would silently take the reads' rate for a higher one).
fn check_rates(f: &crate::config::io::FcpSpec) -> Result<(), String> {
    if f.speed == 0 {
        return Err(
            "io.fcp.speed: a link of 0 Gbit/s moves no data; give the link speed (2 for 2 Gbit/s FCP)"
                .into(),
        );
    }
    for (field, rate) in [
        ("channel_rate", f.channel_rate),
        ("write_rate", f.write_rate),
    ] {
        if rate.is_some_and(|r| r.bytes() == 0) {
            return Err(format!(
                "io.fcp.{field}: a rate of 0 moves no data; give bytes per second above 0"
            ));
        }
    }
    let Some(w) = f.write_rate else {
        return Ok(());
    };
    // The link's rate as Channels::new takes it: 100 MB/s per Gbit/s.
    let link = u64::from(f.speed.max(1)) * 100_000_000;
    let (read, what) = match f.channel_rate {
        Some(r) if r.bytes() < link => (r.bytes(), format!("channel_rate {r}")),
        _ => (link, format!("the link's {} Gbit/s", f.speed.max(1))),
    };
    if w.bytes() > read {
        return Err(format!(
            "io.fcp.write_rate: {w} per second is above the channel's {read} bytes per second ({what}); a channel writes at most as fast as it reads"
        ));
    }
    Ok(())
}
