//! What `mke2fs -b 4096 DEVICE` prints, as e2fsprogs 1.41.9 (SLES 11 SP1's: inference) makes
//! an ext2 file system with its default mke2fs.conf (misc/mke2fs.conf: sparse_super, filetype,
//! resize_inode, dir_index, ext_attr; 256-byte inodes and an inode per 16 KB, or 128-byte
//! inodes and one per 4 KB under 512 MB, per 8 KB under 3 MB): the geometry
//! lib/ext2fs/initialize.c computes (groups of 32768 blocks, inodes per group filling whole
//! inode-table blocks and a multiple of 8, reserved GDT blocks for growth to 1024 times the
//! size, a last group too small for its overhead dropped), printed as misc/mke2fs.c's
//! `show_stats` and the lines after it.

/// Blocks of 4 KB per group (8 x the block size), unless the inodes need smaller groups.
const BLOCKS_PER_GROUP: u64 = 32768;
/// Group descriptors per 4 KB block (32 bytes each), block addresses per block.
const DESC_PER_BLOCK: u64 = 128;
const ADDR_PER_BLOCK: u64 = 1024;
/// The release and its date, as the first line gives them (version.h).
const VERSION: &str = "mke2fs 1.41.9 (22-Aug-2009)";

/// The file system's geometry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    pub blocks: u64,
    pub inodes: u64,
    pub reserved: u64,
    pub groups: u64,
    pub blocks_per_group: u64,
    pub inodes_per_group: u64,
    pub reserved_gdt: u64,
    pub desc_blocks: u64,
}

/// Group `g` holds a superblock backup (sparse_super: 0, 1 and powers of 3, 5 and 7).
fn has_super(g: u64) -> bool {
    let root = |mut a: u64, b: u64| {
        if a == 0 {
            return true;
        }
        loop {
            if a == 1 {
                return true;
            }
            if a % b != 0 {
                return false;
            }
            a /= b;
        }
    };
    root(g, 3) || root(g, 5) || root(g, 7)
}

/// The geometry of an ext2 on `device_blocks` 4 KB blocks (None: too small for one group's
/// overhead, which mke2fs refuses).
pub fn geometry(device_blocks: u64) -> Option<Geometry> {
    // The size types of mke2fs.conf: floppy under 3 MB, small under 512 MB.
    let (inode_size, ratio) = match device_blocks {
        b if b < 3 * 256 => (128, 8192),
        b if b < 512 * 256 => (128, 4096),
        _ => (256, 16384),
    };
    let ipb = 4096 / inode_size;
    // At least EXT2_FIRST_INO + 1 inodes.
    let inodes_wanted = (device_blocks * 4096 / ratio).max(12);
    let reserved = (5.0 * device_blocks as f64 / 100.0) as u64;
    let (mut blocks, mut bpg) = (device_blocks, BLOCKS_PER_GROUP);
    loop {
        let groups = blocks.div_ceil(bpg);
        if groups == 0 {
            return None;
        }
        let desc_blocks = groups.div_ceil(DESC_PER_BLOCK);
        let ipg = inodes_wanted.div_ceil(groups);
        if ipg > 8 * 4096 {
            // More inodes than a bitmap block covers: smaller groups, from the full size.
            if bpg < 256 {
                return None;
            }
            bpg -= 8;
            blocks = device_blocks;
            continue;
        }
        let ipg = ipg.min(65536 - ipb);
        let itable = (ipg * inode_size).div_ceil(4096);
        let ipg = (itable * ipb) & !7;
        let itable = (ipg * inode_size).div_ceil(4096);
        let max_blocks = if blocks < 0xffff_ffff / 1024 {
            blocks * 1024
        } else {
            0xffff_ffff
        };
        let reserved_gdt =
            (max_blocks.div_ceil(bpg).div_ceil(DESC_PER_BLOCK) - desc_blocks).min(ADDR_PER_BLOCK);
        let mut overhead = 2 + itable;
        if has_super(groups - 1) {
            overhead += 1 + desc_blocks + reserved_gdt;
        }
        let rem = blocks % bpg;
        if groups == 1 && rem != 0 && rem < overhead {
            return None;
        }
        if rem != 0 && rem < overhead + 50 {
            blocks -= rem;
            continue;
        }
        return Some(Geometry {
            blocks,
            inodes: ipg * groups,
            reserved,
            groups,
            blocks_per_group: bpg,
            inodes_per_group: ipg,
            reserved_gdt,
            desc_blocks,
        });
    }
}

/// The lines mke2fs prints for `device_blocks`, its stderr and stdout as a terminal shows
/// them; `jitter` (0-19) is what its UUID adds to the 20 mounts between checks.
pub fn output(device_blocks: u64, jitter: u64) -> Option<Vec<String>> {
    let g = geometry(device_blocks)?;
    let mut l = vec![VERSION.to_string()];
    if g.blocks != device_blocks {
        l.push(format!(
            "warning: {} blocks unused.",
            device_blocks - g.blocks
        ));
        l.push(String::new());
    }
    l.push("Filesystem label=".into());
    l.push("OS type: Linux".into());
    l.push("Block size=4096 (log=2)".into());
    l.push("Fragment size=4096 (log=2)".into());
    l.push(format!("{} inodes, {} blocks", g.inodes, g.blocks));
    l.push(format!(
        "{} blocks ({:.2}%) reserved for the super user",
        g.reserved,
        100.0 * g.reserved as f64 / g.blocks as f64
    ));
    l.push("First data block=0".into());
    if g.reserved_gdt > 0 {
        l.push(format!(
            "Maximum filesystem blocks={}",
            (g.reserved_gdt + g.desc_blocks) * DESC_PER_BLOCK * g.blocks_per_group
        ));
    }
    let plural = if g.groups > 1 { "s" } else { "" };
    l.push(format!("{} block group{plural}", g.groups));
    let bpg = g.blocks_per_group;
    l.push(format!("{bpg} blocks per group, {bpg} fragments per group"));
    l.push(format!("{} inodes per group", g.inodes_per_group));
    if g.groups == 1 {
        l.push(String::new());
    } else {
        // show_stats: each number's digits and two more must fit in what is left of 72
        // columns, else a new line and a tab.
        let mut line = "Superblock backups stored on blocks: ".to_string();
        let mut col_left = 0usize;
        for i in (1..g.groups).filter(|&i| has_super(i)) {
            let block = i * bpg;
            if i != 1 {
                line.push_str(", ");
            }
            let need = block.to_string().len() + 2;
            if need > col_left {
                l.push(std::mem::replace(&mut line, "\t".into()));
                col_left = 72;
            }
            col_left -= need;
            line.push_str(&block.to_string());
        }
        l.push(line);
        l.push(String::new());
    }
    l.push("Writing inode tables: done                            ".into());
    l.push("Writing superblocks and filesystem accounting information: done".into());
    l.push(String::new());
    l.push(format!(
        "This filesystem will be automatically checked every {} mounts or",
        20 + jitter % 20
    ));
    l.push("180 days, whichever comes first.  Use tune2fs -c or -i to override.".into());
    Some(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1_gb_and_a_6_gb_dcss_get_the_geometry_mke2fs_computes() {
        // 1 GB: 262144 blocks, 8 groups, an inode per 16 KB, 63 reserved GDT blocks.
        let g = geometry(262_144).unwrap();
        assert_eq!(
            (g.inodes, g.groups, g.inodes_per_group, g.reserved_gdt),
            (65_536, 8, 8192, 63)
        );
        let out = output(262_144, 7).unwrap();
        assert_eq!(out[5], "65536 inodes, 262144 blocks");
        assert_eq!(out[6], "13107 blocks (5.00%) reserved for the super user");
        assert_eq!(out[8], "Maximum filesystem blocks=268435456");
        assert_eq!(out[9], "8 block groups");
        assert_eq!(out[12], "Superblock backups stored on blocks: ");
        assert_eq!(out[13], "\t32768, 98304, 163840, 229376");
        assert_eq!(
            out[18],
            "This filesystem will be automatically checked every 27 mounts or"
        );
        // DCSSOPT1-3: three 2047 MB segments, 1572096 blocks; the last group (32000 blocks)
        // keeps its blocks; 8188 inodes a group round up to fill 512 inode-table blocks.
        let out = output(3 * 2047 * 256, 0).unwrap();
        assert_eq!(out[5], "393216 inodes, 1572096 blocks");
        assert_eq!(out[9], "48 block groups");
        assert_eq!(out[11], "8192 inodes per group");
        assert_eq!(
            out[13],
            "\t32768, 98304, 163840, 229376, 294912, 819200, 884736"
        );
    }

    #[test]
    fn a_last_group_too_small_is_dropped_and_a_tiny_device_refused() {
        // 1 GB and 100 blocks: the ninth group could not hold its bitmaps and inode table.
        let out = output(262_244, 0).unwrap();
        assert_eq!(out[1], "warning: 100 blocks unused.");
        assert_eq!(out[7], "65664 inodes, 262144 blocks");
        // A small file system with an inode per block: a group would need more inodes than
        // its bitmap covers, so mke2fs shrinks the groups until the last one fits.
        let g = geometry(32_868).unwrap();
        assert_eq!((g.blocks, g.groups), (32_868, 2));
        assert!(g.blocks_per_group < BLOCKS_PER_GROUP && g.blocks_per_group % 8 == 0);
        assert_eq!(geometry(10), None);
        assert!(has_super(0) && has_super(1) && has_super(49) && has_super(125));
        assert!(!has_super(2) && !has_super(10));
    }
}
