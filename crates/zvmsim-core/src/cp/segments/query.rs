//! QUERY NSS ... MAP in CP's column layout, as seed 000 prints it (z/VM 5.4: begin and end
//! pages in 13 hex digits; each further page range of a file on a line of its own):
//!
//! ```text
//! FILE FILENAME FILETYPE BEGPAG        ENDPAG        TYPE CL #USERS
//! 0398 SWAPPING DCSSG    000000062F400 000000062F400 EW   A  00000
//!                        000000062F401 000000066F3FF EN
//! ```

use super::Segments;

pub const HEADER: &str = "FILE FILENAME FILETYPE BEGPAG        ENDPAG        TYPE CL #USERS";

/// The files named `name` (every file when None) sorted by ID, as CP lists the spool; or CP's
/// answer when there is none: the header alone, or an unknown name's invalid option.
fn named<'a>(
    seg: &'a Segments,
    name: Option<&str>,
    header: &str,
) -> Result<Vec<&'a super::NssFile>, Vec<String>> {
    let mut files: Vec<_> = seg
        .files
        .iter()
        .filter(|f| name.map_or(true, |n| f.name == n))
        .collect();
    if files.is_empty() {
        return Err(match name {
            Some(n) => vec![format!("HCPCQU003E Invalid option - {n}")],
            None => vec![header.to_string()],
        });
    }
    files.sort_by_key(|f| f.id);
    Ok(files)
}

/// The MAP lines of the files named `name` (every file when None), in file ID order, or CP's
/// answer when there is none. Files sorted by ID, as CP lists the spool.
pub fn map(seg: &Segments, name: Option<&str>) -> Vec<String> {
    let files = match named(seg, name, HEADER) {
        Ok(f) => f,
        Err(answer) => return answer,
    };
    let mut out = vec![HEADER.to_string()];
    for f in files {
        for (k, r) in f.ranges.iter().enumerate() {
            if k == 0 {
                out.push(format!(
                    "{:04} {:<8} {:<8} {:013X} {:013X} {:<4} {:<2} {:05}",
                    f.id,
                    f.name,
                    f.filetype(),
                    r.beg,
                    r.end,
                    r.ty.name(),
                    f.class.letter(),
                    f.users.len()
                ));
            } else {
                out.push(format!(
                    "{:23}{:013X} {:013X} {}",
                    "",
                    r.beg,
                    r.end,
                    r.ty.name()
                ));
            }
        }
    }
    out
}

/// QUERY NSS without MAP: the system data files as CP lists spool files, one line each
/// (the layout a z/VM console printed, captured in IBM's tooling: `*NSS     0115 NSS  A
/// 033K 08/24 01:16:29 CCNSEG   DCSS     BLDSEG`): owner *NSS, file ID, type NSS, class,
/// records, the date and time it was created or, once saved, closed, name, file type and
/// the user who defined it. Records are the spool pages a saved file holds (its saved pages
/// and its descriptor), 0 for a skeleton, shown in K (1024s) above 9999 (inference: the
/// captured line shows `033K`). Dates follow zvmsim's calendar (`cp::commands::clock`).
pub const LIST_HEADER: &str =
    "OWNERID  FILE TYPE CL RECS DATE  TIME     FILENAME FILETYPE ORIGINID";

/// The list lines of the files named `name` (every file when None), in file ID order.
pub fn list(seg: &Segments, name: Option<&str>, level: &str) -> Vec<String> {
    let files = match named(seg, name, LIST_HEADER) {
        Ok(f) => f,
        Err(answer) => return answer,
    };
    let mut out = vec![LIST_HEADER.to_string()];
    for f in files {
        let recs = match f.class {
            super::nss::Class::S => 0,
            _ => f.spool_pages(),
        };
        let recs = if recs <= 9999 {
            format!("{recs:04}")
        } else if recs / 1024 <= 999 {
            format!("{:03}K", recs / 1024)
        } else {
            format!("{:03}M", (recs >> 20).min(999))
        };
        let (date, time) = crate::cp::commands::clock(level, f.stamp_s);
        out.push(format!(
            "{:<8} {:04} {:<4} {:<2} {} {} {} {:<8} {:<8} {}",
            "*NSS",
            f.id,
            "NSS",
            f.class.letter(),
            recs,
            &date[..5],
            time,
            f.name,
            f.filetype(),
            f.origin
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::defseg::{parse, SegCommand};
    use super::*;

    fn define(seg: &mut Segments, line: &str) -> String {
        match parse(line, "5.4") {
            Some(Ok(SegCommand::Defseg {
                name,
                ranges,
                loadnshr,
                rstd,
                space,
            })) => seg.define(&name, ranges, loadnshr, rstd, space).unwrap(),
            other => panic!("{line}: {other:?}"),
        }
    }

    fn squash(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn seed_000_swap_segment_maps_as_the_seed_prints() {
        let mut seg = Segments::new(1 << 20);
        // Its file gets ID 0398 in the seed; ours count from the first DEFSEG.
        for _ in 0..397 {
            define(&mut seg, "defseg other 20000-200FF sn");
            let i = seg.skeleton("OTHER").unwrap();
            seg.remove(i);
        }
        let r = define(
            &mut seg,
            "defseg swapping 62f400-62f400 ew 62f401-66f3ff en",
        );
        assert_eq!(
            r,
            "HCPNSD440I Saved segment SWAPPING was successfully defined in fileid 0398."
        );
        let (_, msg) = seg.saved(seg.skeleton("SWAPPING").unwrap(), 0.0);
        assert_eq!(
            msg,
            "HCPNSS440I Saved segment SWAPPING was successfully saved in fileid 0398."
        );
        let out = map(&seg, Some("SWAPPING"));
        let want = [
            "FILE FILENAME FILETYPE BEGPAG ENDPAG TYPE CL #USERS",
            "0398 SWAPPING DCSSG 000000062F400 000000062F400 EW A 00000",
            "000000062F401 000000066F3FF EN",
        ];
        let got: Vec<String> = out.iter().map(|l| squash(l)).collect();
        assert_eq!(got, want);
        // The columns line up under the header.
        assert_eq!(out[1].find("000000062F400"), out[0].find("BEGPAG"));
        assert_eq!(out[2].find("000000062F401"), out[0].find("BEGPAG"));
    }
}
