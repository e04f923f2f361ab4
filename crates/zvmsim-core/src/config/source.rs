//! Located scenario errors: where in the TOML text a field is (line and column of a dotted
//! path such as `guests[0].storage`), and parsing that reports every error against the file,
//! line, column and field a user has to fix.

use std::fmt;

use crate::config::overrides::apply_overrides;
pub use crate::config::overrides::blame_override;
use crate::config::scenario::Scenario;

/// A located scenario error: what a user sees when a file is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub field: String,
    pub detail: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: field `{}`: {}",
            self.file, self.line, self.column, self.field, self.detail
        )
    }
}

impl std::error::Error for ScenarioError {}

/// Line and column (both from 1) of a byte offset in `text`.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map(|i| offset - i).unwrap_or(offset + 1);
    (line, col)
}

/// Locates a dotted path (`guests[0].storage`) in the document; falls back to the nearest
/// existing parent.
fn locate(doc: &toml_edit::ImDocument<String>, path: &str) -> Option<std::ops::Range<usize>> {
    let mut item = doc.as_item();
    let mut best = None;
    for seg in split_path(path) {
        let next = match seg {
            PathSeg::Key(k) => item.get(k.as_str()),
            PathSeg::Index(i) => match item {
                toml_edit::Item::ArrayOfTables(a) => a.get(i).map(|_| &item[i]),
                toml_edit::Item::Value(toml_edit::Value::Array(a)) => a.get(i).map(|_| &item[i]),
                _ => None,
            },
        };
        match next {
            Some(n) => {
                item = n;
                if let Some(s) = item_span(item) {
                    best = Some(s);
                }
            }
            None => break,
        }
    }
    best
}

fn item_span(item: &toml_edit::Item) -> Option<std::ops::Range<usize>> {
    match item {
        toml_edit::Item::Value(v) => v.span(),
        toml_edit::Item::Table(t) => t.span(),
        toml_edit::Item::ArrayOfTables(a) => a.get(0).and_then(|t| t.span()),
        toml_edit::Item::None => None,
    }
}

pub(super) enum PathSeg {
    Key(String),
    Index(usize),
}

pub(super) fn split_path(path: &str) -> Vec<PathSeg> {
    let mut out = Vec::new();
    for part in path.split('.') {
        if part.is_empty() || part == "?" {
            continue;
        }
        let mut rest = part;
        if let Some(b) = rest.find('[') {
            if b > 0 {
                out.push(PathSeg::Key(rest[..b].to_string()));
            }
            rest = &rest[b..];
            while let Some(stripped) = rest.strip_prefix('[') {
                let close = stripped.find(']').unwrap_or(stripped.len());
                if let Ok(i) = stripped[..close].parse() {
                    out.push(PathSeg::Index(i));
                }
                rest = stripped.get(close + 1..).unwrap_or("");
            }
        } else {
            out.push(PathSeg::Key(rest.to_string()));
        }
    }
    out
}

/// Parsed scenario plus its source, kept to locate later (semantic) errors.
pub struct Source {
    pub file: String,
    pub text: String,
    doc: toml_edit::ImDocument<String>,
}

impl Source {
    /// `field` is written in the file (not a default).
    pub fn has(&self, field: &str) -> bool {
        locate(&self.doc, field).is_some()
    }

    pub fn error(&self, field: &str, detail: impl Into<String>) -> ScenarioError {
        let (line, column) = locate(&self.doc, field)
            .map(|s| line_col(&self.text, s.start))
            .unwrap_or((1, 1));
        ScenarioError {
            file: self.file.clone(),
            line,
            column,
            field: field.to_string(),
            detail: detail.into(),
        }
    }

    /// An error in line `index` (from 0) of the text of string field `field` (a file such as
    /// VMRM CONFIG carried in the scenario), located at that line of the TOML. A multi-line
    /// string's first line follows its opening delimiter's line break, which TOML trims.
    pub fn error_in_text(
        &self,
        field: &str,
        index: usize,
        detail: impl Into<String>,
    ) -> ScenarioError {
        let mut e = self.error(field, detail);
        if let Some(span) = locate(&self.doc, field) {
            let raw = &self.text[span.start..];
            let multi = raw.starts_with("\"\"\"") || raw.starts_with("'''");
            let trimmed_break =
                multi && (raw[3..].starts_with('\n') || raw[3..].starts_with("\r\n"));
            e.line += index + usize::from(trimmed_break);
            e.column = 1;
        }
        e
    }
}

/// Parse and validate a scenario. `file` names the source in error messages.
pub fn parse(
    text: &str,
    file: &str,
    overrides: &[String],
) -> Result<(Scenario, Source), ScenarioError> {
    let text = apply_overrides(text, file, overrides)?;
    let doc = toml_edit::ImDocument::parse(text.clone()).map_err(|e| {
        let (line, column) = e.span().map(|s| line_col(&text, s.start)).unwrap_or((1, 1));
        ScenarioError {
            file: file.into(),
            line,
            column,
            field: "(syntax)".into(),
            detail: format!("TOML syntax error: {}", one_line(e.message())),
        }
    })?;
    let src = Source {
        file: file.to_string(),
        text: text.clone(),
        doc,
    };
    let de = toml_edit::de::Deserializer::from(src.doc.clone());
    let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        blame_override(
            {
                let path = e.path().to_string();
                let inner = e.into_inner();
                let span = inner.span().or_else(|| locate(&src.doc, &path));
                let (line, column) = span.map(|s| line_col(&text, s.start)).unwrap_or((1, 1));
                let field = if path == "." { String::new() } else { path };
                let mut detail = one_line(inner.message());
                // serde reports a missing field on the enclosing table: name the field itself.
                let field = if let Some(name) = detail
                    .strip_prefix("missing field `")
                    .and_then(|r| r.split('`').next())
                {
                    let f = if field.is_empty() {
                        name.to_string()
                    } else {
                        format!("{field}.{name}")
                    };
                    detail = format!("required field `{name}` is missing");
                    f
                } else if let Some(name) = detail
                    .strip_prefix("unknown field `")
                    .and_then(|r| r.split('`').next())
                {
                    if field.is_empty() {
                        name.to_string()
                    } else if field == name || field.ends_with(&format!(".{name}")) {
                        field
                    } else {
                        format!("{field}.{name}")
                    }
                } else {
                    field
                };
                ScenarioError {
                    file: file.into(),
                    line,
                    column,
                    field,
                    detail,
                }
            },
            overrides,
        )
    })?;
    crate::config::validate::check(&scenario, &src).map_err(|e| blame_override(e, overrides))?;
    crate::config::apache::check(&scenario, &src).map_err(|e| blame_override(e, overrides))?;
    crate::config::shared::check(&scenario, &src).map_err(|e| blame_override(e, overrides))?;
    crate::config::appserver::check(&scenario, &src).map_err(|e| blame_override(e, overrides))?;
    Ok((scenario, src))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let t = "a = 1\nbb = 2\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 6), (2, 1));
        assert_eq!(line_col(t, 11), (2, 6));
    }
}
