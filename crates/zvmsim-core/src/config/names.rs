//! User ID patterns of the directory entries: `LNX%02d` or a name ending in digits.

pub(crate) fn expand_name(pattern: &str, first: u32, k: u32, count: u32) -> String {
    if let Some(pos) = pattern.find('%') {
        // printf-like %d / %0Nd
        let rest = &pattern[pos + 1..];
        let end = rest.find('d').unwrap_or(0);
        let spec = &rest[..end];
        let width: usize = spec.trim_start_matches('0').parse().unwrap_or(0);
        let num = first + k;
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
