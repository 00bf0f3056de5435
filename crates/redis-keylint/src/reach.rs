//! The second wave of a run: Python files that never mention Redis but are part of
//! the project's Redis code, because they import a file of the run that mentions it
//! (a module that uses the client a shared module makes) or a file of the run that
//! mentions it imports them (a helper module given the client). Direct imports
//! only, in either direction.
//!
//! Cheap by construction: the first wave reads every file anyway, and keeps each
//! Python file's imports read from its bytes ([`keylint_python::scan_imports`]). An
//! import is looked up only when its last name is the file name of a file on the
//! other side (a file that mentions Redis for one that does not, and the reverse),
//! so a tree where the two never meet costs string lookups only.

use crate::lint::Scan;
use keylint_core::frontend::{ModuleFile, ModuleLoader};
use std::collections::HashSet;
use std::path::Path;

/// The name a module file is imported by: its stem, or its directory's name for a
/// package's `__init__.py`.
fn module_stem(path: &Path) -> Option<&str> {
    let stem = path.file_stem()?.to_str()?;
    if stem == "__init__" {
        path.parent()?.file_name()?.to_str()
    } else {
        Some(stem)
    }
}

/// The modules an import may load, as (level, dotted) with the last name of each.
fn candidates(scan: &Scan) -> impl Iterator<Item = (usize, String)> + '_ {
    scan.imports.iter().flat_map(|imp| {
        let mut out = Vec::new();
        if !imp.dotted.is_empty() {
            out.push((imp.level, imp.dotted.clone()));
        }
        for n in &imp.names {
            let dotted = if imp.dotted.is_empty() {
                n.clone()
            } else {
                format!("{}.{n}", imp.dotted)
            };
            out.push((imp.level, dotted));
        }
        out
    })
}

fn last(dotted: &str) -> &str {
    dotted.rsplit('.').next().unwrap_or(dotted)
}

/// The indices of the files to lint in the second wave: those that failed the
/// prefilter and import, or are imported by, one that passed. `scans[i]` is the
/// first wave's scan of `paths[i]` (`None` for files that are not Python); a file
/// named on the command line (`named[i]`, what pre-commit passes) is also reached
/// when a module it imports mentions Redis outside the run (read for that only).
pub fn reached(
    paths: &[&Path],
    scans: &[Option<Scan>],
    named: &[bool],
    loader: &dyn ModuleLoader,
) -> Vec<usize> {
    let mut passing_stems = HashSet::new();
    let mut failing_stems = HashSet::new();
    let mut passing_modules = HashSet::new();
    for (path, scan) in paths.iter().zip(scans) {
        let Some(scan) = scan else { continue };
        let Some(stem) = module_stem(path) else {
            continue;
        };
        if scan.passed {
            passing_stems.insert(stem);
            if let Some(m) = &scan.module {
                passing_modules.insert(m.as_str());
            }
        } else {
            failing_stems.insert(stem);
        }
    }
    let any_named = paths
        .iter()
        .zip(scans)
        .zip(named)
        .any(|((_, s), &n)| n && s.as_ref().is_some_and(|s| !s.passed));
    if failing_stems.is_empty() || passing_stems.is_empty() && !any_named {
        return Vec::new();
    }
    // Files that fail the prefilter, imported by one that passes.
    let mut imported = HashSet::new();
    let mut imported_stems = HashSet::new();
    for scan in scans.iter().flatten().filter(|s| s.passed) {
        let Some(from) = &scan.module else { continue };
        for (level, dotted) in candidates(scan) {
            if !failing_stems.contains(last(&dotted)) {
                continue;
            }
            if let Some(ModuleFile::Source(p)) = loader.resolve(from, level, &dotted) {
                imported_stems.insert(module_stem(Path::new(&p)).unwrap_or("").to_string());
                imported.insert(p);
            }
        }
    }
    let mut out = Vec::new();
    for (i, (path, scan)) in paths.iter().zip(scans).enumerate() {
        let Some(scan) = scan.as_ref().filter(|s| !s.passed) else {
            continue;
        };
        let stem = module_stem(path).unwrap_or("");
        let maybe_imported = imported_stems.contains(stem);
        let mut imports = candidates(scan)
            .filter(|(_, d)| named[i] || passing_stems.contains(last(d)))
            .peekable();
        if !maybe_imported && imports.peek().is_none() {
            continue;
        }
        let Some(module) = crate::project::module_name(path) else {
            continue;
        };
        let hit = (maybe_imported && imported.contains(&module))
            || imports.any(|(level, dotted)| {
                let Some(ModuleFile::Source(p)) = loader.resolve(&module, level, &dotted) else {
                    return false;
                };
                passing_modules.contains(p.as_str())
                    || named[i]
                        && loader
                            .read(&p)
                            .is_some_and(|t| keylint_core::prefilter::mentions_redis(t.as_bytes()))
            });
        if hit {
            out.push(i);
        }
    }
    out
}
