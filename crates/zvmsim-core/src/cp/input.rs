//! What a z/VM console accepts as a CP command line, before CP parses it: its length and its
//! characters. CP separates operands by blanks only (X'40'); any other character, a
//! non-breaking space included, is part of a word.

/// Longest CP command line: DIAGNOSE X'08', the interface through which a command line
/// reaches CP from a virtual machine, takes at most 240 characters (VM/SP System Programmer's
/// Guide, DIAGNOSE Code X'08'; that z/VM keeps the limit is an inference). A 3270 console's
/// input area is shorter still.
pub const MAX_LINE: usize = 240;

/// CP's blank: the only operand separator.
pub(crate) const BLANK: char = ' ';

/// Checks a command line's length and characters. A control character cannot be typed on a
/// 3270 console; IBM documents no CP message for one, so zvmsim rejects the line in its own
/// words rather than invent CP's.
pub fn check(line: &str) -> Result<(), String> {
    if let Some((i, c)) = line.chars().enumerate().find(|(_, c)| c.is_control()) {
        return Err(format!(
            "not simulated by zvmsim: a CP command line with control character U+{:04X} at column {}; a 3270 console cannot enter one",
            u32::from(c),
            i + 1
        ));
    }
    let n = line.trim_matches(BLANK).chars().count();
    if n > MAX_LINE {
        return Err(format!(
            "a CP command line holds at most {MAX_LINE} characters (DIAGNOSE X'08'); this one has {n}"
        ));
    }
    Ok(())
}

/// The blank-separated words of a line.
pub(crate) fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(BLANK).filter(|w| !w.is_empty())
}

/// The words of an upper-cased CP command line, without a leading `CP` (CP skips it).
pub(crate) fn command_words(upper: &str) -> Vec<&str> {
    let mut w: Vec<&str> = upper.split_whitespace().collect();
    if w.first() == Some(&"CP") {
        w.remove(0);
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_long_lines_are_refused() {
        assert!(check("QUERY\tSTORAGE")
            .unwrap_err()
            .contains("U+0009 at column 6"));
        assert!(check("Q STOR\u{7}").unwrap_err().contains("U+0007"));
        assert!(check("Q STOR\u{85}").unwrap_err().contains("U+0085"));
        let long = format!("MSG OP {}", "x".repeat(MAX_LINE));
        assert!(check(&long).unwrap_err().contains("at most 240"));
        assert!(check(&format!("  {}  ", "Q".repeat(MAX_LINE))).is_ok());
        assert!(check("QUERY\u{a0}STORAGE").is_ok(), "a printable character");
    }

    #[test]
    fn only_blanks_separate_words() {
        let w: Vec<&str> = words("  QUERY\u{a0}STOR  X ").collect();
        assert_eq!(w, ["QUERY\u{a0}STOR", "X"]);
    }
}
