//! `--set key=value` overrides: applied to the TOML document before it is parsed, and
//! errors in an overridden value reported against the override rather than the file.

use crate::config::scenario::ScenarioError;
use crate::config::source::{line_col, split_path, PathSeg};

/// Apply `--set key=value` overrides on the document, keeping its layout (and so its line
/// numbers) intact.
pub(super) fn apply_overrides(
    text: &str,
    file: &str,
    overrides: &[String],
) -> Result<String, ScenarioError> {
    if overrides.is_empty() {
        return Ok(text.to_string());
    }
    let bad = |o: &str, d: String| ScenarioError {
        file: format!("--set {o}"),
        line: 1,
        column: 1,
        field: o.split('=').next().unwrap_or("").trim().to_string(),
        detail: d,
    };
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        ScenarioError {
            file: file.into(),
            line,
            column,
            field: String::new(),
            detail: e.message().trim().into(),
        }
    })?;
    for o in overrides {
        let (key, raw) = o.split_once('=').ok_or_else(|| {
            bad(
                o,
                "an override is written key=value, e.g. run.seed=7".into(),
            )
        })?;
        let key = key.trim();
        if key.is_empty() {
            return Err(bad(o, "empty key".into()));
        }
        check_key(key).map_err(|d| bad(o, d))?;
        let raw = raw.trim();
        let value: toml_edit::Value = raw
            .parse()
            .unwrap_or_else(|_| toml_edit::Value::from(raw.to_string()));
        let segs = split_path(key);
        let mut item = doc.as_item_mut();
        for (i, seg) in segs.iter().enumerate() {
            let last = i + 1 == segs.len();
            item = match seg {
                PathSeg::Key(k) => {
                    let t = item
                        .as_table_like_mut()
                        .ok_or_else(|| bad(o, format!("`{k}` is not inside a table")))?;
                    if last {
                        t.insert(k, toml_edit::Item::Value(value.clone()));
                        break;
                    }
                    if t.get(k).is_none() {
                        t.insert(k, toml_edit::Item::Table(toml_edit::Table::new()));
                    }
                    t.get_mut(k).ok_or_else(|| bad(o, format!("no `{k}`")))?
                }
                PathSeg::Index(ix) => {
                    let n = match &*item {
                        toml_edit::Item::ArrayOfTables(a) => a.len(),
                        toml_edit::Item::Value(toml_edit::Value::Array(a)) => a.len(),
                        _ => 0,
                    };
                    if *ix >= n {
                        return Err(bad(
                            o,
                            format!("index [{ix}] is out of range ({n} entries)"),
                        ));
                    }
                    if last {
                        item[*ix] = toml_edit::Item::Value(value.clone());
                        break;
                    }
                    &mut item[*ix]
                }
            };
        }
    }
    Ok(doc.to_string())
}

/// A key is dotted TOML bare keys (letters, digits, `_`, `-`), each optionally followed by
/// array indexes: `lpar.ifls`, `guests[0].storage`. An empty part (`lpar..ifls`, `.`) or any
/// other character is refused rather than skipped, so that an override never silently sets a
/// field other than the one typed.
fn check_key(key: &str) -> Result<(), String> {
    for part in key.split('.') {
        let name_end = part.find('[').unwrap_or(part.len());
        let (name, mut rest) = part.split_at(name_end);
        if name.is_empty() {
            return Err(format!(
                "key `{key}` has an empty part: keys are names joined by single dots, e.g. lpar.ifls or guests[0].storage"
            ));
        }
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        {
            return Err(format!(
                "key `{key}` holds {c:?}: a key part is letters, digits, `_` and `-`"
            ));
        }
        while !rest.is_empty() {
            let ok = rest
                .strip_prefix('[')
                .and_then(|r| r.split_once(']'))
                .filter(|(ix, _)| !ix.is_empty() && ix.bytes().all(|b| b.is_ascii_digit()));
            let Some((_, after)) = ok else {
                return Err(format!(
                    "key `{key}`: an index is written [N] with N a number, e.g. guests[0].storage"
                ));
            };
            rest = after;
        }
    }
    Ok(())
}

/// An error inside a value set with `--set` is reported against the override, not the file.
pub fn blame_override(mut e: ScenarioError, overrides: &[String]) -> ScenarioError {
    for o in overrides {
        let key = o.split('=').next().unwrap_or("").trim();
        if !key.is_empty()
            && (e.field == key
                || e.field.starts_with(&format!("{key}."))
                || key.starts_with(&format!("{}.", e.field)) && !e.field.is_empty())
        {
            e.file = format!("--set {o}");
            e.line = 1;
            e.column = o.find('=').map(|i| i + 2).unwrap_or(1);
            e.field = key.to_string();
            return e;
        }
    }
    e
}
