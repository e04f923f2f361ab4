//! Kernel messages as the guest's dmesg prints them: the driver's printk format and arguments,
//! and the prefix its kernel puts in front.
//!
//! - Mainline kernels since the s390 drivers' kmsg conversion (2.6.29) define
//!   `KMSG_COMPONENT` and `pr_fmt(fmt) KMSG_COMPONENT ": " fmt` (4.18: arch/s390/mm/extmem.c,
//!   drivers/s390/block/dcssblk.c, drivers/s390/cio/blacklist.c), so a line reads
//!   `extmem: DCSS ...`. RHEL 8 prints them so.
//! - SUSE's SLES 11 kernels add a message number: `component.xxxxxx: text`, where xxxxxx is
//!   the low 24 bits of the kernel's old `jhash` (Bob Jenkins' lookup2, initial value 0) of
//!   the format string, newline included. IBM's "Linux on System z Kernel Messages"
//!   documents each message under that number; the hash here reproduces every dcssblk number
//!   IBM lists (f85784 "Adjacent DCSSs %s and %s are not contiguous\n" ... 0a9a59) and the
//!   extmem ones checked (febf72, f0af04, aa62ff, cb0afe). That SLES 11's kernels are built to
//!   print the number is an inference (SUSE carried the message catalogue for s390; the
//!   book's numbers are what its syslog shows). zvmsim's SLES user space (SLES 10 and 11)
//!   gets this form; SLES 10's 2.6.16 kernel words these messages otherwise (not modelled).
//! - `%p`: 2.6 kernels print the address (16 hex digits). From 4.15 (lib/vsprintf.c,
//!   `ptr_to_id`) a plain `%p` prints SipHash-2-4 of the address under a key drawn at boot,
//!   its low 32 bits in 16 digits; the key here is drawn from the run's seed, per guest.

use std::fmt::Write;

use super::distro::Userland;

/// A printk argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    Str(String),
    Int(i64),
    Uint(u64),
    /// A kernel address (`%p`).
    Ptr(u64),
}

/// One kernel message: the driver's component, its format string as in the source (newline
/// included) and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kmsg {
    pub component: &'static str,
    pub fmt: &'static str,
    pub args: Vec<Arg>,
}

/// How a guest's kernel prefixes its messages and prints `%p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// `component.xxxxxx: ` (SLES 11) rather than `component: `.
    pub ids: bool,
    /// The boot's `%p` key (kernels from 4.15); none: addresses print as they are.
    pub ptr_key: Option<(u64, u64)>,
}

impl Style {
    /// The style of a guest with user space `u`; `key` is drawn from the run's seed.
    pub fn of(u: Userland, key: (u64, u64)) -> Self {
        match u {
            Userland::Sles => Style {
                ids: true,
                ptr_key: None,
            },
            Userland::Rhel8 => Style {
                ids: false,
                ptr_key: Some(key),
            },
            Userland::Sles8 => Style::default(),
        }
    }
}

impl Kmsg {
    pub fn new(component: &'static str, fmt: &'static str, args: Vec<Arg>) -> Self {
        Kmsg {
            component,
            fmt,
            args,
        }
    }

    /// The line as dmesg shows it.
    pub fn line(&self, style: &Style) -> String {
        let mut out = String::from(self.component);
        if style.ids {
            let _ = write!(out, ".{:06x}", id(self.fmt));
        }
        out.push_str(": ");
        render(self.fmt, &self.args, style, &mut out);
        out
    }
}

/// The message number: the low 24 bits of jhash (lookup2, initval 0) of the format.
pub fn id(fmt: &str) -> u32 {
    jhash(fmt.as_bytes(), 0) & 0xff_ffff
}

/// printk's conversions as the s390 drivers use them: `%s`, `%d`/`%i`/`%ld`, `%u`/`%lu`,
/// `%x` with a zero-padded width, `%p`, `%%`. A missing argument prints nothing.
fn render(fmt: &str, args: &[Arg], style: &Style, out: &mut String) {
    let mut next = args.iter();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            if c != '\n' {
                out.push(c);
            }
            continue;
        }
        let mut zero = false;
        let mut width = 0usize;
        while let Some(&d) = chars.peek() {
            match d {
                '0' if width == 0 && !zero => zero = true,
                '0'..='9' => width = width * 10 + (d as usize - '0' as usize),
                'l' | 'h' | 'z' => {}
                _ => break,
            }
            chars.next();
        }
        let conv = chars.next().unwrap_or('%');
        if conv == '%' {
            out.push('%');
            continue;
        }
        let text = match (conv, next.next()) {
            (_, None) => String::new(),
            ('p', Some(Arg::Ptr(a))) => {
                let v = style
                    .ptr_key
                    .map_or(*a, |k| siphash_1u64(*a, k) & 0xffff_ffff);
                format!("{v:016x}")
            }
            ('x', Some(Arg::Uint(v))) => format!("{v:x}"),
            ('x', Some(Arg::Int(v))) => format!("{v:x}"),
            (_, Some(Arg::Str(s))) => s.clone(),
            (_, Some(Arg::Int(v))) => v.to_string(),
            (_, Some(Arg::Uint(v) | Arg::Ptr(v))) => v.to_string(),
        };
        let pad = if zero { '0' } else { ' ' };
        for _ in text.chars().count()..width {
            out.push(pad);
        }
        out.push_str(&text);
    }
}

/// The kernel's jhash before 2.6.37 (include/linux/jhash.h: Bob Jenkins' lookup2), on bytes.
fn jhash(k: &[u8], initval: u32) -> u32 {
    fn mix(mut a: u32, mut b: u32, mut c: u32) -> (u32, u32, u32) {
        a = a.wrapping_sub(b).wrapping_sub(c) ^ (c >> 13);
        b = b.wrapping_sub(c).wrapping_sub(a) ^ (a << 8);
        c = c.wrapping_sub(a).wrapping_sub(b) ^ (b >> 13);
        a = a.wrapping_sub(b).wrapping_sub(c) ^ (c >> 12);
        b = b.wrapping_sub(c).wrapping_sub(a) ^ (a << 16);
        c = c.wrapping_sub(a).wrapping_sub(b) ^ (b >> 5);
        a = a.wrapping_sub(b).wrapping_sub(c) ^ (c >> 3);
        b = b.wrapping_sub(c).wrapping_sub(a) ^ (a << 10);
        c = c.wrapping_sub(a).wrapping_sub(b) ^ (b >> 15);
        (a, b, c)
    }
    let word = |s: &[u8]| u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
    let (mut a, mut b, mut c) = (0x9e37_79b9u32, 0x9e37_79b9u32, initval);
    let mut chunks = k.chunks_exact(12);
    for ch in &mut chunks {
        a = a.wrapping_add(word(&ch[0..4]));
        b = b.wrapping_add(word(&ch[4..8]));
        c = c.wrapping_add(word(&ch[8..12]));
        (a, b, c) = mix(a, b, c);
    }
    c = c.wrapping_add(k.len() as u32);
    // The tail: bytes 0-3 into a, 4-7 into b, 8-10 into c above its low byte (the length's).
    for (i, &byte) in chunks.remainder().iter().enumerate() {
        let v = byte as u32;
        match i {
            0..=3 => a = a.wrapping_add(v << (8 * i)),
            4..=7 => b = b.wrapping_add(v << (8 * (i - 4))),
            _ => c = c.wrapping_add(v << (8 * (i - 7))),
        }
    }
    mix(a, b, c).2
}

/// SipHash-2-4 of one 64-bit word (lib/siphash.c, `siphash_1u64`).
fn siphash_1u64(first: u64, (k0, k1): (u64, u64)) -> u64 {
    let mut v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    let round = |v: &mut [u64; 4]| {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    };
    let b = 8u64 << 56;
    for m in [first, b] {
        v[3] ^= m;
        round(&mut v);
        round(&mut v);
        v[0] ^= m;
    }
    v[2] ^= 0xff;
    for _ in 0..4 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IBM's numbers for dcssblk's messages (the whole chapter) and four of extmem's.
    #[test]
    fn numbers_are_ibms() {
        let ibm = [
            ("Adjacent DCSSs %s and %s are not contiguous\n", 0xf85784),
            ("DCSS %s and DCSS %s have incompatible types\n", 0xdd556f),
            (
                "DCSS %s is of type SC and cannot be loaded as exclusive-writable\n",
                0x3d858e,
            ),
            (
                "DCSS device %s is removed after a failed access mode change\n",
                0x6ac195,
            ),
            ("All DCSSs that map to device %s are saved\n", 0x9a4530),
            (
                "DCSS %s is of type SN or EN and cannot be saved\n",
                0x784873,
            ),
            (
                "Device %s is in use, its DCSSs will be saved when it becomes idle\n",
                0x257c8b,
            ),
            (
                "A pending save request for device %s has been canceled\n",
                0x7b5aa7,
            ),
            (
                "Loaded %s with total size %lu bytes and capacity %lu sectors\n",
                0xf259b2,
            ),
            (
                "Device %s cannot be removed because it is not a known device\n",
                0x14ff71,
            ),
            ("Device %s cannot be removed while it is in use\n", 0x247a44),
            (
                "Device %s has become idle and is being saved now\n",
                0x50ebd0,
            ),
            (
                "Writing to %s failed because it is a read-only device\n",
                0x3c90ef,
            ),
            (
                "There is not enough memory to load or query DCSS %s\n",
                0xfebf72,
            ),
            ("DCSS %s is in use and cannot be reloaded\n", 0xf0af04),
            (
                "%s needs used memory resources and cannot be loaded or queried\n",
                0xcb0afe,
            ),
            (
                "DCSS %s of range %p to %p and type %s loaded in shared access mode\n",
                0xaa62ff,
            ),
        ];
        for (fmt, want) in ibm {
            assert_eq!(id(fmt), want, "{fmt:?}");
        }
    }

    #[test]
    fn prefixes_and_conversions() {
        let m = Kmsg::new(
            "extmem",
            "DCSS %s of range %p to %p and type %s loaded in shared access mode\n",
            vec![
                Arg::Str("A".into()),
                Arg::Ptr(0x8000_0000),
                Arg::Ptr(0x800f_ffff),
                Arg::Str("SR".into()),
            ],
        );
        let sles = Style::of(Userland::Sles, (1, 2));
        assert_eq!(
            m.line(&sles),
            "extmem.aa62ff: DCSS A of range 0000000080000000 to 00000000800fffff and type \
             SR loaded in shared access mode"
        );
        let rhel = m.line(&Style::of(Userland::Rhel8, (1, 2)));
        assert!(
            rhel.starts_with("extmem: DCSS A of range 00000000"),
            "{rhel}"
        );
        assert!(!rhel.contains("0000000080000000"), "{rhel}");
        // Another boot's key prints other values for the same address.
        assert_ne!(rhel, m.line(&Style::of(Userland::Rhel8, (3, 4))));
        let cio = Kmsg::new(
            "cio",
            "0.%x.%04x to 0.%x.%04x is not a valid range for cio_ignore\n",
            vec![
                Arg::Uint(0),
                Arg::Uint(0x12),
                Arg::Uint(1),
                Arg::Uint(0xb9d5),
            ],
        );
        assert_eq!(
            cio.line(&Style::default()),
            "cio: 0.0.0012 to 0.1.b9d5 is not a valid range for cio_ignore"
        );
    }

    /// SipHash-2-4's published test vector (key 00..0f, message 00..07).
    #[test]
    fn siphash_matches_its_reference() {
        let k0 = u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7]);
        let k1 = u64::from_le_bytes([8, 9, 10, 11, 12, 13, 14, 15]);
        let m = u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(siphash_1u64(m, (k0, k1)), 0x93f5_f579_9a93_2462);
    }
}
