//! The project analysis of JavaScript and TypeScript: what a module imports from the
//! other modules of its project.
//!
//! A file imports clients, key builders and classes from its own modules
//! (`import { redis } from './redis'`, `const { jobKey } = require('../keys')`,
//! `import { Connection } from './connection'`). When the analysis of a file meets
//! such a name, the module is found through the [`ModuleLoader`] (the binary applies
//! Node's and TypeScript's resolution rules to the path specifier; package names are
//! never the project's), read, parsed with the grammar of its extension, and
//! summarised into [`Fact`]s that do not refer to its syntax tree:
//!
//! - constants: string templates and numbers;
//! - clients: exported values that are clients, and functions whose one `return` is
//!   one (factories);
//! - key builders: functions whose body is one `return` of a template, with the
//!   template's holes standing for the parameters, substituted at each call;
//! - objects of such values (`module.exports = { a, b }`, `export const keys = {…}`);
//! - classes: the fields that hold a client of one library (as the file's own
//!   classes are read), and the plain instance methods that are key builders;
//! - re-exports (`export { a } from './a'`, `export * from './b'`), followed up to
//!   [`MAX_HOPS`] modules.
//!
//! A summary is shallow: the summarised module's own imports of other modules are
//! not followed (only its re-exports are), so a module's facts never depend on the
//! order in which modules are read, and import cycles cost nothing. Each module is
//! summarised once per run and shared by every thread. Holes of another module's
//! templates are bound to that module (`this.prefix@Queue@<module>`): two values of
//! one hole in one module are taken as one value, whichever instance holds it.

use crate::Dialect;
use keylint_core::frontend::{Index, ModuleDep, ModuleFile, ModuleLoader};
use keylint_core::template_builder::{HoleInfo, TPart, Tpl};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Re-exports followed in one lookup, at most.
pub(crate) const MAX_HOPS: usize = 8;

/// The binding prefix of a hole that stands for a key builder's parameter.
pub(crate) const PARAM: char = '\u{1}';

/// The binding prefix of a hole that a joining key builder puts in front of every
/// key it makes (its namespace): a prefix whose value the code does not show, like
/// a client's `keyPrefix`.
pub(crate) const PREFIX: char = '\u{2}';

/// The project analysis of one run: module facts computed on demand and shared by
/// every thread.
pub struct Project {
    loader: Arc<dyn ModuleLoader>,
    modules: Mutex<HashMap<String, Arc<ModuleFacts>>>,
    /// Imports already looked up (by importing directory, specifier and export),
    /// with what they asked the loader.
    imports: Mutex<HashMap<ImportKey, ImportFound>>,
    /// The syntax tree of each module summarised this run and not yet linted, with
    /// the text it was parsed from: a module summarised for its importers is parsed
    /// once, and its own lint takes the tree when it comes after.
    trees: Mutex<HashMap<String, (String, tree_sitter::Tree)>>,
}

/// What an import gave, and what looking it up asked the loader.
type ImportFound = (Option<Fact>, Vec<ModuleDep>);

/// An import as looked up: the importing file's directory, the specifier, the export.
type ImportKey = (String, String, Option<String>);

impl std::fmt::Debug for Project {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Project").finish_non_exhaustive()
    }
}

impl Index for Project {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The facts of one module.
#[derive(Debug, Default)]
pub(crate) struct ModuleFacts {
    /// Named exports (`default` for the default one).
    pub(crate) named: HashMap<String, Fact>,
    /// What `module.exports = value` gives, when it is not an object literal.
    pub(crate) whole: Option<Fact>,
    /// `export { a as b } from './x'`: `b` is `a` of `./x`.
    pub(crate) from: HashMap<String, (String, String)>,
    /// `export * from './x'`.
    pub(crate) star: Vec<String>,
}

/// A client as another module makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ForeignClient {
    pub(crate) lib: crate::lower::Lib,
    pub(crate) kind: crate::lower::Kind,
    pub(crate) prefix: ForeignPrefix,
}

/// A client's `keyPrefix` as another module sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ForeignPrefix {
    None,
    Unknown,
    Lit(Tpl),
    Opaque,
}

/// A key builder of another module: its parameter count and the template it
/// returns, whose holes bound to `\u{1}<i>` are its parameters.
#[derive(Debug)]
pub(crate) struct Builder {
    pub(crate) params: usize,
    pub(crate) body: Tpl,
    /// A builder that joins every argument it is given after its body (`params` is
    /// then 0): `key('queue', q)` of `<ns>` joined by `:` is `<ns>:queue:<q>`.
    pub(crate) joined: Option<Joined>,
}

/// How a joining builder adds its arguments.
#[derive(Debug)]
pub(crate) struct Joined {
    /// The separator between the parts.
    pub(crate) sep: Vec<u8>,
    /// Which parts a `filter` leaves out before the join.
    pub(crate) drop: DropParts,
}

/// Which parts a joining builder's `filter` leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DropParts {
    /// No filter.
    Never,
    /// `String(p)` / `p !== ''`: empty strings.
    Empty,
    /// `String(p).trim()`: empty or blank strings.
    Blank,
    /// `p` / `Boolean`: every falsy value (`''`, `0`, `null`, …).
    Falsy,
}

impl DropParts {
    /// Whether a part whose text is `b` is left out; `None` when that depends on
    /// what the text was made from (`0` the number or `\"0\"` the string).
    pub(crate) fn drops(self, b: &[u8]) -> Option<bool> {
        match self {
            DropParts::Never => Some(false),
            DropParts::Empty => Some(b.is_empty()),
            DropParts::Blank => Some(b.iter().all(|c| c.is_ascii_whitespace())),
            DropParts::Falsy if b == b"0" || b == b"NaN" => None,
            DropParts::Falsy => Some(b.is_empty()),
        }
    }
}

/// A class of another module.
#[derive(Debug, Default)]
pub(crate) struct ClassFacts {
    /// Fields that hold a client, or an instance of another class of that module.
    pub(crate) fields: HashMap<String, Fact>,
    /// Plain instance methods that are key builders.
    pub(crate) methods: HashMap<String, Arc<Builder>>,
}

/// What a name of another module is.
#[derive(Debug, Clone)]
pub(crate) enum Fact {
    Str(Tpl),
    Num(i64),
    Client(ForeignClient),
    /// A function that returns a client.
    Factory(ForeignClient),
    Builder(Arc<Builder>),
    Class(Arc<ClassFacts>),
    /// An instance of a class of another module.
    Instance(Arc<ClassFacts>),
    Object(Vec<(String, Fact)>),
    /// A whole module (`import * as keys`, `const keys = require('./keys')`).
    Module(Arc<ModuleFacts>),
    /// A type (`export type KeysMap = …`) whose values the module makes in one
    /// function only: the object of keys that function returns (see
    /// `Analyzer::key_map_type`). A value declared with the type is that object.
    Shape(Vec<(String, Fact)>),
}

impl Project {
    /// The project analysis of a run that reads modules through `loader`.
    pub fn new(loader: Arc<dyn ModuleLoader>) -> Project {
        Project {
            loader,
            modules: Mutex::new(HashMap::new()),
            imports: Mutex::new(HashMap::new()),
            trees: Mutex::new(HashMap::new()),
        }
    }

    /// The facts of the module file `path` (read and summarised once).
    fn facts(&self, path: &str, deps: &mut Vec<ModuleDep>) -> Option<Arc<ModuleFacts>> {
        deps.push(ModuleDep::Read {
            path: path.to_string(),
        });
        if let Some(f) = self.modules.lock().expect("project lock").get(path) {
            return Some(f.clone());
        }
        let text = self.loader.read(path)?;
        let dialect = path
            .rsplit('.')
            .next()
            .and_then(Dialect::of_extension)
            .unwrap_or(Dialect::TypeScript);
        let (facts, tree) = crate::summarise(&text, dialect, path);
        let facts = Arc::new(facts);
        if let Some(tree) = tree {
            self.trees
                .lock()
                .expect("project lock")
                .insert(path.to_string(), (text, tree));
        }
        let mut m = self.modules.lock().expect("project lock");
        Some(m.entry(path.to_string()).or_insert(facts).clone())
    }

    /// The tree of `module` parsed from `source` by a summary, if there is one (it
    /// is handed out once).
    pub(crate) fn take_tree(&self, module: &str, source: &str) -> Option<tree_sitter::Tree> {
        let mut trees = self.trees.lock().expect("project lock");
        match trees.remove(module) {
            Some((text, tree)) if text == source => Some(tree),
            _ => None,
        }
    }

    /// The module file `spec` names from `from`.
    fn resolve(&self, from: &str, spec: &str, deps: &mut Vec<ModuleDep>) -> Option<String> {
        let found = self.loader.resolve_path(from, spec);
        deps.push(ModuleDep::ResolvePath {
            from: from.to_string(),
            spec: spec.to_string(),
            found: found.clone(),
        });
        match found? {
            ModuleFile::Source(p) => Some(p),
            ModuleFile::Namespace => None,
        }
    }

    /// What `import`/`require` of `spec` from the module `from` gives: export `name`,
    /// or the whole module (`None`).
    pub(crate) fn import(
        &self,
        from: &str,
        spec: &str,
        name: Option<&str>,
        deps: &mut Vec<ModuleDep>,
    ) -> Option<Fact> {
        // The answer depends on the importing file's directory only (the loader
        // resolves from there), but the lookups recorded name the file itself.
        let dir = from.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        let key = (dir, spec.to_string(), name.map(str::to_string));
        if let Some((f, d)) = self.imports.lock().expect("project lock").get(&key) {
            deps.extend(d.iter().map(|x| rename_from(x, from)));
            return f.clone();
        }
        let mut mine = Vec::new();
        let f = self.import_uncached(from, spec, name, &mut mine);
        deps.extend(mine.iter().cloned());
        self.imports
            .lock()
            .expect("project lock")
            .insert(key, (f.clone(), mine));
        f
    }

    fn import_uncached(
        &self,
        from: &str,
        spec: &str,
        name: Option<&str>,
        deps: &mut Vec<ModuleDep>,
    ) -> Option<Fact> {
        let path = self.resolve(from, spec, deps)?;
        let facts = self.facts(&path, deps)?;
        match name {
            None => Some(match &facts.whole {
                Some(w) => w.clone(),
                None => Fact::Module(facts),
            }),
            Some(n) => self.export(&path, &facts, n, deps, 0),
        }
    }

    /// Export `name` of the module `path` (with its facts), following re-exports.
    fn export(
        &self,
        path: &str,
        facts: &ModuleFacts,
        name: &str,
        deps: &mut Vec<ModuleDep>,
        hops: usize,
    ) -> Option<Fact> {
        if let Some(f) = facts.named.get(name) {
            return Some(f.clone());
        }
        if name == "default" {
            if let Some(w) = &facts.whole {
                return Some(w.clone());
            }
        }
        if hops >= MAX_HOPS {
            return None;
        }
        if let Some((spec, inner)) = facts.from.get(name) {
            let p = self.resolve(path, spec, deps)?;
            let f = self.facts(&p, deps)?;
            return self.export(&p, &f, inner, deps, hops + 1);
        }
        if name == "default" {
            return None;
        }
        // `export *`: the name must come from exactly one of them.
        let mut found: Option<Fact> = None;
        for spec in &facts.star {
            let Some(p) = self.resolve(path, spec, deps) else {
                continue;
            };
            let Some(f) = self.facts(&p, deps) else {
                continue;
            };
            if let Some(x) = self.export(&p, &f, name, deps, hops + 1) {
                if found.is_some() {
                    return None;
                }
                found = Some(x);
            }
        }
        found
    }
}

/// A lookup recorded for one importing file, as another file of the same directory
/// made it: the same specifier resolved from `from`.
fn rename_from(d: &ModuleDep, from: &str) -> ModuleDep {
    match d {
        ModuleDep::ResolvePath {
            from: old,
            spec,
            found,
        } if old.rsplit_once('/').map(|(d, _)| d) == from.rsplit_once('/').map(|(d, _)| d) => {
            ModuleDep::ResolvePath {
                from: from.to_string(),
                spec: spec.clone(),
                found: found.clone(),
            }
        }
        d => d.clone(),
    }
}

/// A template of another module made independent of its text: no source offsets,
/// its holes bound to `module` (a builder's parameters stay as they are).
pub(crate) fn detach(t: &Tpl, module: &str) -> Tpl {
    Tpl {
        parts: t
            .parts
            .iter()
            .map(|p| match p {
                TPart::Lit { bytes, .. } => TPart::Lit {
                    bytes: bytes.clone(),
                    offs: vec![None; bytes.len()],
                },
                TPart::Hole(h) => TPart::Hole(HoleInfo {
                    label: h.label.clone(),
                    binding: if h.binding.starts_with(PARAM) {
                        h.binding.clone()
                    } else {
                        format!("{}@{module}", h.binding)
                    },
                    span: None,
                    keylike: h.keylike,
                }),
            })
            .collect(),
    }
}

/// A builder's template with its parameters replaced by `args`; `None` when a
/// parameter is out of range.
pub(crate) fn substitute(b: &Builder, args: &[Tpl]) -> Option<Tpl> {
    if let Some(j) = &b.joined {
        let mut out = b.body.clone();
        let mut first = out.parts.is_empty();
        for a in args {
            if let Some(bytes) = a.as_bytes() {
                if j.drop.drops(&bytes)? {
                    continue;
                }
            }
            if !first {
                out.push(Tpl::text(&j.sep));
            }
            out.push(a.clone());
            first = false;
        }
        return Some(out);
    }
    if args.len() != b.params {
        return None;
    }
    let mut out = Tpl::default();
    for p in &b.body.parts {
        match p {
            TPart::Hole(h) if h.binding.starts_with(PARAM) => {
                let i: usize = h.binding[PARAM.len_utf8()..].parse().ok()?;
                out.push(args.get(i)?.clone());
            }
            p => out.push(Tpl {
                parts: vec![p.clone()],
            }),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{lower_in_project, Options};
    use keylint_core::rules::{check, Settings};

    /// Modules in memory by path (`src/a.ts`), resolved like the binary does for the
    /// forms the tests use: a relative specifier, with or without `.js`, or a
    /// directory's `index`.
    struct Mem(HashMap<&'static str, &'static str>);

    impl ModuleLoader for Mem {
        fn resolve(&self, _: &str, _: usize, _: &str) -> Option<ModuleFile> {
            None
        }
        fn read(&self, path: &str) -> Option<String> {
            self.0.get(path).map(|s| s.to_string())
        }
        fn resolve_path(&self, from: &str, spec: &str) -> Option<ModuleFile> {
            if !spec.starts_with('.') {
                return None;
            }
            let mut base: Vec<&str> = from.split('/').collect();
            base.pop();
            for seg in spec.split('/') {
                match seg {
                    "." | "" => {}
                    ".." => {
                        base.pop()?;
                    }
                    s => base.push(s),
                }
            }
            let stem = base.join("/");
            let stem = stem.strip_suffix(".js").unwrap_or(&stem).to_string();
            [
                format!("{stem}.ts"),
                format!("{stem}.js"),
                format!("{stem}/index.ts"),
            ]
            .into_iter()
            .find(|c| self.0.contains_key(c.as_str()))
            .map(ModuleFile::Source)
        }
    }

    fn project(files: &[(&'static str, &'static str)]) -> Project {
        Project::new(Arc::new(Mem(files.iter().copied().collect())))
    }

    /// The rules found in module `path` of `files`, and what it asked the loader.
    fn lint(files: &[(&'static str, &'static str)], path: &str) -> (Vec<String>, Vec<ModuleDep>) {
        let p = project(files);
        let src = files.iter().find(|(n, _)| *n == path).unwrap().1;
        let dialect = if path.ends_with(".ts") {
            Dialect::TypeScript
        } else {
            Dialect::JavaScript
        };
        let lowered = keylint_core::frontend::with_stack(false, "t", crate::STACK_SIZE, || {
            lower_in_project(src, dialect, &Options::default(), None, &p, path)
        });
        let rules = check(&lowered.model, &Settings::default())
            .into_iter()
            .map(|f| f.rule.name().to_string())
            .collect();
        (rules, lowered.modules)
    }

    const KEYS: (&str, &str) = (
        "src/keys.ts",
        "export const STATS = 'stats';\n\
         export function jobKey(id: string) { return `job:${id}`; }\n\
         export const tagged = (u: string, p: string) => `{u:${u}}:${p}`;\n",
    );
    const REDIS: (&str, &str) = (
        "src/redis.ts",
        "import Redis from 'ioredis';\n\
         export const redis = new Redis();\n\
         export function make() { return new Redis(); }\n",
    );

    #[test]
    fn constants_builders_and_clients_come_from_other_modules() {
        let main = (
            "src/main.ts",
            "import { redis, make } from './redis';\n\
             import { STATS, jobKey, tagged } from './keys.js';\n\
             import * as keys from './keys';\n\
             async function f(id: string, u: string) {\n\
               await redis.del(keys.STATS, 'other');\n\
               await make().mget(jobKey('1'), STATS);\n\
               await redis.mget(tagged(u, 'a'), tagged(u, 'b'));\n\
               await redis.mget(jobKey(id), jobKey(u));\n\
             }\n",
        );
        let (rules, deps) = lint(&[KEYS, REDIS, main], "src/main.ts");
        assert_eq!(rules, ["cross-slot", "cross-slot", "cross-slot-likely"]);
        assert!(deps.contains(&ModuleDep::ResolvePath {
            from: "src/main.ts".into(),
            spec: "./keys.js".into(),
            found: Some(ModuleFile::Source("src/keys.ts".into())),
        }));
        assert!(deps.contains(&ModuleDep::Read {
            path: "src/redis.ts".into()
        }));
    }

    #[test]
    fn commonjs_exports_and_requires() {
        let keys = (
            "lib/keys.js",
            "const P = 'q:';\n\
             function toKey(x) { return P + x; }\n\
             module.exports = { toKey, WAIT: 'wait' };\n",
        );
        let client = (
            "lib/client.js",
            "const Redis = require('ioredis');\nmodule.exports = new Redis();\n",
        );
        let main = (
            "lib/main.js",
            "const client = require('./client');\n\
             const { toKey } = require('./keys');\n\
             const keys = require('./keys');\n\
             client.mget(toKey('a'), keys.WAIT);\n\
             client.mget(keys.toKey('a'), keys.toKey('a'));\n",
        );
        let (rules, _) = lint(&[keys, client, main], "lib/main.js");
        assert_eq!(rules, ["cross-slot"]);
    }

    #[test]
    fn classes_of_other_modules_give_fields_and_key_methods() {
        let conn = (
            "src/conn.ts",
            "import { Redis } from 'ioredis';\n\
             export class Connection {\n\
               constructor(private keyPrefix: string) { this.redis = new Redis(); }\n\
               key(n: string) { return `${this.keyPrefix}:${n}`; }\n\
               fixed(n: string) { return `{q}:${n}`; }\n\
             }\n",
        );
        let index = (
            "src/index.ts",
            "export { Connection } from './conn';\nexport * from './keys';\n",
        );
        let main = (
            "src/main.ts",
            "import { Connection, STATS } from '.';\n\
             class Worker {\n\
               private connection: Connection;\n\
               constructor() { this.connection = new Connection('x'); }\n\
               async run() {\n\
                 await this.connection.redis.multi().incr(this.connection.key('a')).incr(this.connection.key('b')).exec();\n\
                 await this.connection.redis.mget(this.connection.fixed('a'), this.connection.fixed('b'));\n\
                 await this.connection.redis.mget(this.connection.fixed('a'), STATS);\n\
               }\n\
             }\n\
             function g(c: Connection) { return c.redis.mget(c.fixed('a'), 'other'); }\n\
             class W2 {\n\
               constructor(private conn: Connection, opts: any) { this.conn = opts.conn || new Connection('y'); }\n\
               run() { return this.conn.redis.mget(this.conn.fixed('a'), 'other'); }\n\
             }\n",
        );
        let (rules, _) = lint(&[KEYS, conn, index, main], "src/main.ts");
        assert_eq!(
            rules,
            [
                "cross-slot-likely",
                "cross-slot",
                "cross-slot",
                "cross-slot"
            ]
        );
    }

    #[test]
    fn joining_key_methods_of_other_modules() {
        let conn = (
            "src/conn.ts",
            "import { Redis, Cluster } from 'ioredis';\n\
             export class Connection {\n\
               redis: Redis;\n\
               constructor(public options: any) { this.redis = new Redis(); }\n\
               key(arg: any, arg2?: any, arg3?: any): string {\n\
                 let args: any[];\n\
                 args = arguments.length >= 1 ? [].slice.call(arguments, 0) : [];\n\
                 if (Array.isArray(this.options.namespace)) {\n\
                   args.unshift(...this.options.namespace);\n\
                 } else {\n\
                   args.unshift(this.options.namespace);\n\
                 }\n\
                 args = args.filter((e: any) => {\n\
                   return String(e).trim();\n\
                 });\n\
                 return args.join(':');\n\
               }\n\
               rest(...parts: string[]) { return [this.options.ns, ...parts].join(':'); }\n\
               tagged(...parts: string[]) { return ['{q}', ...parts].join(':'); }\n\
               odd(...parts: string[]) { parts.push('x'); return parts.join(':'); }\n\
             }\n",
        );
        let main = (
            "src/main.ts",
            "import { Connection } from './conn';\n\
             class Worker {\n\
               private connection: Connection;\n\
               constructor(o: any) { this.connection = new Connection(o); }\n\
               async run(q: string) {\n\
                 await this.connection.redis.multi().sadd(this.connection.key('queues'), q).rpush(this.connection.key('queue', q), 'x').exec();\n\
                 await this.connection.redis.multi().incr(this.connection.rest('a')).incr(this.connection.rest('b')).exec();\n\
                 await this.connection.redis.mget(this.connection.tagged('a'), this.connection.tagged('b'));\n\
                 await this.connection.redis.mget(this.connection.odd('a'), this.connection.odd('b'));\n\
                 await this.connection.redis.mget(this.connection.key('a', ''), this.connection.key('a'));\n\
               }\n\
             }\n\
             export declare interface Merged { connection: Connection; other: Other; }\n\
             export class Merged {\n\
               constructor(private w: any) {}\n\
               connect() { this.connection = this.w.connection; this.other = this.w.other; }\n\
               async run() {\n\
                 await this.connection.redis.multi().incr(this.connection.key('a')).incr(this.connection.key('b')).exec();\n\
                 await this.other.redis.multi().incr(this.other.key('a')).incr(this.other.key('b')).exec();\n\
               }\n\
             }\n",
        );
        let (rules, _) = lint(&[conn, main], "src/main.ts");
        assert_eq!(
            rules,
            [
                "cross-slot-likely",
                "cross-slot-likely",
                "cross-slot-likely"
            ]
        );
    }

    #[test]
    fn a_client_prefix_of_another_module_is_one_prefix() {
        let redis = (
            "src/redis.ts",
            "import Redis from 'ioredis';\n\
             export const redis = new Redis({ keyPrefix: 'app:' });\n",
        );
        let main = (
            "src/main.ts",
            "import { redis } from './redis';\n\
             class S {\n\
               constructor() { this.c = redis; }\n\
               reset() { this.c = redis; }\n\
               run() { return this.c.mget('a', 'b'); }\n\
             }\n\
             redis.mget('{t}a', '{t}b');\n\
             redis.mget('a', 'b');\n",
        );
        let (rules, _) = lint(&[redis, main], "src/main.ts");
        // The prefix is known: whole keys are known (`this.c` is one client, with
        // one prefix, however often it is assigned).
        assert_eq!(rules, ["cross-slot", "cross-slot"]);
    }

    #[test]
    fn string_fields_and_getters_of_other_modules_classes() {
        let q = (
            "src/q.ts",
            "export class Q {\n\
               constructor(name: string) { this.wait = `q:${name}:wait`; this.lit = 'lit:a'; this.moved = 'm:a'; }\n\
               get active() { return 'lit:b'; }\n\
             }\n\
             export function move(q: Q) { q.moved = 'm:b'; }\n",
        );
        let main = (
            "src/main.ts",
            "import Redis from 'ioredis';\n\
             import { Q } from './q';\n\
             const r = new Redis();\n\
             const q = new Q('x');\n\
             r.mget(q.lit, q.active);\n\
             r.mget(q.wait, q.lit);\n\
             r.mget(q.moved, 'other');\n",
        );
        let (rules, _) = lint(&[q, main], "src/main.ts");
        assert_eq!(rules, ["cross-slot", "cross-slot-likely"]);
    }

    #[test]
    fn what_is_not_known_stays_silent() {
        let keys = (
            "src/keys.ts",
            "export let A = 'a';\nA = 'b';\n\
             export async function k(x: string) { return `k:${x}`; }\n\
             export * from './a';\nexport * from './b';\n",
        );
        let a = ("src/a.ts", "export const DUP = 'x';\n");
        let b = ("src/b.ts", "export const DUP = 'y';\n");
        let main = (
            "src/main.ts",
            "import Redis from 'ioredis';\n\
             import { A, k, DUP, MISSING } from './keys';\n\
             import { B } from 'keys';\n\
             const r = new Redis();\n\
             r.mget(A, 'other');\n\
             r.mget(k('1'), 'other');\n\
             r.mget(DUP, 'other');\n\
             r.mget(MISSING, 'other');\n\
             r.mget(B, 'other');\n",
        );
        let (rules, _) = lint(&[keys, a, b, main], "src/main.ts");
        assert!(rules.iter().all(|r| r != "cross-slot"), "{rules:?}");
    }

    #[test]
    fn a_builder_substitutes_its_parameters() {
        let hole = |b: &str| {
            Tpl::hole(HoleInfo {
                label: "x".into(),
                binding: b.into(),
                span: None,
                keylike: false,
            })
        };
        let mut body = Tpl::text(b"job:");
        body.push(hole(&format!("{PARAM}0")));
        body.push(Tpl::text(b":"));
        body.push(hole("this.prefix@C"));
        let b = Builder {
            params: 1,
            body,
            joined: None,
        };
        let out = substitute(&b, &[Tpl::text(b"7")]).unwrap();
        assert_eq!(out.parts.len(), 2);
        assert!(matches!(&out.parts[0], TPart::Lit { bytes, .. } if bytes == b"job:7:"));
        assert!(substitute(&b, &[]).is_none());
        let d = detach(&out, "m.ts");
        assert!(matches!(&d.parts[1], TPart::Hole(h) if h.binding == "this.prefix@C@m.ts"));
    }
}
