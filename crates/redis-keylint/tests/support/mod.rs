//! What the fixture tests share: the list of fixtures, and the expectation markers
//! they carry. A test file that uses it also declares the binary's registry of
//! languages as `mod frontends`.
#![allow(dead_code)]

use keylint_core::expect::Marker;
use keylint_core::frontend::Lang;
use keylint_core::Rule;
use std::path::{Path, PathBuf};

/// The workspace root, where `fixtures/` and `rules/` are.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir`, in sorted order, depth first.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let mut out = Vec::new();
    for p in entries {
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A fixture that carries expectation markers.
pub struct Marked {
    /// Relative to the workspace root (`fixtures/python/...`).
    pub rel: PathBuf,
    pub lang: Lang,
    pub markers: Vec<Marker>,
}

impl Marked {
    /// Whether a marker of the fixture expects `rule`.
    pub fn expects(&self, rule: Rule) -> bool {
        self.markers
            .iter()
            .any(|m| m.rules.iter().any(|(_, r)| *r == Some(rule)))
    }
}

/// Every fixture of a language the binary reads that carries markers, in sorted order.
pub fn marked_fixtures() -> Vec<Marked> {
    let root = root();
    let mut out = Vec::new();
    for path in files_under(&root.join("fixtures")) {
        let Some(lang) = crate::frontends::by_path(&path) else {
            continue;
        };
        let Ok(source) = std::fs::read_to_string(&path) else {
            continue;
        };
        let markers = keylint_core::expect::parse(&source, lang);
        if markers.is_empty() {
            continue;
        }
        let rel = path.strip_prefix(&root).unwrap().to_path_buf();
        out.push(Marked { rel, lang, markers });
    }
    out
}
