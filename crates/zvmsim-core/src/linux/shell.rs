//! The shell side of a guest command line: splitting it into words as bash does (quoting,
//! `|`, `;`, `&&`, `&`, substitutions), `NAME=value` prefixes, redirections, and bash's answer
//! to a command it cannot find. Kept apart from the commands so that their parsing sees only
//! a program name and its arguments.

/// A word of the command line after quote removal; `quoted` words are never operators.
pub(super) struct Word {
    pub(super) text: String,
    pub(super) quoted: bool,
}

/// A command line split as bash would: simple commands (separated by `|`, `;`, `&&`, `||`,
/// `&`), and whether it needs more than one simple command or a substitution.
pub(super) struct Lexed {
    pub(super) commands: Vec<Vec<Word>>,
    pub(super) compound: bool,
}

pub(super) fn lex(line: &str) -> Result<Lexed, String> {
    let mut commands: Vec<Vec<Word>> = vec![Vec::new()];
    let mut compound = false;
    let mut text = String::new();
    let mut quoted = false;
    let mut started = false;
    let mut quote: Option<char> = None;
    let chars: Vec<char> = line.chars().collect();
    let flush = |commands: &mut Vec<Vec<Word>>,
                 text: &mut String,
                 quoted: &mut bool,
                 started: &mut bool| {
        if *started {
            commands
                .last_mut()
                .expect("one command at least")
                .push(Word {
                    text: std::mem::take(text),
                    quoted: *quoted,
                });
        }
        *quoted = false;
        *started = false;
    };
    for (i, &c) in chars.iter().enumerate() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '`') | (None, '`') => {
                compound = true;
                text.push(c);
            }
            (Some('"'), '$') | (None, '$') if chars.get(i + 1) == Some(&'(') => {
                compound = true;
                text.push(c);
            }
            (Some(_), c) => text.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                quoted = true;
                started = true;
            }
            // bash's blanks are space and tab; a non-breaking space is part of a word.
            (None, ' ' | '\t') => flush(&mut commands, &mut text, &mut quoted, &mut started),
            // `2>&1`, `&>file`: part of a redirection, not a list operator.
            (None, '&') if text.ends_with(['>', '<']) || chars.get(i + 1) == Some(&'>') => {
                text.push(c);
                started = true;
            }
            (None, '|' | ';' | '&' | '\n') => {
                flush(&mut commands, &mut text, &mut quoted, &mut started);
                compound = true;
                if !commands.last().expect("one command at least").is_empty() {
                    commands.push(Vec::new());
                }
            }
            (None, c) => {
                text.push(c);
                started = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!(
            "-bash: unexpected EOF while looking for matching `{q}'"
        ));
    }
    flush(&mut commands, &mut text, &mut quoted, &mut started);
    commands.retain(|c| !c.is_empty());
    Ok(Lexed { commands, compound })
}

/// `NAME=value` before a command sets a variable for it.
pub(super) fn is_assignment(w: &Word) -> bool {
    !w.quoted
        && w.text.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// A redirection operator at the start of an unquoted word: its length (`>`, `>>`, `2>`,
/// `2>&`, `&>`, `<`...).
pub(super) fn redirection(w: &Word) -> Option<usize> {
    if w.quoted {
        return None;
    }
    let t = w.text.as_str();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &t[digits..];
    let op = if rest.starts_with("&>>") {
        3
    } else if rest.starts_with("&>")
        || rest.starts_with(">>")
        || rest.starts_with(">&")
        || rest.starts_with("<&")
    {
        2
    } else if rest.starts_with(['>', '<']) {
        1
    } else {
        return None;
    };
    Some(digits + op)
}

/// A redirection: its operator and target.
pub(super) struct Redirect {
    op: String,
    pub(super) target: String,
}

impl Redirect {
    /// Redirects standard output (where `echo` writes).
    pub(super) fn stdout(&self) -> bool {
        matches!(
            self.op.as_str(),
            ">" | ">>" | "1>" | "1>>" | "&>" | "&>>" | ">|"
        )
    }
}

pub(super) fn split_redirections(words: &[Word]) -> Result<(Vec<&str>, Vec<Redirect>), String> {
    let mut args = Vec::new();
    let mut redirects = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        match redirection(w) {
            Some(n) => {
                let (op, rest) = w.text.split_at(n);
                let target = if rest.is_empty() {
                    i += 1;
                    match words.get(i) {
                        Some(t) if redirection(t).is_none() => t.text.clone(),
                        Some(t) => {
                            return Err(format!(
                                "-bash: syntax error near unexpected token `{}'",
                                t.text
                            ))
                        }
                        None => {
                            return Err("-bash: syntax error near unexpected token `newline'".into())
                        }
                    }
                } else {
                    rest.to_string()
                };
                redirects.push(Redirect {
                    op: op.to_string(),
                    target,
                });
            }
            None => args.push(w.text.as_str()),
        }
        i += 1;
    }
    Ok((args, redirects))
}

/// bash's blanks and line end, trimmed around a typed line.
pub(super) const BLANKS: [char; 3] = [' ', '\t', '\n'];

/// A name as bash prints it in an error: as is when printable, else in `$'...'` quoting with
/// C escapes and octal bytes (bash's ansic_quote, lib/sh/strtrans.c), as in the familiar
/// `$'\r': command not found` of a script with CRLF line ends.
pub(super) fn shown(name: &str) -> String {
    if !name.chars().any(char::is_control) {
        return name.to_string();
    }
    let mut out = String::from("$'");
    for c in name.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\u{1b}' => out.push_str("\\E"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// bash's line when `echo` writes a value the file refuses (EINVAL).
pub(crate) const ECHO_EINVAL: &str = "-bash: echo: write error: Invalid argument";

/// What `cat PATH` (or, `writing`, `echo ... > PATH`) prints for a file that does not exist.
pub(crate) fn no_such_file(path: &str, writing: bool) -> String {
    match writing {
        true => format!("-bash: {path}: No such file or directory"),
        false => format!("cat: {path}: No such file or directory"),
    }
}

/// The shell's answer to a command it cannot find.
pub(super) fn find_command(name: &str) -> Result<(), String> {
    if super::catalog::command_exists(name) {
        return Ok(());
    }
    not_found(name)
}

/// What bash says for a command it does not find.
pub(super) fn not_found(name: &str) -> Result<(), String> {
    let name = &shown(name);
    if name.contains('/') {
        Err(format!("-bash: {name}: No such file or directory"))
    } else {
        Err(format!("-bash: {name}: command not found"))
    }
}
