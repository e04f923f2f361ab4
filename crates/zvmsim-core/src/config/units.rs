//! Quantities as z/VM and Linux users write them: storage sizes (`16G`, `750M`, `3326 MB`,
//! `4096`) and durations (`10ms`, `60s`, `20m`, `1h`, `250us`).
//!
//! Sizes use the binary multiples CP and Linux use (`16G` = 16 × 2^30 bytes), whatever the
//! spelling (`G`, `GB`, `GiB`). A bare number is bytes. Durations are kept in integer
//! nanoseconds, the engine's clock unit.

use std::fmt;

use schemars::schema::{InstanceType, NumberValidation, Schema, SchemaObject, StringValidation};
use schemars::JsonSchema;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

pub const PAGE_SIZE: u64 = 4096;

/// A quantity written as text with a unit, or as a bare number (bytes for sizes, seconds for
/// durations); one serde and JSON schema implementation serves both.
trait Quantity: Sized + fmt::Display {
    const WHAT: &'static str;
    const EXPECTING: &'static str;
    /// Largest bare number, the bound `parse` puts on text (bytes; seconds): a bigger one
    /// saturated silently.
    const MAX_NUMBER: f64;
    fn parse(s: &str) -> Result<Self, String>;
    fn from_number(x: f64) -> Self;
    /// What the JSON schema says of the field.
    const DESCRIPTION: &'static str;
    /// The JSON forms the schema accepts (text with a unit, a bare number).
    fn schema_forms(o: &mut SchemaObject);
}

impl Quantity for Size {
    const WHAT: &'static str = "size";
    const EXPECTING: &'static str =
        "a size such as \"16G\", \"750M\", \"3326 MB\" or a number of bytes";
    const MAX_NUMBER: f64 = u64::MAX as f64 / 2.0;
    fn parse(s: &str) -> Result<Self, String> {
        parse_size(s)
    }
    fn from_number(x: f64) -> Self {
        Size(x.round() as u64)
    }
    const DESCRIPTION: &'static str =
        "Storage size with a binary unit: \"16G\", \"750M\", \"3326 MB\", \"4K\"; a bare integer is bytes";
    fn schema_forms(o: &mut SchemaObject) {
        o.subschemas().any_of = Some(vec![
            SchemaObject {
                instance_type: Some(InstanceType::String.into()),
                string: Some(Box::new(StringValidation {
                    pattern: Some(
                        r"^\s*[0-9]+(\.[0-9]+)?\s*([kKmMgGtTpP]([iI]?[bB])?|[bB]|pages?)?\s*$"
                            .into(),
                    ),
                    ..Default::default()
                })),
                ..Default::default()
            }
            .into(),
            SchemaObject {
                instance_type: Some(InstanceType::Integer.into()),
                number: Some(Box::new(NumberValidation {
                    minimum: Some(0.0),
                    ..Default::default()
                })),
                ..Default::default()
            }
            .into(),
        ]);
    }
}

impl Quantity for Duration {
    const WHAT: &'static str = "duration";
    const EXPECTING: &'static str =
        "a duration such as \"10ms\", \"60s\", \"20m\" or a number of seconds";
    const MAX_NUMBER: f64 = 1e9;
    fn parse(s: &str) -> Result<Self, String> {
        parse_duration(s)
    }
    fn from_number(x: f64) -> Self {
        Duration((x * 1e9).round() as u64)
    }
    const DESCRIPTION: &'static str =
        "Duration: \"250us\", \"10ms\", \"60s\", \"20m\", \"1h\"; a bare number is seconds";
    fn schema_forms(o: &mut SchemaObject) {
        o.instance_type = Some(vec![InstanceType::String, InstanceType::Number].into());
    }
}

struct QuantityVisitor<T>(std::marker::PhantomData<T>);

impl<T: Quantity> Visitor<'_> for QuantityVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::parse(v).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        self.visit_f64(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_f64(v as f64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        if v < 0.0 || !v.is_finite() {
            return Err(E::custom(format!(
                "{} {v} is negative or not finite",
                T::WHAT
            )));
        }
        if v > T::MAX_NUMBER {
            return Err(E::custom(format!("{} {v:e} is too large", T::WHAT)));
        }
        Ok(T::from_number(v))
    }
}

/// Serde and the JSON schema of a `Quantity` type.
macro_rules! serde_quantity {
    ($t:ty) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(QuantityVisitor::<$t>(std::marker::PhantomData))
            }
        }
        impl JsonSchema for $t {
            fn schema_name() -> String {
                stringify!($t).into()
            }
            fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> Schema {
                let mut o = SchemaObject::default();
                o.metadata().description = Some(<$t as Quantity>::DESCRIPTION.into());
                <$t as Quantity>::schema_forms(&mut o);
                o.into()
            }
        }
    };
}

/// A storage size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Size(pub u64);

impl Size {
    pub fn bytes(self) -> u64 {
        self.0
    }
    /// Whole 4 KB pages (rounded down, as CP does when it defines storage).
    pub fn pages(self) -> u64 {
        self.0 / PAGE_SIZE
    }
    pub fn mib(self) -> u64 {
        self.0 >> 20
    }
}

/// The number `s` starts with (after blanks) and the unit written after it, for a quantity
/// `what`; `example` ends the message when there is no number.
fn number_and_unit<'a>(s: &'a str, what: &str, example: &str) -> Result<(f64, &'a str), String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() {
        return Err(format!("{what} `{s}` has no number; {example}"));
    }
    let value: f64 = num
        .parse()
        .map_err(|_| format!("{what} `{s}` has a malformed number"))?;
    Ok((value, unit))
}

/// Parse a size: a non-negative number (integer or decimal) and an optional binary unit.
pub fn parse_size(s: &str) -> Result<Size, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!(
            "size `{s}` is negative; sizes are written like 16G, 750M or 3326 MB"
        ));
    }
    let (value, unit) =
        number_and_unit(s, Size::WHAT, "sizes are written like 16G, 750M or 3326 MB")?;
    let mult: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        "P" | "PAGE" | "PAGES" => PAGE_SIZE,
        other => {
            return Err(format!(
                "size `{s}` has an unknown unit `{other}`; use B, K, M, G, T (binary multiples) or pages"
            ))
        }
    };
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes > u64::MAX as f64 / 2.0 {
        return Err(format!("size `{s}` is too large"));
    }
    Ok(Size(bytes.round() as u64))
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (unit, shift) in [("T", 40), ("G", 30), ("M", 20), ("K", 10)] {
            if b >= 1 << shift && b % (1 << shift) == 0 {
                return write!(f, "{}{unit}", b >> shift);
            }
        }
        write!(f, "{b}")
    }
}

serde_quantity!(Size);

/// A simulated duration in integer nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(pub u64);

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

impl Duration {
    pub fn ns(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    pub fn from_secs(s: u64) -> Self {
        Duration(s * NS_PER_S)
    }
}

pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!("duration `{s}` is negative"));
    }
    let (value, unit) = number_and_unit(s, Duration::WHAT, "write e.g. 10ms, 60s, 20m, 1h")?;
    let mult: f64 = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" | "" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        other => {
            return Err(format!(
                "duration `{s}` has an unknown unit `{other}`; use ns, us, ms, s, m or h"
            ))
        }
    };
    let ns = value * mult;
    if !ns.is_finite() || ns > 1e18 {
        return Err(format!("duration `{s}` is too large"));
    }
    Ok(Duration(ns.round() as u64))
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        for (unit, m) in [
            ("h", 3600 * NS_PER_S),
            ("m", 60 * NS_PER_S),
            ("s", NS_PER_S),
            ("ms", NS_PER_MS),
            ("us", NS_PER_US),
        ] {
            if n >= m && n % m == 0 {
                return write!(f, "{}{unit}", n / m);
            }
        }
        write!(f, "{n}ns")
    }
}

serde_quantity!(Duration);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_users_write_them() {
        assert_eq!(parse_size("16G").unwrap().0, 16 << 30);
        assert_eq!(parse_size("750M").unwrap().0, 750 << 20);
        assert_eq!(parse_size("3326 MB").unwrap().0, 3326 << 20);
        assert_eq!(parse_size("8500MiB").unwrap().0, 8500 << 20);
        assert_eq!(parse_size("4096").unwrap().0, 4096);
        assert_eq!(parse_size("1.5G").unwrap().0, 3 << 29);
        assert_eq!(parse_size("16G").unwrap().pages(), 4_194_304);
        assert!(parse_size("-16G").unwrap_err().contains("negative"));
        assert!(parse_size("16Q").unwrap_err().contains("unknown unit"));
        assert!(parse_size("G").is_err());
        assert!(parse_size("1.2.3G").is_err());
        assert_eq!(Size(16 << 30).to_string(), "16G");
    }

    #[test]
    fn bare_numbers_and_text_deserialize() {
        assert_eq!(serde_json::from_str::<Size>("4096").unwrap(), Size(4096));
        assert_eq!(
            serde_json::from_str::<Size>("\"2G\"").unwrap(),
            Size(2 << 30)
        );
        assert!(serde_json::from_str::<Size>("-1")
            .unwrap_err()
            .to_string()
            .contains("size -1 is negative"));
        assert_eq!(
            serde_json::from_str::<Duration>("2").unwrap(),
            Duration(2 * NS_PER_S)
        );
        assert_eq!(
            serde_json::from_str::<Duration>("0.5").unwrap(),
            Duration(NS_PER_S / 2)
        );
        assert!(serde_json::from_str::<Duration>("-3").is_err());
        assert_eq!(
            serde_json::to_string(&Duration(90 * NS_PER_S)).unwrap(),
            "\"90s\""
        );
    }

    /// Sizes and durations split their number from their unit alike; each message names its
    /// quantity and, with no number, how one is written.
    #[test]
    fn a_missing_or_malformed_number_is_named_for_its_quantity() {
        assert_eq!(
            parse_size(" MB").unwrap_err(),
            "size ` MB` has no number; sizes are written like 16G, 750M or 3326 MB"
        );
        assert_eq!(
            parse_duration("ms").unwrap_err(),
            "duration `ms` has no number; write e.g. 10ms, 60s, 20m, 1h"
        );
        assert_eq!(
            parse_size("1.2.3G").unwrap_err(),
            "size `1.2.3G` has a malformed number"
        );
        assert_eq!(
            parse_duration("1..5s").unwrap_err(),
            "duration `1..5s` has a malformed number"
        );
        assert_eq!(parse_duration(" 1.5 s ").unwrap(), Duration(1_500_000_000));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms").unwrap().0, 10_000_000);
        assert_eq!(parse_duration("60s").unwrap().0, 60 * NS_PER_S);
        assert_eq!(parse_duration("20m").unwrap().0, 1200 * NS_PER_S);
        assert_eq!(parse_duration("250us").unwrap().0, 250_000);
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("5 parsecs").is_err());
        assert_eq!(Duration(90 * NS_PER_S).to_string(), "90s");
    }
}
