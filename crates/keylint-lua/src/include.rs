//! Script include files: a `--- @include "name"` line pulls another Lua file into the
//! script, as queue libraries' script loaders do (the line is replaced by the file's
//! text before the script is sent to the server).
//!
//! The frontend reads no file itself: the caller passes an [`IncludeLoader`]. A name is
//! resolved relative to the directory of the file that includes it; a name without an
//! extension gets `.lua`, and `includes/<name>.lua` is tried last. Each file is pulled
//! in once, its own includes before it, the way the loaders inline them.
//!
//! The analysis runs on one text: every included file, in order, then the script. A
//! span inside an included file cannot be shown in the script's diagnostics, so the
//! evaluator moves it to the place in the script that reached it (the call of an
//! included function, or the `@include` line); see `Eval::visible`.

/// Reads the files a script includes.
pub trait IncludeLoader: Sync {
    /// The text of `path`: `/`-separated, relative to the directory of the file being
    /// linted, possibly starting with `..`. `None` when there is no such file.
    fn load(&self, path: &str) -> Option<String>;

    /// The names of the other `.lua` files in the directory of the file being linted
    /// (each loadable with [`IncludeLoader::load`]), sorted; empty when not known. A
    /// library file with no script of its own is judged with the scripts among them
    /// that use it (see the crate's project index).
    fn siblings(&self) -> Vec<String> {
        Vec::new()
    }

    /// Where the index of [`IncludeLoader::siblings`] is kept between files of one
    /// run; `None` indexes them again for every file.
    fn index_cache(&self) -> Option<&crate::IndexCache> {
        None
    }
}

/// Most files pulled into one script.
const MAX_FILES: usize = 64;
/// Most bytes pulled into one script.
const MAX_BYTES: usize = 4 << 20;

/// A script with its included files in front of it.
#[derive(Debug, Default)]
pub(crate) struct Assembled {
    /// The included files' texts, each followed by a line break, then the script.
    pub text: String,
    /// Where the script starts in `text`.
    pub script_start: usize,
    /// For each included file: its range in `text` and the `@include` line of the
    /// script (in `text` offsets) that pulled it in, directly or through other files.
    pub regions: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
    /// The paths read, in order.
    pub files: Vec<String>,
}

/// The name an `@include` line names, with the line's range (without its line break).
pub(crate) fn directives(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let range = start..start + line.trim_end_matches(['\n', '\r']).len();
        start += line.len();
        let Some(rest) = line.trim_start().strip_prefix("--") else {
            continue;
        };
        let rest = rest.strip_prefix('-').unwrap_or(rest);
        let Some(rest) = rest
            .trim_start_matches([' ', '\t'])
            .strip_prefix("@include")
        else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let rest = rest.trim_start_matches([' ', '\t']);
        let Some(q) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        let body = &rest[1..];
        let Some(end) = body.find(q) else {
            continue;
        };
        let name = &body[..end];
        let tail = body[end + 1..].trim_end_matches(['\n', '\r']);
        if name.is_empty() || !tail.chars().all(|c| matches!(c, ';' | ' ' | '\t')) {
            continue;
        }
        out.push((name.to_string(), range));
    }
    out
}

/// `dir/name`, with `.` and `..` segments resolved (`..` past the start is kept).
fn join(dir: &str, name: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in name.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// Candidate paths for `name` included from a file in `dir`.
fn candidates(dir: &str, name: &str) -> Vec<String> {
    if name.starts_with(['/', '<', '~']) {
        // Absolute and mapped paths (`<includes>/x`) depend on the loader's setup.
        return Vec::new();
    }
    let has_ext = name
        .rsplit('/')
        .next()
        .is_some_and(|base| base.rfind('.').is_some_and(|i| i > 0 && i + 1 < base.len()));
    let mut out = Vec::new();
    if has_ext {
        out.push(join(dir, name));
    } else {
        out.push(join(dir, &format!("{name}.lua")));
        out.push(join(dir, &format!("includes/{name}.lua")));
    }
    out
}

struct Builder<'l> {
    loader: &'l dyn IncludeLoader,
    files: Vec<(String, String)>,
    seen: Vec<String>,
    bytes: usize,
}

impl Builder<'_> {
    /// Pulls in the includes of `text` (a file at `path`), depth first.
    fn pull(&mut self, text: &str, path: &str, depth: usize) {
        if depth > 16 {
            return;
        }
        for (name, _) in directives(text) {
            self.pull_one(dir_of(path), &name, depth);
        }
    }

    fn pull_one(&mut self, dir: &str, name: &str, depth: usize) -> Option<()> {
        if self.files.len() >= MAX_FILES {
            return None;
        }
        for p in candidates(dir, name) {
            if self.seen.contains(&p) {
                return Some(());
            }
            if let Some(t) = self.loader.load(&p) {
                if self.bytes + t.len() > MAX_BYTES {
                    return None;
                }
                self.bytes += t.len();
                self.seen.push(p.clone());
                self.pull(&t, &p, depth + 1);
                self.files.push((p, t));
                return Some(());
            }
        }
        None
    }
}

/// The script with everything it includes, or `None` when it includes nothing that
/// could be read.
pub(crate) fn assemble(source: &str, loader: &dyn IncludeLoader) -> Option<Assembled> {
    let tops = directives(source);
    if tops.is_empty() {
        return None;
    }
    let mut b = Builder {
        loader,
        files: Vec::new(),
        seen: Vec::new(),
        bytes: 0,
    };
    // Which files each directive of the script pulled in.
    let mut owners: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    for (name, line) in tops {
        let before = b.files.len();
        b.pull_one("", &name, 0);
        owners.push((b.files.len() - before, line));
    }
    if b.files.is_empty() {
        return None;
    }
    let mut out = Assembled::default();
    let mut file_lines = Vec::new();
    for (n, line) in owners {
        file_lines.extend(std::iter::repeat_n(line, n));
    }
    let mut ranges = Vec::new();
    for (path, text) in b.files {
        let start = out.text.len();
        out.text.push_str(&text);
        ranges.push(start..out.text.len());
        out.text.push('\n');
        out.files.push(path);
    }
    out.script_start = out.text.len();
    // A shebang must stay the script's own: blank it (the caller reads it from the
    // script), keeping every offset.
    if source.starts_with("#!") {
        let end = source.find('\n').unwrap_or(source.len());
        out.text.push_str(&" ".repeat(end));
        out.text.push_str(&source[end..]);
    } else {
        out.text.push_str(source);
    }
    let shift = out.script_start;
    out.regions = ranges
        .into_iter()
        .zip(file_lines)
        .map(|(r, l)| (r, l.start + shift..l.end + shift))
        .collect();
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Files(Vec<(&'static str, &'static str)>);

    impl IncludeLoader for Files {
        fn load(&self, path: &str) -> Option<String> {
            self.0
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, t)| t.to_string())
        }
    }

    #[test]
    fn directives_are_read_like_the_loaders_do() {
        let src = "--- @include \"includes/a\"\n-- @include 'b.lua';\n---@include \"c\"\n--- @include x\nlocal y = 1 --- @include \"z\"\n";
        let d: Vec<String> = directives(src).into_iter().map(|d| d.0).collect();
        assert_eq!(d, ["includes/a", "b.lua", "c"]);
    }

    #[test]
    fn paths_resolve_relative_to_the_including_file() {
        assert_eq!(
            candidates("", "includes/a"),
            ["includes/a.lua", "includes/includes/a.lua"]
        );
        assert_eq!(
            candidates("includes", "b"),
            ["includes/b.lua", "includes/includes/b.lua"]
        );
        assert_eq!(candidates("x", "../y.lua"), ["y.lua"]);
        assert_eq!(candidates("", "../y.lua"), ["../y.lua"]);
        assert!(candidates("", "<base>/y").is_empty());
    }

    #[test]
    fn includes_come_first_depth_first_and_once() {
        let files = Files(vec![
            (
                "includes/a.lua",
                "--- @include \"b\"\nlocal function a() end",
            ),
            ("includes/b.lua", "local function b() end"),
        ]);
        let src = "--- @include \"includes/a\"\n--- @include \"includes/b\"\nreturn 1\n";
        let a = assemble(src, &files).expect("includes");
        assert_eq!(a.files, ["includes/b.lua", "includes/a.lua"]);
        assert!(a.text.ends_with(src));
        assert_eq!(&a.text[a.script_start..], src);
        // Both files were pulled in by the script's first line.
        for (_, line) in &a.regions {
            assert_eq!(&a.text[line.clone()], "--- @include \"includes/a\"");
        }
    }
}
