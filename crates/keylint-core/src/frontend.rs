//! What the engine asks of a source language, and nothing else: the [`Frontend`]
//! trait, and [`Lang`], a handle to one frontend.
//!
//! A key design decision made here is that core never names a language. A frontend
//! crate implements [`Frontend`] once, in a `static`, and hands out a [`Lang`] that
//! points at it; the binary lists those handles in its registry. Everything core
//! needs to know about a language's syntax goes through the trait: where comments
//! are ([`Comments`], for suppression comments and expectation markers), and how a
//! key is written back in that language (the key printer: [`Frontend::print_key`]).
//! The two phases of a frontend are an *index* of project facts shared by every file
//! of a run ([`Frontend::index`]) and the *lower* phase that turns one file into a
//! [`FileModel`] ([`Frontend::lower`]).
//!
//! Frontends never read files: the binary hands them a [`FileLoader`] for the files
//! beside the one being linted and a [`ModuleLoader`] for the modules of a project.

use crate::model::FileModel;
use crate::template::KeyTemplate;
use std::any::Any;
use std::sync::Arc;

/// How comments are written on a line of a language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comments {
    /// Only whole lines are comments: the marker opens a comment when it is the first
    /// thing on the line (after indentation); elsewhere it is data (redis-cli's `#`).
    WholeLine(&'static str),
    /// The first occurrence of the marker on a line opens a comment that runs to the
    /// end of the line (Python's `#`, Lua's `--`).
    Trailing(&'static str),
}

impl Comments {
    /// Where the comment of `line` is: the offset of its marker and the offset of the
    /// comment's text just after the marker; `None` when the line has no comment.
    pub fn find(self, line: &str) -> Option<(usize, usize)> {
        match self {
            Comments::WholeLine(marker) => {
                let trimmed = line.trim_start();
                let indent = line.len() - trimmed.len();
                trimmed
                    .starts_with(marker)
                    .then_some((indent, indent + marker.len()))
            }
            Comments::Trailing(marker) => line.find(marker).map(|i| (i, i + marker.len())),
        }
    }

    /// The marker that opens a comment.
    pub fn marker(self) -> &'static str {
        match self {
            Comments::WholeLine(m) | Comments::Trailing(m) => m,
        }
    }
}

/// One piece of a key for a key printer: literal bytes or a hole, by its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Known bytes.
    Bytes(&'a [u8]),
    /// A value not known statically, as the user wrote it (`uid`, `ARGV[1]`).
    Hole(&'a str),
}

/// Which client the code talks to when the code does not show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientProfile {
    /// A cluster client: it may refuse or split a cross-slot call itself.
    Cluster,
    /// A standalone client: it sends everything (a cluster's server refuses
    /// cross-slot commands).
    Standalone,
}

/// The settings of a run that change what a frontend finds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Receivers with these names are clients in every file (names the user
    /// configured), unless the file shows they are something else.
    pub receivers: Vec<String>,
    /// The client assumed where the code does not say; `None`: make only the
    /// verdicts that hold for every client.
    pub default_client: Option<ClientProfile>,
}

/// Reads files that a file being linted loads (a Python module's `.lua` scripts, a
/// Lua script's includes). Only the binary knows files.
pub trait FileLoader: Sync {
    /// The text of `path` (`/`-separated, may start with `..`), relative to the
    /// linted file's own directory when `from_module_dir`, else as the code wrote it
    /// (relative to the process's working directory at run time).
    fn load(&self, path: &str, from_module_dir: bool) -> Option<String>;

    /// The names of the regular files directly in `dir` (relative to the linted
    /// file's directory; `""` is that directory), sorted; empty when not known.
    fn list(&self, _dir: &str) -> Vec<String> {
        Vec::new()
    }
}

/// A module as the [`ModuleLoader`] found it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ModuleFile {
    /// A source file (`a/b.py` or `a/b/__init__.py`), named so that
    /// [`ModuleLoader::read`] can read it.
    Source(String),
    /// A directory without `__init__.py`: a namespace package (submodules only).
    Namespace,
}

/// Lowercase identifiers the reverse index ([`ModuleLoader::mentions`]) holds besides
/// capitalised ones: names of client APIs whose mere use anywhere in a project says
/// which client library it is written for (`multi_exec` exists only in aioredis 1.x).
pub const INDEXED_API_WORDS: &[&str] = &["multi_exec"];

/// What [`ModuleLoader::mentions`] is asked for the Python files of a project that
/// import redis-py or valkey-py ([`imports_redis_py`]).
pub const IMPORTS_REDIS_PY: &str = "import redis";

/// The prefix of a word [`ModuleLoader::mentions`] is asked for as an imported name:
/// `imported:storage` lists the Python files whose `import` or `from … import`
/// statements name `storage` (a segment of the module's path or an imported name),
/// lowercase names included.
pub const IMPORTED_PREFIX: &str = "imported:";

/// Whether a Python file's text imports redis-py (or valkey-py, its fork) by a
/// statement of its own line: `import redis`, `import redis.asyncio as aioredis`,
/// `from redis.cluster import RedisCluster`, `from valkey import Valkey`, indented
/// or not. (`aioredis`, `redis_lock` and other modules are not redis-py.)
pub fn imports_redis_py(text: &[u8]) -> bool {
    text.split(|&b| b == b'\n').any(|line| {
        let line = line.trim_ascii_start();
        let rest = line
            .strip_prefix(b"import ")
            .or_else(|| line.strip_prefix(b"from "));
        let Some(rest) = rest else {
            return false;
        };
        let rest = rest.trim_ascii_start();
        ["redis", "valkey"].iter().any(|m| {
            rest.strip_prefix(m.as_bytes()).is_some_and(|tail| {
                matches!(
                    tail.first(),
                    None | Some(b' ' | b'.' | b',' | b'\t' | b'\r')
                )
            })
        })
    })
}

/// Finds and reads the modules of a project. Only the binary knows files.
pub trait ModuleLoader: Sync + Send {
    /// The module `dotted` as imported from the module file `from` with `level`
    /// leading dots (`0`: an absolute import), if it is a module of the project.
    /// `dotted` is empty for `from . import x`.
    fn resolve(&self, from: &str, level: usize, dotted: &str) -> Option<ModuleFile>;
    /// The text of a module file found by [`ModuleLoader::resolve`] or
    /// [`ModuleLoader::resolve_path`].
    fn read(&self, path: &str) -> Option<String>;
    /// The module a path specifier names (`./keys`, `../lib/queue.js`) as imported
    /// from the module file `from` (JavaScript and TypeScript `import`/`require`),
    /// if it is a source file of the project; `None` for a package name.
    fn resolve_path(&self, _from: &str, _spec: &str) -> Option<ModuleFile> {
        None
    }
    /// The reverse index: the Python module files of the project of the module file
    /// `from` whose text holds `word` as a whole identifier, sorted; `None` when it
    /// cannot be known (no project, too many files, or a word that is neither
    /// capitalised, as class names are, nor one of [`INDEXED_API_WORDS`]). A word
    /// [`IMPORTED_PREFIX`]` + name` asks for the files whose import statements name
    /// `name`. Each file is named so that [`ModuleLoader::read`] can read it.
    fn mentions(&self, _from: &str, _word: &str) -> Option<Vec<String>> {
        None
    }
}

/// Something a file's analysis asked the [`ModuleLoader`]: its findings are valid
/// while the loader gives the same answers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ModuleDep {
    /// A module looked up, and what was found.
    Resolve {
        /// The importing module file.
        from: String,
        /// Leading dots of the import.
        level: usize,
        /// The dotted module path.
        dotted: String,
        /// The answer.
        found: Option<ModuleFile>,
    },
    /// A module named by a path specifier looked up
    /// ([`ModuleLoader::resolve_path`]), and what was found.
    ResolvePath {
        /// The importing module file.
        from: String,
        /// The specifier as written (`./keys`).
        spec: String,
        /// The answer.
        found: Option<ModuleFile>,
    },
    /// The project files that mention a word looked up
    /// ([`ModuleLoader::mentions`]), and what was found.
    Mentions {
        /// The module file asking.
        from: String,
        /// The word (a class name).
        word: String,
        /// The answer.
        found: Option<Vec<String>>,
    },
    /// A module file read.
    Read {
        /// Its name, as [`ModuleFile::Source`] gave it.
        path: String,
    },
}

/// The project facts of a frontend for one run (the index phase), shared by every
/// thread; the frontend that made it downcasts it in its lower phase.
pub trait Index: Any + Send + Sync + std::fmt::Debug {
    /// Itself, to downcast.
    fn as_any(&self) -> &dyn Any;
}

/// One file for the lower phase.
#[derive(Clone, Copy)]
pub struct Input<'a> {
    /// The file's text.
    pub source: &'a str,
    /// The file's name as the user gave it (for frontends whose grammar depends on
    /// the extension); `None` for text without a file.
    pub file_name: Option<&'a str>,
    /// The run's settings.
    pub options: &'a Options,
    /// The files beside the linted one, when the binary allows reading them.
    pub loader: Option<&'a dyn FileLoader>,
    /// The frontend's index of this run ([`Frontend::index`]).
    pub index: Option<&'a dyn Index>,
    /// The file's name as the index's [`ModuleLoader`] knows it, for a frontend
    /// that [reads modules](Frontend::reads_modules): the file is a module of a
    /// project.
    pub module: Option<&'a str>,
    /// The calling thread has [`Frontend::stack_size`] bytes of stack.
    pub big_stack: bool,
    /// The file failed the prefilter ([`Frontend::may_use_redis`]) and is linted
    /// because it imports, or is imported by, a file that passed it (the second
    /// wave of a run): part of a project's Redis code that never names Redis.
    pub reached: bool,
}

impl std::fmt::Debug for Input<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("file_name", &self.file_name)
            .field("options", &self.options)
            .field("loader", &self.loader.is_some())
            .field("index", &self.index.is_some())
            .field("module", &self.module)
            .field("big_stack", &self.big_stack)
            .field("reached", &self.reached)
            .finish_non_exhaustive()
    }
}

/// Runs `f` where it has `stack` bytes of stack: here when `here` says this thread has
/// them (see [`Input::big_stack`]), else on a thread of its own named `name` (reserved,
/// not committed, memory), or here after all if no such thread can be made. A panic
/// in `f` goes on in the caller.
pub fn with_stack<T: Send>(here: bool, name: &str, stack: usize, f: impl Fn() -> T + Sync) -> T {
    if here {
        return f();
    }
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .name(name.into())
            .stack_size(stack)
            .spawn_scoped(s, &f)
        {
            Ok(h) => match h.join() {
                Ok(v) => v,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(_) => f(),
        }
    })
}

/// What the lower phase made of one file.
#[derive(Debug)]
pub struct Lowered {
    /// The file's model.
    pub model: FileModel,
    /// What the analysis asked the project's [`ModuleLoader`].
    pub modules: Vec<ModuleDep>,
}

impl From<FileModel> for Lowered {
    fn from(model: FileModel) -> Lowered {
        Lowered {
            model,
            modules: Vec::new(),
        }
    }
}

/// One source language: how its files are recognised, how it writes comments and
/// keys, which files can be skipped unparsed, and its two phases.
pub trait Frontend: Sync + Send + 'static {
    /// A short lower-case name (`python`, `lua`, `redis-cli`).
    fn name(&self) -> &'static str;

    /// The file extensions it reads, without the dot.
    fn extensions(&self) -> &'static [&'static str];

    /// Interpreter names of `#!` lines that mark its files (`python3`), matched
    /// against the last word of the interpreter path (or of `env`'s argument).
    fn shebangs(&self) -> &'static [&'static str] {
        &[]
    }

    /// How comments are written (suppression comments and expectation markers).
    fn comments(&self) -> Comments;

    /// A key written in this language: `f"user:{uid}"` in Python,
    /// `"user:" .. ARGV[1]` in Lua.
    fn print_key(&self, pieces: &[Piece<'_>]) -> String;

    /// A hash input written for a message (a symbolic one reads best as a
    /// concatenation); by default the key printer.
    fn print_hash_input(&self, pieces: &[Piece<'_>]) -> String {
        self.print_key(pieces)
    }

    /// Source code that evaluates to `template`, for a suggested rewrite; `None`
    /// when it cannot be written. By default the key printer.
    fn print_replacement(&self, template: &KeyTemplate) -> Option<String> {
        Some(self.print_key(&template.pieces()))
    }

    /// A cheap byte-level test: false when the file cannot use Redis, so it is never
    /// parsed. By default, whether it mentions Redis
    /// ([`crate::prefilter::mentions_redis`]).
    fn may_use_redis(&self, source: &[u8], _options: &Options) -> bool {
        crate::prefilter::mentions_redis(source)
    }

    /// Whether it reads files beside the linted one (through a [`FileLoader`]).
    fn reads_files(&self) -> bool {
        false
    }

    /// Whether a file is a module of a project that reads other modules through
    /// the [`ModuleLoader`] of its index (its lower phase is then told the file's
    /// module name).
    fn reads_modules(&self) -> bool {
        false
    }

    /// Stack its lower phase needs on the calling thread (0: any thread will do).
    fn stack_size(&self) -> usize {
        0
    }

    /// The index phase: the project facts of a run under `options`, computed on
    /// demand through `modules`; `None` when the frontend keeps none.
    fn index(&self, _modules: Arc<dyn ModuleLoader>, _options: &Options) -> Option<Arc<dyn Index>> {
        None
    }

    /// The lower phase: one file's model.
    fn lower(&self, input: &Input<'_>) -> Lowered;
}

/// A language: a handle to its [`Frontend`]. Two handles are equal when they name
/// the same frontend.
#[derive(Clone, Copy)]
pub struct Lang(&'static dyn Frontend);

impl Lang {
    /// The handle of `frontend`.
    pub const fn new(frontend: &'static dyn Frontend) -> Lang {
        Lang(frontend)
    }

    /// The frontend.
    pub fn frontend(self) -> &'static dyn Frontend {
        self.0
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        self.0.name()
    }
}

impl std::ops::Deref for Lang {
    type Target = dyn Frontend;

    fn deref(&self) -> &(dyn Frontend + 'static) {
        self.0
    }
}

impl PartialEq for Lang {
    fn eq(&self, other: &Lang) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Lang {}

impl std::fmt::Debug for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lang({})", self.name())
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Stand-ins for the frontends in core's unit tests (the real ones are in their
    //! own crates, which depend on this one). They print keys the way the real ones
    //! do for the plain keys of the tests (no escapes).

    use super::*;

    pub(crate) struct Stub {
        name: &'static str,
        comments: Comments,
        print: fn(&[Piece<'_>]) -> String,
    }

    impl Frontend for Stub {
        fn name(&self) -> &'static str {
            self.name
        }
        fn extensions(&self) -> &'static [&'static str] {
            &[]
        }
        fn comments(&self) -> Comments {
            self.comments
        }
        fn print_key(&self, pieces: &[Piece<'_>]) -> String {
            (self.print)(pieces)
        }
        fn lower(&self, _: &Input<'_>) -> Lowered {
            FileModel::new(CLI).into()
        }
    }

    fn bytes(b: &[u8]) -> String {
        String::from_utf8_lossy(b).into_owned()
    }

    fn fstring(pieces: &[Piece<'_>]) -> String {
        let holes = pieces.iter().any(|p| matches!(p, Piece::Hole(_)));
        let body: String = pieces
            .iter()
            .map(|p| match p {
                Piece::Bytes(b) if holes => bytes(b).replace('{', "{{").replace('}', "}}"),
                Piece::Bytes(b) => bytes(b),
                Piece::Hole(l) => format!("{{{l}}}"),
            })
            .collect();
        format!("{}\"{body}\"", if holes { "f" } else { "" })
    }

    fn concat(pieces: &[Piece<'_>]) -> String {
        let parts: Vec<String> = pieces
            .iter()
            .map(|p| match p {
                Piece::Bytes(b) => format!("\"{}\"", bytes(b)),
                Piece::Hole(l) => l.to_string(),
            })
            .collect();
        parts.join(" .. ")
    }

    fn plain(pieces: &[Piece<'_>]) -> String {
        pieces
            .iter()
            .map(|p| match p {
                Piece::Bytes(b) => bytes(b),
                Piece::Hole(l) => format!("<{l}>"),
            })
            .collect()
    }

    static PYTHON: Stub = Stub {
        name: "python",
        comments: Comments::Trailing("#"),
        print: fstring,
    };
    static LUA: Stub = Stub {
        name: "lua",
        comments: Comments::Trailing("--"),
        print: concat,
    };
    static REDIS_CLI: Stub = Stub {
        name: "redis-cli",
        comments: Comments::WholeLine("#"),
        print: plain,
    };

    /// Like Python: f-strings, `#` comments.
    pub(crate) const PY: Lang = Lang::new(&PYTHON);
    /// Like Lua: `..` concatenations, `--` comments.
    pub(crate) const LUA_LANG: Lang = Lang::new(&LUA);
    /// Like redis-cli: bare arguments, whole-line `#` comments.
    pub(crate) const CLI: Lang = Lang::new(&REDIS_CLI);
}

#[cfg(test)]
mod import_tests {
    use super::imports_redis_py;

    #[test]
    fn imports_of_redis_py_are_told_from_other_modules() {
        for yes in [
            "import redis\n",
            "import redis.asyncio as aioredis\n",
            "try:\n    from redis.cluster import RedisCluster\nexcept ImportError:\n    pass\n",
            "from valkey import Valkey\r\n",
            "import  redis, os",
        ] {
            assert!(imports_redis_py(yes.as_bytes()), "{yes}");
        }
        for no in [
            "import aioredis\n",
            "from aioredis import Redis\n",
            "import redis_lock\n",
            "from redisearch import Client\n",
            "x = 'import redis'\n",
            "# uses redis\n",
        ] {
            assert!(!imports_redis_py(no.as_bytes()), "{no}");
        }
    }
}
