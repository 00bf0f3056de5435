//! The JavaScript and TypeScript frontend of redis-keylint: ioredis and node-redis
//! client code turned into the neutral model.
//!
//! It finds the clients a file makes or declares (ioredis `new Redis(…)`,
//! `new Redis.Cluster([…])`, `new Cluster(…)`, `duplicate()`; node-redis
//! `createClient`, `createCluster`, `.connect()`; parameters and class fields typed
//! `Redis`, `Cluster`, `RedisClientType`, `RedisClusterType`), reads the keys of
//! their commands (string and template literals, `+`, `.join`, constants), groups
//! them into atomic units with what each library does on a cluster, and links
//! `eval`/`defineCommand` script calls with their Lua bodies. It decides no verdict:
//! the rules in `keylint-core` do.
//!
//! It never runs or imports the code it reads.
#![deny(missing_docs)]

mod frontend;
mod lower;
pub mod methods;
mod modules;
mod package;
mod tpl;

pub use frontend::{JavaScript, FRONTEND, LANG};
pub use keylint_core::frontend::FileLoader;
use keylint_core::FileModel;
pub use modules::Project;

/// Which grammar reads a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `.js`, `.mjs`, `.cjs`, `.jsx`.
    JavaScript,
    /// `.ts`, `.mts`, `.cts`.
    TypeScript,
    /// `.tsx`.
    Tsx,
}

impl Dialect {
    /// The dialect of a file extension (without the dot).
    pub fn of_extension(ext: &str) -> Option<Dialect> {
        match ext {
            "js" | "mjs" | "cjs" | "jsx" => Some(Dialect::JavaScript),
            "ts" | "mts" | "cts" => Some(Dialect::TypeScript),
            "tsx" => Some(Dialect::Tsx),
            _ => None,
        }
    }

    fn language(self) -> tree_sitter::Language {
        match self {
            Dialect::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Dialect::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Dialect::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }
}

/// What the frontend is told about the project beyond the file.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The major version of node-redis (npm `redis`) the project uses, from its
    /// `package.json` (the registered frontend reads the nearest one through its
    /// loader): it decides whether a cluster client splits `mGet`, `mSet`,
    /// `del`, `unlink`, `exists` and `touch` by slot (6) or sends them whole (4, 5).
    /// `None`: not known, and such a call is never called an error on a client that
    /// may be a cluster client.
    pub node_redis_major: Option<u32>,
    /// The one client library the project depends on, from the nearest
    /// `package.json` that names `ioredis` or `redis`: a receiver the code does not
    /// resolve is a client of it when its uses leave no doubt (a `multi()` that
    /// receives Redis-only commands before `exec()`). `None`: no such receiver is
    /// taken for a client.
    pub library: Option<Library>,
    /// Whether the nearest `package.json` that names `ioredis` or `redis` names
    /// `ioredis` (alone or beside node-redis): a script of the script directory that
    /// a method of the file runs by name (`this.execCommand(client, 'addJob', args)`
    /// handing it to `client.runCommand(…)`) on a receiver named like a client is
    /// then taken as run with its keys, whichever library the client is of.
    pub ioredis_named: bool,
}

/// A Node.js client library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Library {
    /// ioredis.
    IoRedis,
    /// node-redis (npm `redis`, `@redis/client`).
    NodeRedis,
}

/// Lowers a JavaScript file with the default options and no file access.
pub fn lower(source: &str, dialect: Dialect) -> FileModel {
    lower_with(source, dialect, &Options::default(), None)
}

/// Stack that [`lower_on_this_thread`] needs on the thread that calls it.
pub const STACK_SIZE: usize = 16 << 20;

/// Lowers a file on a thread of its own with a stack of [`STACK_SIZE`] (or here if no
/// such thread can be made).
pub fn lower_with(
    source: &str,
    dialect: Dialect,
    options: &Options,
    loader: Option<&dyn FileLoader>,
) -> FileModel {
    keylint_core::frontend::with_stack(false, "keylint-javascript", STACK_SIZE, || {
        lower_on_this_thread(source, dialect, options, loader)
    })
}

/// Lowers a file on the calling thread, which must have at least [`STACK_SIZE`] of
/// stack. The result is the same as [`lower_with`]'s.
pub fn lower_on_this_thread(
    source: &str,
    dialect: Dialect,
    options: &Options,
    loader: Option<&dyn FileLoader>,
) -> FileModel {
    let Some(tree) = parse(source, dialect) else {
        return FileModel::new(LANG);
    };
    lower::Analyzer::new(tree.root_node(), source, options, loader).run()
}

/// Lowers a module of a project on the calling thread (which must have at least
/// [`STACK_SIZE`] of stack): names imported from the project's modules are read
/// through `project`; also returns what it asked the project's module loader.
pub fn lower_in_project(
    source: &str,
    dialect: Dialect,
    options: &Options,
    loader: Option<&dyn FileLoader>,
    project: &Project,
    module: &str,
) -> keylint_core::frontend::Lowered {
    let Some(tree) = project
        .take_tree(module, source)
        .or_else(|| parse(source, dialect))
    else {
        return FileModel::new(LANG).into();
    };
    let (model, modules) = lower::Analyzer::new(tree.root_node(), source, options, loader)
        .in_project(project, module)
        .run_with_deps();
    keylint_core::frontend::Lowered { model, modules }
}

/// The facts a module exports to its importers (see [`Project`]), and its tree.
fn summarise(
    source: &str,
    dialect: Dialect,
    module: &str,
) -> (modules::ModuleFacts, Option<tree_sitter::Tree>) {
    let Some(tree) = parse(source, dialect) else {
        return (modules::ModuleFacts::default(), None);
    };
    let options = Options::default();
    let facts = lower::Analyzer::new(tree.root_node(), source, &options, None).summarise(module);
    (facts, Some(tree))
}

/// Parses with this thread's parser for the dialect, or a fresh one if it is busy.
fn parse(source: &str, dialect: Dialect) -> Option<tree_sitter::Tree> {
    thread_local! {
        static PARSERS: std::cell::RefCell<[Option<tree_sitter::Parser>; 3]> =
            const { std::cell::RefCell::new([None, None, None]) };
    }
    let i = dialect as usize;
    let fresh = || -> Option<tree_sitter::Parser> {
        let mut p = tree_sitter::Parser::new();
        p.set_language(&dialect.language()).ok()?;
        Some(p)
    };
    PARSERS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slots) => {
            if slots[i].is_none() {
                slots[i] = fresh();
            }
            let tree = slots[i].as_mut()?.parse(source, None);
            if tree.is_none() {
                slots[i] = None;
            }
            tree
        }
        Err(_) => fresh()?.parse(source, None),
    })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_let_batch;
#[cfg(test)]
mod tests_lists;
#[cfg(test)]
mod tests_scriptdir;
#[cfg(test)]
mod tests_watch;
