//! A guest's Linux settings (`[guests.linux]`): its kernel's size, swap, memory tunables,
//! boot parameters, and the DASD driver's defaults of the kernel level it runs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::units::Size;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinuxSpec {
    /// Kernel, modules and program text: referenced by every transaction.
    #[serde(default = "default_kernel")]
    pub kernel: Size,
    /// Linux swap space on the guest's swap DASD.
    #[serde(default)]
    pub swap: Size,
    /// pfault handshaking: a host page fault blocks only the faulting process (Linux default).
    #[serde(default = "yes")]
    pub pfault: bool,
    /// vm.min_free_kbytes-style floor of free memory, as a size.
    #[serde(default = "default_min_free")]
    pub min_free: Size,
    /// vm.swappiness (0-100): how readily reclaim swaps anonymous memory rather than
    /// dropping page cache.
    #[serde(default = "default_swappiness")]
    pub swappiness: u32,
    /// vm.page-cluster: a major fault reads 2^page_cluster swap slots at once (readahead).
    #[serde(default = "default_page_cluster")]
    pub page_cluster: u32,
    /// The kernel parameter line, as the `parameters = "..."` line of zipl.conf gives it
    /// (e.g. "root=/dev/dasda1 cmma=on"); `cat /proc/cmdline` prints it. Left out of the
    /// serialized scenario when empty, so that existing scenarios keep their hash.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parameters: String,
    /// The cache attribute the DASD driver gives each ECKD device when it comes online
    /// (what `tunedasd -g` shows and `tunedasd -c MODE -n CYL` changes). Current kernels:
    /// normal, 0 cylinders (the default). Left out of the serialized scenario when it is
    /// the default, so that existing scenarios keep their hash.
    #[serde(default, skip_serializing_if = "DasdCache::is_default")]
    pub dasd_cache: DasdCache,
    /// The requests the DASD driver builds per device (base or alias) before it refuses
    /// (-EBUSY) and blk-mq holds the rest (`linux/blkmq.rs`); 0: no limit. Absent: the
    /// kernel's own, see [`LinuxSpec::request_limit`] (4 from the blk-mq DASD driver of
    /// 4.14 on, `DASD_ECKD_CHANQ_MAX_SIZE`; none without a release). Left out of the
    /// serialized scenario when absent, so that existing scenarios keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dasd_request_limit: Option<u32>,
    /// The kernel's release (`uname -r`, e.g. "2.6.32.19"), where a mechanism differs by
    /// kernel level; absent: the rules zvmsim's sources state without a level (the memory map
    /// up to mem=, seed 001). See [`LinuxSpec::maps_absent_memory`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// The storage this Linux had used when the run starts: kernel, programs, page cache,
    /// and the free pages it had handed out since IPL (what INDICATE USER shows as the
    /// guest's resident and paged-out pages together). CP never backed the rest, so it costs
    /// no frame, no slot, and here no memory. The pages the guest's workload holds (its
    /// shared memory, its page cache at the warm start) count as used whatever this says;
    /// the guest may use more as it runs. Absent: all of its storage (a Linux that has run for
    /// a while has filled its memory with page cache). Left out of the serialized scenario
    /// when absent, so that existing scenarios keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used: Option<Size>,
    /// The file system of the workload's data files, for what the kernel keeps with each
    /// page-cache page (`FileSystem`). Absent: ext3 (inference: the seeds do not name the
    /// database's file system). Left out of the serialized scenario when absent, so that
    /// existing scenarios keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filesystem: Option<FileSystem>,
    /// The distribution, as users name it ("SLES 10 SP1", "RHEL 8.1"): its user space, the
    /// commands its shell finds and the layouts zvmsim prints for them (`linux/distro.rs`).
    /// The kernel's mechanisms follow `release`. Absent: SLES 10/11. Left out of the
    /// serialized scenario when absent, so that existing scenarios keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<String>,
}

/// A Linux 2.6 file system, by what its page-cache pages carry. A page with buffer heads
/// attached (PagePrivate) never becomes volatile under CMMA: the guest page hinting patches'
/// `check_bits` (mm/page-states.c, Schwidefsky, Franke and Raj, 2006 and 2007 versions)
/// refuses it. ext2 and ext3 read a file's pages with `mpage_readpage(s)`, which attaches no
/// buffers when a page's blocks are contiguous, and write through `block_prepare_write`,
/// which attaches them (`create_empty_buffers`); they stay until the page leaves the page
/// cache (`try_to_release_page`). reiserfs 3 reads with `block_read_full_page`, so every
/// page it reads has buffers as well. ext2, and ext3 with `data=writeback`, mounted with
/// `-o nobh` write through `nobh_prepare_write` and attach none ("ext2-nobh", "ext3-nobh").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FileSystem {
    Ext2,
    #[default]
    Ext3,
    Reiserfs,
    Ext2Nobh,
    Ext3Nobh,
}

impl FileSystem {
    /// A page read from a file gets buffer heads.
    pub fn buffers_on_read(self) -> bool {
        self == FileSystem::Reiserfs
    }
    /// A page written to a file gets buffer heads.
    pub fn buffers_on_write(self) -> bool {
        !matches!(self, FileSystem::Ext2Nobh | FileSystem::Ext3Nobh)
    }
}

/// A DASD's cache attribute: the caching mode its channel programs' Define Extent asks the
/// control unit for, and for sequential access and prestage the cylinders the extent reaches
/// past a request's last track (drivers/s390/block/dasd_eckd.c, `define_extent`: "check for
/// sequential prestage - enhance cylinder range").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DasdCache {
    #[serde(default)]
    pub mode: DasdCacheMode,
    /// `tunedasd -n`: cylinders added to the extent's end (sequential and prestage only).
    #[serde(default)]
    pub cylinders: u32,
}

impl DasdCache {
    fn is_default(&self) -> bool {
        *self == DasdCache::default()
    }

    /// The last track of a request's Define Extent on a device of `cylinders` cylinders
    /// (15 tracks each), for a request whose data ends on track `last`: the end cylinder
    /// moves on by `self.cylinders` in sequential and prestage modes, to the device's last
    /// cylinder at most; the end head stays.
    pub fn extent_end(&self, last: u64, cylinders: u64) -> u64 {
        const HEADS: u64 = 15;
        let (cyl, head) = (last / HEADS, last % HEADS);
        let cyl = match self.mode {
            DasdCacheMode::Sequential | DasdCacheMode::Prestage => {
                if cyl + (self.cylinders as u64) < cylinders {
                    cyl + self.cylinders as u64
                } else {
                    cylinders.saturating_sub(1).max(cyl)
                }
            }
            _ => cyl,
        };
        cyl * HEADS + head
    }
}

/// The caching modes, by tunedasd's names (dasd.h: DASD_NORMAL_CACHE 0, DASD_BYPASS_CACHE
/// 1, DASD_INHIBIT_LOAD 2, DASD_SEQ_ACCESS 3, DASD_SEQ_PRESTAGE 4, DASD_REC_ACCESS 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DasdCacheMode {
    #[default]
    Normal,
    Bypass,
    Inhibit,
    Sequential,
    Prestage,
    Record,
}

/// The s390 kernel from which a saved segment gets no struct pages (Carsten Otte, "s390:
/// remove struct page entries for DCSS memory segments", linux-mm, April 2008, with the
/// struct-page-less XIP of the same series; 2.6.26). The virtual memory map before it
/// (arch/s390/mm/vmem.c, 2006) already backed struct pages only for the storage found at
/// boot and for each segment loaded, never for the addresses between them up to mem=.
const SEGMENTS_WITHOUT_STRUCT_PAGES: (u32, u32, u32) = (2, 6, 26);

/// The DASD driver became a blk-mq driver in 4.14 (commit e443343e509a, "s390/dasd: blk-mq
/// conversion"; its fixes are marked for stable "v4.14+").
const BLK_MQ_DASD: (u32, u32, u32) = (4, 14, 0);

/// `struct dasd_block` and its tasklet came with HyperPAV support in 2.6.25 (commit
/// 8e09f21574ea; its fixes are marked for stable "2.6.25+").
const DASD_BLOCK: (u32, u32, u32) = (2, 6, 25);

impl LinuxSpec {
    /// The release as (version, patchlevel, sublevel); an error names what is wrong.
    pub fn release_version(&self) -> Result<Option<(u32, u32, u32)>, String> {
        let Some(r) = &self.release else {
            return Ok(None);
        };
        // "2.6.32.19-0.3-default": the numbers before the first '-', at least two of them.
        let nums: Vec<Option<u32>> = r
            .split('-')
            .next()
            .unwrap_or("")
            .split('.')
            .map(|x| x.parse().ok())
            .collect();
        match nums.as_slice() {
            [Some(a), Some(b), rest @ ..] if rest.iter().all(Option::is_some) => {
                Ok(Some((*a, *b, rest.first().copied().flatten().unwrap_or(0))))
            }
            _ => Err(format!(
                "kernel release `{r}` is not a version such as 2.6.32.19 (as uname -r prints it)"
            )),
        }
    }

    /// Whether mem= above the guest's storage costs kernel memory: 64 bytes per 4 KB page up
    /// to mem= (seed 001's rule, kept when no release is given or for kernels before 2.6.26).
    /// From 2.6.26 the kernel builds struct pages for its own storage only; mem= then only
    /// bounds where a segment may be loaded.
    pub fn maps_absent_memory(&self) -> bool {
        match self.release_version() {
            Ok(Some(v)) => v < SEGMENTS_WITHOUT_STRUCT_PAGES,
            _ => true,
        }
    }

    /// The requests the DASD driver builds per device: `dasd_request_limit` if given, else
    /// the kernel's: from 4.14, whose DASD driver is a blk-mq driver ("s390/dasd: blk-mq
    /// conversion", e443343e509a), `dasd_eckd_build_alias_cp` refuses a fifth request on a
    /// device (`DASD_ECKD_CHANQ_MAX_SIZE`, 4) and blk-mq holds it (`linux/blkmq.rs`); no limit
    /// without a release or for older kernels (whose request-function driver the model does
    /// not have).
    pub fn request_limit(&self) -> u32 {
        if let Some(n) = self.dasd_request_limit {
            return n;
        }
        match self.release_version() {
            Ok(Some(v)) if v >= BLK_MQ_DASD => crate::linux::dasd::CHANQ_MAX,
            _ => 0,
        }
    }

    /// Whether the DASD driver's requests pass their block device's tasklet
    /// (`linux/dasdblock.rs`): from 2.6.25, whose driver split `struct dasd_block` (one per
    /// volume, base and aliases) from `struct dasd_device` with its HyperPAV support
    /// ("[S390] dasd: add hyper PAV support to DASD device driver, part 1", 8e09f21574ea).
    /// Without a release the model's DASD driver has no such stage.
    pub fn dasd_block_tasklet(&self) -> bool {
        matches!(self.release_version(), Ok(Some(v)) if v >= DASD_BLOCK)
    }

    /// The distribution's user-space generation (SLES 10/11 when absent or not one zvmsim
    /// knows, which validation refuses).
    pub fn userland(&self) -> crate::linux::distro::Userland {
        self.distribution
            .as_deref()
            .and_then(|d| crate::linux::distro::parse(d).ok())
            .unwrap_or_default()
    }

    /// The boot parameters ask for CMMA (`cmma=on`); see [`crate::linux::cmdline::cmma`].
    pub fn cmma(&self) -> bool {
        crate::linux::cmdline::cmma(&self.parameters)
    }

    /// The guest pages Linux had used when the run starts, in a guest of `storage_pages`
    /// (`used`, else all of them).
    pub fn used_pages(&self, storage_pages: u64) -> u64 {
        self.used
            .map_or(storage_pages, |u| u.pages().min(storage_pages))
    }

    /// The guest pages Linux uses: a `mem=` below the storage stops it there (the kernel
    /// limits its memory to mem=, Documentation/admin-guide/kernel-parameters.txt), the rest
    /// of the virtual machine's storage is never touched.
    pub fn usable_pages(&self, storage_pages: u64) -> u64 {
        crate::linux::cmdline::mem_pages(&self.parameters)
            .map_or(storage_pages, |m| m.min(storage_pages))
    }

    /// The kernel's pages in a guest of `storage_pages`: `kernel`, and the memory map of a
    /// `mem=` above the storage (see [`crate::linux::cmdline::mem_map_extra`]).
    pub fn kernel_pages(&self, storage_pages: u64) -> u64 {
        // Kernels from 2.6.26 map only the storage they have (maps_absent_memory).
        let map = match self.maps_absent_memory() {
            true => crate::linux::cmdline::mem_map_extra(&self.parameters, storage_pages),
            false => 0,
        };
        self.kernel.pages().saturating_add(map)
    }
}

fn default_page_cluster() -> u32 {
    crate::linux::memory::DEFAULT_PAGE_CLUSTER
}

fn default_swappiness() -> u32 {
    crate::linux::memory::DEFAULT_SWAPPINESS
}

fn default_kernel() -> Size {
    Size(256 << 20)
}
fn default_min_free() -> Size {
    Size(16 << 20)
}
fn yes() -> bool {
    true
}

impl Default for LinuxSpec {
    fn default() -> Self {
        LinuxSpec {
            kernel: default_kernel(),
            swap: Size(0),
            pfault: true,
            min_free: default_min_free(),
            swappiness: default_swappiness(),
            page_cluster: default_page_cluster(),
            parameters: String::new(),
            dasd_cache: DasdCache::default(),
            dasd_request_limit: None,
            release: None,
            used: None,
            filesystem: None,
            distribution: None,
        }
    }
}

/// The checks of a guest's `[guests.linux]` against its storage and volumes: the field (under
/// the guest) at fault and why.
pub(crate) fn check_guest_linux(
    g: &crate::config::scenario::GuestSpec,
) -> Result<(), (&'static str, String)> {
    use crate::config::scenario::DasdUse;
    let l = &g.linux;
    let kernel = l.kernel_pages(g.storage.pages());
    if kernel > l.kernel.pages() && kernel.saturating_add(l.min_free.pages()) >= g.storage.pages() {
        // Linux could not boot: the memory map of mem= leaves no memory.
        return Err((
            "linux.parameters",
            format!(
                "the memory map up to {} (64 bytes per 4 KB page) and kernel {} do not fit in guest storage {}",
                l.parameters.split_whitespace().find(|p| p.starts_with("mem=")).unwrap_or("mem="), l.kernel, g.storage
            ),
        ));
    }
    let usable = l.usable_pages(g.storage.pages());
    if usable < g.storage.pages() && l.kernel.pages() + l.min_free.pages() >= usable {
        return Err((
            "linux.parameters",
            format!(
                "kernel {} does not fit in the {} that mem= leaves Linux of guest storage {}",
                l.kernel,
                crate::config::units::Size(usable * 4096),
                g.storage
            ),
        ));
    }
    if l.kernel.pages() + l.min_free.pages() >= g.storage.pages() {
        return Err((
            "linux.kernel",
            format!(
                "kernel {} does not fit in guest storage {}",
                l.kernel, g.storage
            ),
        ));
    }
    if let Some(u) = l.used {
        if u.pages() > usable || u.pages() < kernel {
            return Err((
                "linux.used",
                format!(
                    "used {u} must lie between the kernel's {} and guest storage {}",
                    crate::config::units::Size(kernel * 4096),
                    g.storage
                ),
            ));
        }
    }
    if let Err(e) = l.release_version() {
        return Err(("linux.release", e));
    }
    if let Some(Err(e)) = l.distribution.as_deref().map(crate::linux::distro::parse) {
        return Err(("linux.distribution", e));
    }
    if let (true, Ok(Some(v))) = (l.userland().kernel24(), l.release_version()) {
        if (v.0, v.1) != (2, 4) {
            return Err((
                "linux.release",
                format!(
                    "SLES 8 runs a 2.4 kernel (2.4.19 or 2.4.21), not `{}`",
                    l.release.as_deref().unwrap_or("")
                ),
            ));
        }
    }
    if l.swappiness > 100 {
        return Err((
            "linux.swappiness",
            format!("vm.swappiness {} must lie in 0-100", l.swappiness),
        ));
    }
    if l.page_cluster > 8 {
        return Err((
            "linux.page_cluster",
            format!(
                "vm.page-cluster {} reads 2^{} pages per fault; give 0 to 8",
                l.page_cluster, l.page_cluster
            ),
        ));
    }
    if l.swap.pages() > 0 {
        let room = g.dasd_pages(DasdUse::Swap);
        if room == 0 {
            return Err((
                "linux.swap",
                format!(
                    "swap {} needs a swap volume: give the guest DASD with use = \"swap\"",
                    l.swap
                ),
            ));
        }
        if l.swap.pages() > room {
            return Err((
                "linux.swap",
                format!(
                    "swap {} does not fit on the guest's swap volumes ({} pages)",
                    l.swap, room
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_below_the_storage_limits_linux() {
        let with = |p: &str| LinuxSpec {
            parameters: p.into(),
            ..Default::default()
        };
        let storage = 131_072; // 512 MB
        assert_eq!(with("root=/dev/dasda1").usable_pages(storage), storage);
        assert_eq!(with("mem=256M").usable_pages(storage), 65_536);
        // Above the storage: Linux has what the machine has (the map is the kernel's cost).
        assert_eq!(with("mem=1536M").usable_pages(storage), storage);
    }

    #[test]
    fn the_release_decides_the_dasd_request_limit_and_block_tasklet_unless_given() {
        let with = |r: Option<&str>, limit: Option<u32>| LinuxSpec {
            release: r.map(String::from),
            dasd_request_limit: limit,
            ..Default::default()
        };
        let none = with(None, None);
        assert_eq!(
            (none.request_limit(), none.dasd_block_tasklet()),
            (0, false)
        );
        let rhel81 = with(Some("4.18.0-147.el8.s390x"), None);
        assert_eq!(
            (rhel81.request_limit(), rhel81.dasd_block_tasklet()),
            (4, true)
        );
        let sles11 = with(Some("2.6.32.19"), None);
        assert_eq!(
            (sles11.request_limit(), sles11.dasd_block_tasklet()),
            (0, true)
        );
        let old = with(Some("2.6.16"), None);
        assert_eq!((old.request_limit(), old.dasd_block_tasklet()), (0, false));
        // Given explicitly, the limit holds whatever the release.
        assert_eq!(with(Some("4.18.0"), Some(0)).request_limit(), 0);
        assert_eq!(with(None, Some(4)).request_limit(), 4);
    }

    #[test]
    fn sequential_extents_reach_whole_cylinders_past_the_data_capped_at_the_device_end() {
        let seq = DasdCache {
            mode: DasdCacheMode::Sequential,
            cylinders: 2,
        };
        // Track 47 is cylinder 3, head 2: the extent ends on cylinder 5, head 2.
        assert_eq!(seq.extent_end(47, 10_017), 77);
        // Prestage reaches as far; normal, bypass and record access do not.
        let pre = DasdCache {
            mode: DasdCacheMode::Prestage,
            ..seq
        };
        assert_eq!(pre.extent_end(47, 10_017), 77);
        for mode in [
            DasdCacheMode::Normal,
            DasdCacheMode::Bypass,
            DasdCacheMode::Record,
        ] {
            assert_eq!(DasdCache { mode, ..seq }.extent_end(47, 10_017), 47);
        }
        // Near the end the end cylinder is the device's last one (its head kept).
        assert_eq!(seq.extent_end(10_014 * 15 + 4, 10_017), 10_016 * 15 + 4);
        assert_eq!(seq.extent_end(10_015 * 15 + 4, 10_017), 10_016 * 15 + 4);
        assert_eq!(seq.extent_end(10_016 * 15 + 4, 10_017), 10_016 * 15 + 4);
        // The default is normal, 0 cylinders, and is left out of a serialized scenario.
        assert!(DasdCache::default().is_default());
        let t = serde_json::to_string(&LinuxSpec::default()).expect("serializes");
        assert!(!t.contains("dasd_cache"), "{t}");
        assert!(!t.contains("release"), "{t}");
    }

    #[test]
    fn the_memory_map_up_to_mem_is_paid_before_2_6_26_and_without_a_release() {
        let with = |r: &str| LinuxSpec {
            release: Some(r.into()),
            ..LinuxSpec::default()
        };
        assert!(LinuxSpec::default().maps_absent_memory());
        assert!(with("2.6.16.60-0.21-default").maps_absent_memory());
        assert!(with("2.6.25").maps_absent_memory());
        assert!(!with("2.6.26").maps_absent_memory());
        assert!(!with("2.6.32.19-0.3-default").maps_absent_memory());
        assert!(!with("3.0").maps_absent_memory());
        assert_eq!(with("2.6.32.19").release_version(), Ok(Some((2, 6, 32))));
        for bad in ["", "sles11", "2", "2.x.3", "2.6.x"] {
            assert!(with(bad).release_version().is_err(), "{bad}");
        }
    }
}
