//! User ID patterns of the directory entries: `LNX%02d` or a name ending in digits.

pub(crate) fn expand_name(pattern: &str, first: u32, k: u32, count: u32) -> String {
    // printf-like %d / %0Nd; any other `%` is kept as typed (the user ID check refuses it).
    let spec_end = pattern.find('%').and_then(|pos| {
        let rest = &pattern[pos + 1..];
        let end = rest.find('d')?;
        rest[..end]
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then_some((pos, end))
    });
    if let Some((pos, end)) = spec_end {
        let rest = &pattern[pos + 1..];
        let spec = &rest[..end];
        // Widths over 8 are refused (config/bounds.rs); the cap guards unvalidated patterns.
        let width: usize = spec.trim_start_matches('0').parse().unwrap_or(0).min(16);
        let num = u64::from(first) + u64::from(k);
        let formatted = if spec.starts_with('0') {
            format!("{num:0width$}")
        } else {
            format!("{num:width$}")
        };
        return format!("{}{}{}", &pattern[..pos], formatted, &rest[end + 1..])
            .to_ascii_uppercase();
    }
    if count <= 1 {
        return pattern.to_ascii_uppercase();
    }
    let digits = pattern
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let (stem, num) = pattern.split_at(pattern.len() - digits);
    let base: u64 = num.parse().unwrap_or(0);
    let width = digits.max(1);
    format!("{}{:0width$}", stem, base + k as u64).to_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_patterns() {
        assert_eq!(expand_name("LNX%02d", 1, 0, 5), "LNX01");
        assert_eq!(expand_name("lnx%02d", 1, 4, 5), "LNX05");
        assert_eq!(expand_name("LNX00080", 1, 3, 5), "LNX00083");
        assert_eq!(expand_name("DB", 1, 0, 1), "DB");
    }
}
