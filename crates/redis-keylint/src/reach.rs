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
    out.extend(second_hop(paths, scans, &out, loader));
    for (i, scan) in scans.iter().enumerate() {
        if operates(scan)
            && named[i]
            && !out.contains(&i)
            && imported_by_redis_code(paths[i], loader)
        {
            out.push(i);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether the first wave found a file that failed the prefilter but calls
/// operations ([`crate::lint::Scan::operates`]).
fn operates(scan: &Option<Scan>) -> bool {
    scan.as_ref().is_some_and(|s| s.operates)
}

/// Importers of a named file read, at most (see [`imported_by_redis_code`]).
const MAX_IMPORTERS: usize = 32;

/// Whether a file of the project imports the module file `path` and either mentions
/// Redis or imports a module that does: for a file named on the command line (what
/// pre-commit passes) that calls operations but never mentions Redis, the hops
/// [`second_hop`] makes from the files of a whole run, made from the file through
/// the reverse index of imported names. False when the index cannot say.
fn imported_by_redis_code(path: &Path, loader: &dyn ModuleLoader) -> bool {
    let (Some(module), Some(stem)) = (crate::project::module_name(path), module_stem(path)) else {
        return false;
    };
    let word = format!("{}{stem}", keylint_core::frontend::IMPORTED_PREFIX);
    let Some(files) = loader.mentions(&module, &word) else {
        return false;
    };
    let mentions = |p: &str| {
        loader
            .read(p)
            .is_some_and(|t| keylint_core::prefilter::mentions_redis(t.as_bytes()))
    };
    files
        .iter()
        .filter(|f| **f != module)
        .take(MAX_IMPORTERS)
        .any(|f| {
            let Some(text) = loader.read(f) else {
                return false;
            };
            let scan = Scan {
                imports: keylint_python::scan_imports(&text),
                ..Scan::default()
            };
            let resolved: Vec<String> = candidates(&scan)
                .filter_map(|(level, dotted)| match loader.resolve(f, level, &dotted) {
                    Some(ModuleFile::Source(p)) => Some(p),
                    _ => None,
                })
                .collect();
            resolved.contains(&module)
                && (keylint_core::prefilter::mentions_redis(text.as_bytes())
                    || resolved.iter().any(|p| mentions(p)))
        })
}

/// Files that fail the prefilter but call a pipeline, a script or a command over
/// several keys ([`crate::lint::Scan::operates`]), imported by a file the second wave
/// reaches: a helper module handed a client by a module that got it from one that
/// mentions Redis (`get_status(managers.rclient, services)` in a view that imports
/// `managers`). One more hop, for such files only.
fn second_hop(
    paths: &[&Path],
    scans: &[Option<Scan>],
    reached: &[usize],
    loader: &dyn ModuleLoader,
) -> Vec<usize> {
    let operating: HashSet<&str> = paths
        .iter()
        .zip(scans)
        .filter(|(_, s)| operates(s))
        .filter_map(|(p, _)| module_stem(p))
        .collect();
    if operating.is_empty() || reached.is_empty() {
        return Vec::new();
    }
    let mut imported = HashSet::new();
    for &i in reached {
        let Some(scan) = &scans[i] else { continue };
        let Some(from) = crate::project::module_name(paths[i]) else {
            continue;
        };
        for (level, dotted) in candidates(scan) {
            if !operating.contains(last(&dotted)) {
                continue;
            }
            if let Some(ModuleFile::Source(p)) = loader.resolve(&from, level, &dotted) {
                imported.insert(p);
            }
        }
    }
    let mut out = Vec::new();
    for (i, (path, scan)) in paths.iter().zip(scans).enumerate() {
        if !operates(scan) || reached.contains(&i) {
            continue;
        }
        let Some(module) = crate::project::module_name(path) else {
            continue;
        };
        if imported.contains(&module) {
            out.push(i);
        }
    }
    out
}
