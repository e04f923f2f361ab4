//! The paging space as CP sees it: each volume's slots, and where a mixed paging space stops
//! spreading its blocks over every volume. CP takes the volumes in turn (cp/storage/slots.rs),
//! so all of them fill alike until the smallest are full; from then on every new block goes
//! to the larger ones, and so do the reads of what was written there.

use serde::Serialize;

use super::scenario::{DasdModel, Scenario};

/// One paging volume: its model (None when the scenario gives slots without volumes) and its
/// slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagingVolume {
    pub model: Option<DasdModel>,
    pub slots: u64,
}

/// Volumes of one model, as `zvmsim check` names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VolumeGroup {
    pub model: &'static str,
    pub count: u64,
}

/// Where a paging space of mixed volume sizes stops spreading new blocks over every volume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvenFill {
    /// Slots in use when the smallest volumes are full (before blocks are partly freed: a
    /// block's slots stay taken until its last page leaves, so a volume can be full earlier).
    pub slots_in_use: u64,
    pub total_slots: u64,
    /// The volumes full at that point, and those left to take every new block.
    pub full: Vec<VolumeGroup>,
    pub left: Vec<VolumeGroup>,
}

impl Scenario {
    /// Each paging volume in the scenario's order, an explicit `paging.slots` spread over them
    /// by capacity.
    pub fn paging_volumes(&self) -> Vec<PagingVolume> {
        let caps: Vec<(DasdModel, u64)> = self
            .paging
            .volumes
            .iter()
            .flat_map(|v| std::iter::repeat((v.model, v.model.pages())).take(v.count as usize))
            .collect();
        let cap_total: u64 = caps.iter().map(|c| c.1).sum();
        let total = self.paging_slots();
        if caps.is_empty() {
            let one = PagingVolume {
                model: None,
                slots: total,
            };
            return if total > 0 { vec![one] } else { vec![] };
        }
        caps.iter()
            .map(|&(m, c)| PagingVolume {
                model: Some(m),
                slots: (c as u128 * total as u128 / cap_total.max(1) as u128) as u64,
            })
            .collect()
    }

    /// Where the smallest volumes fill, for a paging space of mixed sizes (None when every
    /// volume has the same slots).
    pub fn paging_even_fill(&self) -> Option<EvenFill> {
        let vols = self.paging_volumes();
        let small = vols.iter().map(|v| v.slots).min()?;
        if vols.iter().all(|v| v.slots == small) {
            return None;
        }
        let group = |pick: &dyn Fn(u64) -> bool| {
            let mut out: Vec<VolumeGroup> = Vec::new();
            for v in vols.iter().filter(|v| pick(v.slots)) {
                let model = v.model.map_or("", DasdModel::name);
                match out.iter_mut().find(|g| g.model == model) {
                    Some(g) => g.count += 1,
                    None => out.push(VolumeGroup { model, count: 1 }),
                }
            }
            out
        };
        Some(EvenFill {
            slots_in_use: small * vols.len() as u64,
            total_slots: vols.iter().map(|v| v.slots).sum(),
            full: group(&|s| s == small),
            left: group(&|s| s > small),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::config::scenario::{parse, Scenario};

    /// The large-memory study's ten-guest scenario with these `--set` overrides.
    fn study(sets: &[&str]) -> Scenario {
        let text = include_str!("../../../../scenarios/large-memory/zvm53-10guests.toml");
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        parse(text, "zvm53-10guests.toml", &sets).expect("valid").0
    }

    #[test]
    fn the_study_paging_space_fills_its_3390_3s_at_two_thirds() {
        // 31 3390-3 and 10 3390-9, 37,256,192 slots spread by capacity.
        let sc = study(&[]);
        let v = sc.paging_volumes();
        assert_eq!(v.len(), 41);
        // Rounded down: 610,757 a 3390-3, 1,832,271 a 3390-9 (CP then keeps whole blocks:
        // QUERY ALLOC PAGE shows 610,752 and 1,832,264 with 8-page blocks).
        assert_eq!((v[0].slots, v[40].slots), (610_757, 1_832_271));
        assert_eq!(v.iter().map(|v| v.slots).sum::<u64>(), 37_256_177);
        let f = sc.paging_even_fill().expect("mixed");
        assert_eq!(f.slots_in_use, 41 * 610_757);
        assert_eq!((f.full[0].model, f.full[0].count), ("3390-3", 31));
        assert_eq!((f.left[0].model, f.left[0].count), ("3390-9", 10));
        assert!((0.67..0.68).contains(&(f.slots_in_use as f64 / f.total_slots as f64)));
    }

    #[test]
    fn volumes_of_one_size_always_share_the_blocks() {
        let sc = study(&[r#"paging.volumes=[{model="3390-9",count=21}]"#]);
        assert_eq!(sc.paging_volumes().len(), 21);
        assert_eq!(sc.paging_even_fill(), None);
        let sc = study(&["paging.volumes=[]"]);
        assert_eq!(sc.paging_volumes().len(), 1);
        assert_eq!(sc.paging_even_fill(), None);
    }
}
