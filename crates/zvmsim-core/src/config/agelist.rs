//! The global aging list's settings (z/VM 6.3 and later): the scenario's `[lpar.agelist]`
//! table, which stands for the STORAGE AGELIST statement of the system configuration file, and
//! the values CP's SET AGELIST takes.
//!
//! Sources. The operands (SIZE as a percentage of the dynamic paging area or as an amount of
//! storage `nU`, EARLYWRITES YES|NO, KEEPSLOT YES|NO) and the forms the size may take (an
//! integer or non-integer percentage, written `n%` or `n PERCENT`) are those of IBM's AGEBK
//! control block (the AGELIST parameter block of z/VM 6.4 and 7.5). The defaults (2 %,
//! EARLYWRITES YES, KEEPSLOT YES) are IBM's as its SET AGELIST reference gives them, from
//! knowledge: the stored corpora hold only the openings of those pages, so they are not
//! confirmed there. The bounds below are inference (see each).

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::config::units::{parse_size, Size, PAGE_SIZE};

/// Hundredths of a percent in 100 %.
const FULL: u32 = 10_000;
/// Decimal places a percentage may have. Inference: AGEBK keeps a non-integer size as a
/// 5-character string ("12.34").
const PCT_DECIMALS: usize = 2;

/// The aging list's size, as SET AGELIST SIZE gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgelistSize {
    /// A percentage of the dynamic paging area, in hundredths of a percent (200 = 2 %).
    Percent(u32),
    /// An amount of storage (`512M`, `4G`).
    Storage(Size),
}

impl Default for AgelistSize {
    /// 2 % of the dynamic paging area (IBM's default; see the module's sources).
    fn default() -> Self {
        AgelistSize::Percent(200)
    }
}

impl AgelistSize {
    /// `2%`, `2.5%` or `2.5 PERCENT` (as AGEBK's flags name the forms), or a size with its
    /// unit (`512M`). A percentage above 100 or a size without a unit is refused.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        let upper = t.to_ascii_uppercase();
        let pct = upper
            .strip_suffix("PERCENT")
            .or_else(|| upper.strip_suffix('%'))
            .map(str::trim_end);
        if let Some(num) = pct {
            return parse_percent(num).map(AgelistSize::Percent);
        }
        if !t.ends_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(format!(
                "aging list size `{t}`: give a percentage of the dynamic paging area (\"2%\") or \
                 an amount of storage with its unit (\"512M\")"
            ));
        }
        parse_size(t).map(AgelistSize::Storage)
    }

    /// Frames of a dynamic paging area of `dpa` frames the size stands for (at most all).
    pub fn frames(self, dpa: u64) -> u64 {
        match self {
            AgelistSize::Percent(h) => dpa * h as u64 / FULL as u64,
            AgelistSize::Storage(s) => (s.bytes() / PAGE_SIZE).min(dpa),
        }
    }
}

/// Hundredths of a percent from `12`, `2.5`, `0.25`: at most 100 and two decimal places.
fn parse_percent(num: &str) -> Result<u32, String> {
    let bad = || {
        format!(
            "aging list size `{num}%`: give a percentage from 0 to 100 with at most \
             {PCT_DECIMALS} decimal places"
        )
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if int.is_empty() || !digits(int) || !digits(frac) || frac.len() > PCT_DECIMALS {
        return Err(bad());
    }
    let whole: u32 = int.parse().map_err(|_| bad())?;
    let mut hundredths = format!("{frac:0<PCT_DECIMALS$}")
        .parse::<u32>()
        .unwrap_or(0);
    if whole > 100 {
        return Err(bad());
    }
    hundredths += whole * 100;
    // Bound: 0 to 100 % of the dynamic paging area. Inference: the size is a share of the
    // DPA; no source read gives narrower limits.
    if hundredths > FULL {
        return Err(bad());
    }
    Ok(hundredths)
}

impl fmt::Display for AgelistSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AgelistSize::Percent(h) if h % 100 == 0 => write!(f, "{}%", h / 100),
            AgelistSize::Percent(h) if h % 10 == 0 => write!(f, "{}.{}%", h / 100, h % 100 / 10),
            AgelistSize::Percent(h) => write!(f, "{}.{:02}%", h / 100, h % 100),
            AgelistSize::Storage(s) => write!(f, "{s}"),
        }
    }
}

impl Serialize for AgelistSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for AgelistSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = AgelistSize;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a percentage of the dynamic paging area (\"2%\") or a size (\"512M\")")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<AgelistSize, E> {
                AgelistSize::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

impl JsonSchema for AgelistSize {
    fn schema_name() -> String {
        "AgelistSize".into()
    }
    fn json_schema(g: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        String::json_schema(g)
    }
}

/// `[lpar.agelist]`: the global aging list at IPL (z/VM 6.3 and later), as the STORAGE AGELIST
/// statement sets it. Each field left out takes IBM's default; SET AGELIST changes them later.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgelistSpec {
    /// SIZE: a percentage of the dynamic paging area ("2%", the default) or an amount of
    /// storage ("512M").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<AgelistSize>,
    /// EARLYWRITES: changed pages near the head of the list are written to paging DASD ahead
    /// of need (default true). `true`/`false`, or "YES"/"NO" as CP writes them.
    #[serde(
        default,
        deserialize_with = "yes_no",
        skip_serializing_if = "Option::is_none"
    )]
    pub earlywrites: Option<bool>,
    /// KEEPSLOT: a page read back from paging DASD keeps its slot (default true).
    #[serde(
        default,
        deserialize_with = "yes_no",
        skip_serializing_if = "Option::is_none"
    )]
    pub keepslot: Option<bool>,
}

/// The aging list's settings in effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgelistSettings {
    pub size: AgelistSize,
    pub early_writes: bool,
    pub keep_slot: bool,
}

impl Default for AgelistSettings {
    /// IBM's defaults: 2 %, EARLYWRITES YES, KEEPSLOT YES.
    fn default() -> Self {
        AgelistSettings {
            size: AgelistSize::default(),
            early_writes: true,
            keep_slot: true,
        }
    }
}

impl AgelistSpec {
    /// The settings at IPL: what the table gives, IBM's defaults for the rest.
    pub fn settings(&self) -> AgelistSettings {
        let d = AgelistSettings::default();
        AgelistSettings {
            size: self.size.unwrap_or(d.size),
            early_writes: self.earlywrites.unwrap_or(d.early_writes),
            keep_slot: self.keepslot.unwrap_or(d.keep_slot),
        }
    }
}

/// YES or NO as CP takes them (any case), for the command parser and the scenario.
pub fn parse_yes_no(word: &str) -> Option<bool> {
    match word.trim().to_ascii_uppercase().as_str() {
        "YES" => Some(true),
        "NO" => Some(false),
        _ => None,
    }
}

/// A boolean, or "YES"/"NO" as CP writes them.
fn yes_no<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    struct V;
    impl serde::de::Visitor<'_> for V {
        type Value = Option<bool>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("true or false (or \"YES\" or \"NO\")")
        }
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Option<bool>, E> {
            Ok(Some(v))
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Option<bool>, E> {
            parse_yes_no(v)
                .map(Some)
                .ok_or_else(|| E::custom(format!("`{v}`: give YES or NO (or true or false)")))
        }
    }
    d.deserialize_any(V)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_agebk_describes_them() {
        assert_eq!(AgelistSize::parse("2%"), Ok(AgelistSize::Percent(200)));
        assert_eq!(AgelistSize::parse("2.5%"), Ok(AgelistSize::Percent(250)));
        assert_eq!(AgelistSize::parse(" 0.25 % "), Ok(AgelistSize::Percent(25)));
        assert_eq!(
            AgelistSize::parse("5 percent"),
            Ok(AgelistSize::Percent(500))
        );
        assert_eq!(AgelistSize::parse("100%"), Ok(AgelistSize::Percent(10_000)));
        assert_eq!(AgelistSize::parse("0%"), Ok(AgelistSize::Percent(0)));
        assert_eq!(
            AgelistSize::parse("512M"),
            Ok(AgelistSize::Storage(Size(512 << 20)))
        );
        for bad in ["101%", "100.01%", "2.125%", "%", "-1%", "x%", "512", "2"] {
            assert!(AgelistSize::parse(bad).is_err(), "{bad}");
        }
        for (size, text) in [(200, "2%"), (250, "2.5%"), (25, "0.25%"), (1_005, "10.05%")] {
            assert_eq!(AgelistSize::Percent(size).to_string(), text);
            assert_eq!(AgelistSize::parse(text), Ok(AgelistSize::Percent(size)));
        }
    }

    #[test]
    fn frames_of_the_dpa() {
        assert_eq!(AgelistSize::Percent(200).frames(1_000_000), 20_000);
        assert_eq!(AgelistSize::Percent(10_000).frames(777), 777);
        assert_eq!(AgelistSize::Storage(Size(8 << 20)).frames(1_000_000), 2048);
        assert_eq!(AgelistSize::Storage(Size(8 << 30)).frames(1000), 1000);
    }

    #[test]
    fn spec_fills_ibm_defaults() {
        let s = AgelistSpec {
            earlywrites: Some(false),
            ..Default::default()
        }
        .settings();
        assert_eq!(s.size, AgelistSize::Percent(200));
        assert!(!s.early_writes && s.keep_slot);
        assert_eq!(parse_yes_no("yes"), Some(true));
        assert_eq!(parse_yes_no("No"), Some(false));
        assert_eq!(parse_yes_no("Y"), None);
    }
}
