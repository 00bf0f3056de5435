//! Embeds `rules/*.md` so that `redis-keylint explain` works from any directory, and
//! stamps the commit into `redis-keylint --version`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    version();
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

/// Sets `REDIS_KEYLINT_VERSION`: the package version, then the commit and its date when
/// the sources are a git checkout of this project (`0.1.0 (3ce7ff2a1 2026-11-30)`).
/// From a source archive (no `.git` beside the manifest) it is the version alone: a
/// repository that merely contains the extracted sources is not asked.
fn version() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap();
    let full = match commit(&root) {
        Some(c) => format!("{version} ({c})"),
        None => version,
    };
    println!("cargo:rustc-env=REDIS_KEYLINT_VERSION={full}");
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let o = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    let s = String::from_utf8(o.stdout).ok()?;
    (o.status.success() && !s.trim().is_empty()).then(|| s.trim().to_string())
}

fn commit(root: &Path) -> Option<String> {
    // `.git` is a directory in a clone and a file in a worktree.
    if !root.join(".git").exists() {
        return None;
    }
    // Rebuild when HEAD moves: HEAD itself, the branch it names, and packed refs.
    let mut watch = vec![git(root, &["rev-parse", "--git-path", "HEAD"])];
    if let Some(r) = git(root, &["symbolic-ref", "-q", "HEAD"]) {
        watch.push(git(root, &["rev-parse", "--git-path", &r]));
    }
    watch.push(git(root, &["rev-parse", "--git-path", "packed-refs"]));
    for p in watch.into_iter().flatten() {
        let p = root.join(p);
        // A path that does not exist would make cargo rerun this script on every build.
        if p.exists() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
    git(
        root,
        &[
            "log",
            "-1",
            "--no-show-signature",
            "--format=%h %cs",
            "--abbrev=9",
        ],
    )
}
