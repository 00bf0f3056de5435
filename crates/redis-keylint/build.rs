//! Embeds `rules/*.md` so that `redis-keylint explain` works from any directory.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("rules");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut entries: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    let mut out = String::from("/// Rule docs embedded from `rules/*.md`: (name, markdown).\npub static RULE_DOCS: &[(&str, &str)] = &[\n");
    for (name, path) in entries {
        println!("cargo:rerun-if-changed={}", path.display());
        let _ = writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            path.canonicalize().unwrap().display().to_string()
        );
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("rule_docs.rs");
    std::fs::write(dest, out).unwrap();
}
