//! The rules. Each reads only the [`FileModel`] and appends findings.

mod broad_hash_tag;
mod cross_slot;
mod hash_tags;
mod script_keys;

use crate::diagnostic::Finding;
use crate::model::FileModel;
use crate::template::Lang;

/// The language each key of the model was written in: a script's keys are Lua, also
/// when the script is embedded in a Python file; the rest are in the file's language.
pub(crate) fn key_langs(model: &FileModel) -> Vec<Lang> {
    let mut out = vec![model.lang; model.keys.len()];
    for s in &model.scripts {
        for &k in &s.keys {
            if let Some(l) = out.get_mut(k) {
                *l = Lang::Lua;
            }
        }
    }
    out
}

/// The f-string trap, told wherever a Python key's braces matter.
pub(crate) const FSTRING_TRAP: &str = "in an f-string, `{uid}` is the value and `{{`/`}}` \
     are literal braces: `f\"user:{uid}\"` has no hash tag, `f\"user:{{uid}}\"` has the \
     constant tag `uid`, and `f\"user:{{{uid}}}\"` is tagged by the value of `uid`";

/// Settings the rules read. The binary fills them from configuration.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Low-cardinality identities that make a hash tag broad (`tenant`, `env`, …).
    pub broad_identities: Vec<String>,
}

/// The identities that make a tag broad when no configuration says otherwise.
pub const DEFAULT_BROAD_IDENTITIES: &[&str] = &[
    "global",
    "tenant",
    "org",
    "organization",
    "account",
    "env",
    "environment",
    "region",
    "zone",
    "dc",
    "datacenter",
    "cluster",
    "date",
    "day",
    "month",
    "year",
    "hour",
    "shard",
    "app",
    "service",
    "all",
];

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            broad_identities: DEFAULT_BROAD_IDENTITIES
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }
}

/// Runs every rule on a model. Findings come back sorted by position.
pub fn check(model: &FileModel, settings: &Settings) -> Vec<Finding> {
    let mut out = model.findings.clone();
    hash_tags::check(model, &mut out);
    broad_hash_tag::check(model, settings, &mut out);
    cross_slot::check(model, &mut out);
    script_keys::check(model, &mut out);
    out.sort_by(|a, b| {
        (a.primary.span.start, a.primary.span.end, a.rule).cmp(&(
            b.primary.span.start,
            b.primary.span.end,
            b.rule,
        ))
    });
    out
}
