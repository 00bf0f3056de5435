//! The Python frontend of redis-keylint: redis-py client code turned into the neutral
//! model.
//!
//! Most code that talks to Redis is application code, and in Python that means
//! redis-py. This crate finds the redis-py call sites in a file (clients, pipelines,
//! transactions, registered scripts), builds the key templates of their arguments
//! (f-strings, `%`, `.format`, `+`, `":".join`, constants, attributes, properties and
//! small key-builder functions) and groups the keys into atomic units with what the
//! client does when they span slots. It decides no verdict: the rules in
//! `keylint-core` do.
//!
//! It never runs or imports the code it reads.
#![deny(missing_docs)]

mod aliases;
mod attrdict;
mod attrlist;
mod basefacts;
mod boundpipe;
mod buckets;
mod builders;
mod byuse;
mod callerflow;
mod chunks;
mod classname;
mod cmdnames;
mod cmdwrap;
mod cmexit;
mod cmobject;
mod collections;
mod condprefix;
mod configured;
mod ctorflow;
mod decorators;
mod ducktype;
mod enumloop;
mod eval;
mod extbase;
mod fmtcall;
mod fmtdict;
mod fresh;
mod frontend;
mod globals;
mod guards;
mod handout;
mod heads;
mod heldpipe;
mod idloop;
mod importscan;
mod index;
mod keyflow;
mod keyoptions;
mod localdict;
mod localobj;
mod lower;
mod maploop;
mod mapped;
mod memoglobal;
pub mod methods;
mod modarms;
mod modattr;
mod objtype;
mod optdict;
mod orempty;
mod overrides;
mod passobj;
mod passthru;
mod pipetest;
mod project;
mod proxies;
mod rebase;
mod records;
mod remake;
mod retpipe;
mod scanpattern;
mod script;
mod scriptattr;
mod scriptdict;
mod scriptparam;
mod scriptreg;
mod scriptsites;
pub mod siblings;
mod sortpat;
mod starbuild;
mod starimport;
mod strdecl;
mod strings;
mod strreplace;
mod subclasses;
mod subclassopts;
mod supercall;
mod swapctx;
mod syntax;
mod tpl;
mod tryflow;
mod txcall;
mod txcallback;
mod txflow;
mod txwrap;
mod unpack;
mod wrappers;
mod wrapscript;

pub use frontend::{options, Python, FRONTEND, LANG};
pub use importscan::{calls_operations, scan_imports, ScannedImport};
/// Which redis-py client a call site uses when the code does not show it:
/// `redis.cluster.RedisCluster` ([`ClientProfile::Cluster`]) refuses cross-slot
/// multi-key calls, splits `delete`, `exists`, `touch`, `unlink`, and its
/// `pipeline()` is not a transaction; `redis.Redis` ([`ClientProfile::Standalone`])
/// sends everything (the server refuses cross-slot commands), and its `pipeline()`
/// is a transaction.
pub use keylint_core::frontend::ClientProfile;
pub use keylint_core::frontend::{FileLoader, ModuleDep, ModuleFile, ModuleLoader};
use keylint_core::FileModel;
pub use project::Project;

/// How the frontend finds clients that it cannot see being created.
#[derive(Debug, Clone)]
pub struct Options {
    /// Receivers with these names (the last name of `self.redis`, `app.r`) are
    /// treated as redis-py clients in files that mention redis, unless the file
    /// shows they are something else. Names ending in `_redis` always are.
    pub receiver_names: Vec<String>,
    /// Receivers with these names are redis-py clients in every file (names the user
    /// configured), unless the file shows they are something else.
    pub configured_receivers: Vec<String>,
    /// The client assumed where the code does not say (a receiver known by its name, a
    /// parameter annotated `Redis`, which a `RedisCluster` may be passed as). `None`:
    /// make only the verdicts that hold for either client.
    pub default_client: Option<ClientProfile>,
    /// The file never names Redis but is part of a project's Redis code (it imports,
    /// or is imported by, a file that does): receivers may be known as clients by
    /// their use there, though not by their names.
    pub reached: bool,
}

/// The receiver names used when no configuration says otherwise.
pub const DEFAULT_RECEIVER_NAMES: &[&str] = &[
    "r",
    "redis",
    "rds",
    "redis_client",
    "redis_conn",
    "redis_connection",
    "redis_cluster",
    "redis_db",
    "redis_cli",
];

impl Default for Options {
    fn default() -> Options {
        Options {
            receiver_names: DEFAULT_RECEIVER_NAMES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            configured_receivers: Vec::new(),
            default_client: None,
            reached: false,
        }
    }
}

/// Lowers a Python file with the default options and no file access.
pub fn lower(source: &str) -> FileModel {
    lower_with(source, &Options::default(), None)
}

/// Stack that [`lower_on_this_thread`] needs on the thread that calls it: deeply
/// nested code recurses deeply (up to the index's depth limit).
pub const STACK_SIZE: usize = 64 << 20;

/// Lowers a Python file.
///
/// Runs on a thread of its own with a stack of [`STACK_SIZE`] (reserved, not
/// committed, memory), or here if no such thread can be made. A caller that lowers
/// many files from threads it made with that stack can call
/// [`lower_on_this_thread`] instead and save a thread per file.
pub fn lower_with(source: &str, options: &Options, loader: Option<&dyn FileLoader>) -> FileModel {
    keylint_core::frontend::with_stack(false, "keylint-python", STACK_SIZE, || {
        lower_on_this_thread(source, options, loader)
    })
}

/// Lowers a Python file on the calling thread, which must have at least
/// [`STACK_SIZE`] of stack (deeply nested code may overflow a smaller one). The
/// result is the same as [`lower_with`]'s.
pub fn lower_on_this_thread(
    source: &str,
    options: &Options,
    loader: Option<&dyn FileLoader>,
) -> FileModel {
    lower_scoped(source, options, loader, None)
}

/// Lowers the Python file at `path` (a name the project's [`ModuleLoader`]
/// understands) on the calling thread, which must have [`STACK_SIZE`] of stack:
/// names it imports from other modules of the project resolve through their facts
/// (see [`Project`]). Returns the model and what the analysis asked the loader, for
/// a cache to check later.
pub fn lower_in_project(
    source: &str,
    options: &Options,
    loader: Option<&dyn FileLoader>,
    project: &Project,
    path: &str,
) -> (FileModel, Vec<ModuleDep>) {
    project::lower_module(source, options, loader, project, path)
}

fn lower_scoped(
    source: &str,
    options: &Options,
    loader: Option<&dyn FileLoader>,
    scope: Option<&project::Scope<'_>>,
) -> FileModel {
    let (limit, whole) = parse_limit(source);
    let tree = match scope {
        Some(s) => s.tree(&source[..limit]),
        None => parse(&source[..limit]),
    };
    let Some(tree) = tree else {
        return with_source_facts(FileModel::new(LANG));
    };
    let nav = syntax::Nav::build(tree.root_node());
    let mut a = lower::Analyzer::new(&nav, &source[..limit], options, loader);
    a.resolve_names = whole;
    a.project = scope;
    with_source_facts(a.run())
}

/// What the rules are told about redis-py code beyond its keys: keys with holes are
/// written as f-strings, and `RedisCluster` refuses a cross-slot command itself.
fn with_source_facts(mut model: FileModel) -> FileModel {
    model.facts.fstring_keys = true;
    model.facts.client.refuses_cross_slot = Some(keylint_core::model::ClientRefusal {
        by: "redis-py's `RedisCluster`",
        error: "… - all keys must map to the same key slot",
    });
    model
}

/// Parses with this thread's parser (making a parser costs about as much as parsing
/// a small file), or a fresh one if it is busy.
fn parse(source: &str) -> Option<tree_sitter::Tree> {
    thread_local! {
        static PARSER: std::cell::RefCell<Option<tree_sitter::Parser>> =
            const { std::cell::RefCell::new(None) };
    }
    let fresh = || -> Option<tree_sitter::Parser> {
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
        Some(p)
    };
    PARSER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            if slot.is_none() {
                *slot = fresh();
            }
            let tree = slot.as_mut()?.parse(source, None);
            if tree.is_none() {
                // A parser that gave up is not reused.
                *slot = None;
            }
            tree
        }
        Err(_) => fresh()?.parse(source, None),
    })
}

/// Most nested indentation levels parsed. tree-sitter-python 0.25's scanner overflows
/// its serialization buffer (and aborts the process) near 511 levels, so a file is
/// parsed only up to the line that would open the 400th level; what follows is not
/// linted, and names are not resolved at all in such a file (a definition in the cut
/// part could change what they hold).
const MAX_INDENT_LEVELS: usize = 400;

/// The prefix of `source` that is safe to parse, and whether it is all of it.
fn parse_limit(source: &str) -> (usize, bool) {
    let mut stack: Vec<usize> = vec![0];
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let body = line.trim_start_matches([' ', '\t']);
        let width = line.len() - body.len();
        if !body.trim().is_empty() && !body.starts_with('#') {
            while stack.len() > 1 && stack.last().is_some_and(|&w| w > width) {
                stack.pop();
            }
            if stack.last().is_some_and(|&w| width > w) {
                stack.push(width);
                if stack.len() > MAX_INDENT_LEVELS {
                    return (offset, false);
                }
            }
        }
        offset += line.len();
    }
    (source.len(), true)
}

#[cfg(test)]
mod tests;
