//! The file access behind the frontends' [`FileLoader`]: the library crates never read
//! files themselves; the binary (and the tests and examples that lint files as it does)
//! hands them this loader.
//!
//! This file is also included by path from the conformance tests and the Python
//! frontend's `dump` example, so it depends on nothing of the binary.

use keylint_core::frontend::FileLoader;

/// A [`FileLoader`] for a module in directory `dir`: module-relative paths are read
/// from `dir`; paths the code wrote as relative to its working directory are tried
/// from `dir` and then from each parent directory (the project root is usually one of
/// them). Files over 1 MiB or not UTF-8 are not read.
#[derive(Debug, Clone)]
pub struct DirLoader {
    dir: std::path::PathBuf,
}

impl DirLoader {
    /// A loader for a module whose file is in `dir`.
    pub fn new(dir: &std::path::Path) -> DirLoader {
        DirLoader {
            dir: dir.to_path_buf(),
        }
    }
}

impl FileLoader for DirLoader {
    fn load(&self, path: &str, from_module_dir: bool) -> Option<String> {
        const MAX: u64 = 1 << 20;
        let read = |p: &std::path::Path| -> Option<String> {
            let meta = std::fs::metadata(p).ok()?;
            if !meta.is_file() || meta.len() > MAX {
                return None;
            }
            String::from_utf8(std::fs::read(p).ok()?).ok()
        };
        if std::path::Path::new(path).is_absolute() {
            return None;
        }
        if from_module_dir {
            return read(&self.dir.join(path));
        }
        let mut dir: Option<&std::path::Path> = Some(&self.dir);
        let mut tries = 0;
        while let Some(d) = dir {
            if let Some(t) = read(&d.join(path)) {
                return Some(t);
            }
            tries += 1;
            if tries > 6 {
                break;
            }
            dir = d.parent().filter(|p| !p.as_os_str().is_empty());
        }
        None
    }

    fn list(&self, dir: &str) -> Vec<String> {
        /// Most names listed.
        const MAX: usize = 4096;
        if std::path::Path::new(dir).is_absolute() {
            return Vec::new();
        }
        // A file named without a directory is in the working directory.
        let base = match self.dir.as_os_str().is_empty() {
            true => std::path::Path::new("."),
            false => self.dir.as_path(),
        };
        let Ok(entries) = std::fs::read_dir(base.join(dir)) else {
            return Vec::new();
        };
        let mut out: Vec<String> = entries
            .filter_map(Result::ok)
            .take(MAX)
            .filter(|e| std::fs::metadata(e.path()).is_ok_and(|m| m.is_file()))
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        out.sort();
        out
    }
}
