//! Scripts that a loader reads from a directory of Lua files at run time, and the
//! wrapper methods that call them by name.
//!
//! Queue libraries keep one script per file and define them all when a client
//! connects: bull and BullMQ list a directory, take the command name and its number
//! of keys from the file name (`addJob-6.lua`: command `addJob`, 6 keys), pull in the
//! file's `--- @include` lines and call `client.defineCommand(name, { numberOfKeys,
//! lua })` for each; bee-queue loads `name.lua` files with `SCRIPT LOAD` and calls
//! them by name through `evalsha`. The file that calls them names neither the
//! directory nor the key count, so the frontend looks for such files itself, in the
//! linted file's directory and the usual script directories beside it
//! ([`SCRIPT_DIRS`]), through the binary's loader:
//!
//! - `name-N.lua` (a name that is no Redis command or client method, N keys) makes
//!   `client.name(…)` on an ioredis client (or a receiver taken for one by use) a call
//!   of a command defined with N keys and that body, like an in-file `defineCommand`;
//! - a method of the file that hands a client, a script name and an argument array on
//!   to `client.runCommand(name…, args)` or `client[name…](args)` (BullMQ's
//!   `execCommand(client, 'addJob', args)`) is such a call too;
//! - a method of the file that forwards its own arguments to `evalsha`
//!   (bee-queue's `this._evalScript('removeJob', 7, k1, …, k7, arg)`) is an `EVALSHA`
//!   of the script file `name.lua` (or `name-N.lua`) with the numkeys it is given.
//!
//! A name found twice (two directories, or `x.lua` and `x-2.lua`) is not linked.

use super::*;
use keylint_lua::IncludeLoader;

/// The directories, relative to the linted file's, whose script files a loader may
/// define.
pub(super) const SCRIPT_DIRS: &[&str] = &[
    "",
    "commands",
    "lua",
    "scripts",
    "../commands",
    "../lua",
    "../scripts",
];

/// Most script files read from one directory.
const MAX_FILES: usize = 512;

/// A script file a loader may define.
#[derive(Debug, Clone)]
pub(crate) struct DirScript {
    /// The path, relative to the linted file's directory.
    pub path: String,
    /// The key count its name gives (`name-N.lua`).
    pub numkeys: Option<usize>,
}

/// The directory part of a relative path (`""` for a bare name).
pub(super) fn dir_of(path: &str) -> String {
    path.rsplit_once('/')
        .map_or(String::new(), |(d, _)| d.to_string())
}

/// The command name and key count of a script file name: `addJob-6.lua` gives
/// (`addJob`, 6), `addJob.lua` (`addJob`, none). The name must be an identifier.
pub(crate) fn script_file_name(file: &str) -> Option<(&str, Option<usize>)> {
    let stem = file.strip_suffix(".lua")?;
    let (name, n) = match stem.rsplit_once('-') {
        Some((name, n)) => {
            if n.is_empty() || n.len() > 3 || !n.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            (name, Some(n.parse::<usize>().ok()?))
        }
        None => (stem, None),
    };
    let mut bytes = name.bytes();
    let first = bytes.next()?;
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    if first.is_ascii_digit() || !ident(first) || !bytes.all(ident) {
        return None;
    }
    Some((name, n))
}

/// Whether `name` is a Redis command or a client method: a script file of that name
/// does not make calls of it script calls.
fn is_command(name: &str) -> bool {
    keylint_commands::lookup(name.as_bytes()).is_some()
        || methods::ioredis(name).is_some()
        || methods::node_redis(name).is_some()
        || methods::single_key(name).is_some()
        || matches!(
            name,
            "call" | "multi" | "pipeline" | "exec" | "defineCommand" | "duplicate" | "connect"
        )
}

/// Whether a client method runs a command given by name (`runCommand`,
/// `execScript`): not a Redis command or client method itself.
fn runs_by_name(m: &str) -> bool {
    let l = m.to_ascii_lowercase();
    !is_command(m)
        && ["command", "script", "run", "exec"]
            .iter()
            .any(|w| l.contains(w))
}

/// Whether a receiver the code does not resolve is named like a client: its last
/// name (`client`, `this.redis`, `queue.client`, `rclient`, `conn`) says so.
pub(super) fn client_like(recv: Node<'_>, src: &str) -> bool {
    let r = unwrap_expr(recv);
    let last = match r.kind() {
        "identifier" => r,
        "member_expression" => match r.child_by_field_name("property") {
            Some(p) => p,
            None => return false,
        },
        _ => return false,
    };
    let name = text(last, src).to_ascii_lowercase();
    name.contains("client") || name.contains("redis") || name == "conn" || name == "connection"
}

/// The include loader of a script file: include paths are relative to the script's
/// own directory.
pub(super) struct Includes<'a> {
    pub files: &'a dyn FileLoader,
    pub dir: String,
}

impl IncludeLoader for Includes<'_> {
    fn load(&self, path: &str) -> Option<String> {
        let p = if self.dir.is_empty() {
            path.to_string()
        } else {
            format!("{}/{path}", self.dir)
        };
        self.files.load(&p, true)
    }
}

impl<'t> Analyzer<'t> {
    /// The script files of [`SCRIPT_DIRS`], by command name (read once).
    pub(super) fn dir_scripts(&mut self) -> &HashMap<String, DirScript> {
        if self.dir_scripts.is_none() {
            let mut found: HashMap<String, DirScript> = HashMap::new();
            let mut twice: HashSet<String> = HashSet::new();
            if let Some(loader) = self.loader {
                for dir in SCRIPT_DIRS {
                    for file in loader.list(dir).iter().take(MAX_FILES) {
                        let Some((name, numkeys)) = script_file_name(file) else {
                            continue;
                        };
                        if is_command(name) {
                            continue;
                        }
                        let path = if dir.is_empty() {
                            file.clone()
                        } else {
                            format!("{dir}/{file}")
                        };
                        if found
                            .insert(name.to_string(), DirScript { path, numkeys })
                            .is_some()
                        {
                            twice.insert(name.to_string());
                        }
                    }
                }
            }
            for n in twice {
                found.remove(&n);
            }
            self.dir_scripts = Some(found);
        }
        self.dir_scripts.get_or_insert_with(HashMap::new)
    }

    /// Defines every `name-N.lua` script of the script directories that the file
    /// does not define itself, as a loader would.
    pub(super) fn define_dir_scripts(&mut self) {
        let scripts: Vec<(String, DirScript)> = self
            .dir_scripts()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (name, s) in scripts {
            let Some(n) = s.numkeys else { continue };
            self.defined.entry(name).or_insert(Defined {
                numkeys: Some(n),
                body: Some(Body::File(s.path)),
            });
        }
    }

    /// A call of a wrapper method that runs a script by name (see the module docs).
    /// Returns whether the call was one.
    pub(super) fn wrapper_call(&mut self, call: Node<'t>) -> bool {
        let args = self.args(call);
        // Cheap test first: a string argument that names a script.
        let named = args.iter().position(|&a| {
            string_value(unwrap_expr(a), self.src).is_some_and(|s| {
                self.defined.contains_key(&s)
                    || self
                        .dir_scripts
                        .as_ref()
                        .is_some_and(|d| d.contains_key(&s))
            })
        });
        let Some(at) = named else {
            return false;
        };
        let Some(f) = call.child_by_field_name("function") else {
            return false;
        };
        let func = match unwrap_expr(f).kind() {
            "member_expression" => {
                let Some((recv, m, _)) = self.method_call(call) else {
                    return false;
                };
                if unwrap_expr(recv).kind() != "this" {
                    return false;
                }
                self.this_method(call, m)
            }
            "identifier" => match self.lookup(text(f, self.src), f) {
                Decl::Func(func) => Some(func),
                _ => None,
            },
            _ => None,
        };
        let Some(func) = func else {
            return false;
        };
        if let Some((ic, iname, iargs)) = self.dispatch_wrapper(func) {
            if iname != at {
                return false;
            }
            return self.dispatch_call(call, f, &args, ic, iname, iargs);
        }
        if at == 0 {
            if let Some(recv) = self.evalsha_wrapper(func, 0) {
                return self.wrapped_evalsha(call, f, &args, recv);
            }
        }
        false
    }

    /// `this.execCommand(client, 'addJob', args)`: the script `addJob` run on `client`.
    fn dispatch_call(
        &mut self,
        call: Node<'t>,
        f: Node<'t>,
        args: &[Node<'t>],
        ic: usize,
        iname: usize,
        iargs: usize,
    ) -> bool {
        let (Some(&cn), Some(&nn), Some(&an)) = (args.get(ic), args.get(iname), args.get(iargs))
        else {
            return false;
        };
        let Some(name) = string_value(unwrap_expr(nn), self.src) else {
            return false;
        };
        let Some(d) = self.defined.get(&name).cloned() else {
            return false;
        };
        let c = match self.eval(cn) {
            Value::Client(c) => c,
            Value::Unknown if self.plain_receiver(cn) && client_like(cn, self.src) => {
                // A project on ioredis beside node-redis (client adapters): the script
                // runs with its keys on either, so a client of unknown library is
                // read as one of ioredis, whose unknown `keyPrefix` comes first.
                let beside = self.options.ioredis_named.then_some(Client {
                    lib: Lib::IoRedis,
                    kind: Kind::Unknown,
                    prefix: Prefix::Unknown,
                });
                match self.by_use_client().or(beside) {
                    Some(c) => c,
                    None => return false,
                }
            }
            _ => return false,
        };
        if c.lib != Lib::IoRedis {
            return false;
        }
        self.defined_call(c, call, f, &[an], d, false);
        true
    }

    /// `this._evalScript('removeJob', 7, k1, …, k7, arg)`: an `EVALSHA` of the script
    /// file `removeJob` with 7 keys, on the client the wrapper sends it with (`recv`),
    /// or the project's client when the wrapper's receiver is not known.
    fn wrapped_evalsha(
        &mut self,
        call: Node<'t>,
        f: Node<'t>,
        args: &[Node<'t>],
        recv: Node<'t>,
    ) -> bool {
        let Some(name) = args
            .first()
            .and_then(|&a| string_value(unwrap_expr(a), self.src))
        else {
            return false;
        };
        let Some(path) = self.dir_scripts().get(&name).map(|s| s.path.clone()) else {
            return false;
        };
        let c = match self.eval(recv) {
            Value::Client(c) => c,
            _ => match self.by_use_client() {
                Some(c) => c,
                None => return false,
            },
        };
        let Some(&nk) = args.get(1) else {
            return false;
        };
        let Value::Num(n) = self.eval(nk) else {
            return false;
        };
        let Ok(n) = usize::try_from(n) else {
            return false;
        };
        let flat = self.flatten(&args[2..]);
        let exact = flat.iter().all(|x| matches!(x, Flat::One(_)));
        let known = leading_known(&flat);
        if known.len() < n && !exact {
            return false;
        }
        let fact = exact.then(|| {
            (
                Numkeys::Count {
                    n,
                    after: flat.len(),
                },
                nk.byte_range(),
            )
        });
        let key_nodes: Vec<Node<'t>> = known.iter().take(n).copied().collect();
        let passed = (exact && n <= flat.len()).then(|| (n, nk.byte_range()));
        self.script_unit(
            c,
            call,
            f,
            key_nodes,
            passed,
            fact,
            Some(Body::File(path)),
            false,
        );
        true
    }

    /// The simple parameter names of a function, in order (`None` for a pattern, a
    /// rest parameter or a default).
    fn param_names(&self, func: Node<'t>) -> Option<Vec<Option<&'t str>>> {
        let params = func.child_by_field_name("parameters")?;
        let mut c = params.walk();
        let out = params
            .named_children(&mut c)
            .filter(|p| p.kind() != "comment")
            .map(|p| {
                let id = match p.kind() {
                    "identifier" => Some(p),
                    // TypeScript: `client: Redis` (its pattern), no default value.
                    "required_parameter" if p.child_by_field_name("value").is_none() => p
                        .child_by_field_name("pattern")
                        .filter(|x| x.kind() == "identifier"),
                    _ => None,
                };
                id.map(|x| text(x, self.src))
            })
            .collect();
        Some(out)
    }

    /// A method that hands a client, a script name and an argument array on:
    /// `(client, name, args) => client.runCommand(`${name}:${v}`, args)` or
    /// `client[name](args)` / `client[name](...args)`. Returns the positions of the
    /// client, the name and the arguments. No two calls of its body may hand them on
    /// differently, and it must not assign those parameters.
    fn dispatch_wrapper(&mut self, func: Node<'t>) -> Option<(usize, usize, usize)> {
        let params = self.param_names(func)?;
        let body = func.child_by_field_name("body")?;
        let pos = |n: Node<'t>, src: &str| -> Option<usize> {
            let n = unwrap_expr(n);
            if n.kind() != "identifier" {
                return None;
            }
            params.iter().position(|p| *p == Some(text(n, src)))
        };
        // The name as the call writes it: the parameter, or a template that starts
        // with it (`${name}:${version}`).
        // `const name = `${commandName}:${this.version}`;` at the top of the body.
        let mut locals: HashMap<&'t str, Node<'t>> = HashMap::new();
        {
            let mut c = body.walk();
            for st in body.named_children(&mut c) {
                if st.kind() != "lexical_declaration" || !text(st, self.src).starts_with("const") {
                    continue;
                }
                let mut c2 = st.walk();
                for d in st.named_children(&mut c2) {
                    if let (Some(k), Some(v)) = (
                        d.child_by_field_name("name"),
                        d.child_by_field_name("value"),
                    ) {
                        if k.kind() == "identifier" {
                            locals.insert(text(k, self.src), v);
                        }
                    }
                }
            }
        }
        let name_pos = |n: Node<'t>, src: &str| -> Option<usize> {
            let mut n = unwrap_expr(n);
            if n.kind() == "identifier" {
                if let Some(&v) = locals.get(text(n, src)) {
                    n = unwrap_expr(v);
                }
            }
            if n.kind() == "template_string" {
                let mut c = n.walk();
                let first = n
                    .named_children(&mut c)
                    .find(|x| x.kind() != "string_fragment")?;
                if first.kind() != "template_substitution"
                    || first.start_byte() != n.start_byte() + 1
                {
                    return None;
                }
                return pos(first.named_child(0)?, src);
            }
            pos(n, src)
        };
        let mut found: Option<(usize, usize, usize)> = None;
        let mut stack = vec![body];
        let mut calls = 0;
        while let Some(x) = stack.pop() {
            let mut c = x.walk();
            for ch in x.named_children(&mut c) {
                stack.push(ch);
            }
            if x.kind() != "call_expression" {
                continue;
            }
            calls += 1;
            if calls > 8 {
                return None;
            }
            let Some(f) = x.child_by_field_name("function").map(unwrap_expr) else {
                continue;
            };
            let args = self.args(x);
            let arg_pos = |a: Node<'t>, src: &str| -> Option<usize> {
                let a = unwrap_expr(a);
                if a.kind() == "spread_element" {
                    return pos(a.named_child(0)?, src);
                }
                pos(a, src)
            };
            let shape = match f.kind() {
                // A method that runs a command by name (`runCommand`), not a command.
                "member_expression"
                    if f.child_by_field_name("property")
                        .is_some_and(|p| runs_by_name(text(p, self.src))) =>
                {
                    let obj = f.child_by_field_name("object")?;
                    match (pos(obj, self.src), args.as_slice()) {
                        (Some(ic), [n, a]) => {
                            match (name_pos(*n, self.src), arg_pos(*a, self.src)) {
                                (Some(iname), Some(iargs)) => Some((ic, iname, iargs)),
                                _ => None,
                            }
                        }
                        _ => None,
                    }
                }
                "subscript_expression" => {
                    let obj = f.child_by_field_name("object")?;
                    let idx = f.child_by_field_name("index")?;
                    match (pos(obj, self.src), name_pos(idx, self.src), args.as_slice()) {
                        (Some(ic), Some(iname), [a]) => {
                            arg_pos(*a, self.src).map(|iargs| (ic, iname, iargs))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            match shape {
                Some(s) if found.is_none_or(|f| f == s) => found = Some(s),
                Some(_) => return None,
                None => {}
            }
        }
        let (ic, iname, iargs) = found?;
        if ic == iname || ic == iargs || iname == iargs {
            return None;
        }
        for p in [ic, iname, iargs] {
            let name = params.get(p).copied().flatten()?;
            if self.assigns_in(body, name) {
                return None;
            }
        }
        found
    }

    /// Whether `body` assigns the name (`name = …`, `name += …`).
    fn assigns_in(&self, body: Node<'t>, name: &str) -> bool {
        let mut stack = vec![body];
        while let Some(x) = stack.pop() {
            let mut c = x.walk();
            for ch in x.named_children(&mut c) {
                stack.push(ch);
            }
            if matches!(
                x.kind(),
                "assignment_expression" | "augmented_assignment_expression"
            ) && x
                .child_by_field_name("left")
                .is_some_and(|l| l.kind() == "identifier" && text(l, self.src) == name)
            {
                return true;
            }
        }
        false
    }

    /// Whether `evalsha` (the member expression `m`) is called with one array as its
    /// whole argument list, as a wrapper that forwards its arguments does:
    /// `x.evalsha(...args)` or `x.evalsha.apply(x, args)`.
    fn forwards_whole(&self, m: Node<'t>) -> bool {
        let Some(p) = self.parent(m) else {
            return false;
        };
        let (call, array) = match p.kind() {
            "call_expression" => {
                let args = self.args(p);
                let [a] = args.as_slice() else { return false };
                if a.kind() != "spread_element" {
                    return false;
                }
                (p, a.named_child(0))
            }
            "member_expression"
                if p.child_by_field_name("property")
                    .is_some_and(|x| text(x, self.src) == "apply") =>
            {
                let Some(c) = self.parent(p).filter(|c| c.kind() == "call_expression") else {
                    return false;
                };
                let args = self.args(c);
                let [_, a] = args.as_slice() else {
                    return false;
                };
                (c, Some(*a))
            }
            _ => return false,
        };
        call.child_by_field_name("function").is_some()
            && array.is_some_and(|a| matches!(a.kind(), "identifier" | "arguments"))
    }

    /// A method that takes its arguments as `evalsha` does and forwards them to it:
    /// no parameters but `arguments` (or one rest parameter), and a call of
    /// `evalsha` in its body or in a method of the same object that it calls
    /// (`this._evalScriptOn(client, args)` → `commandable.evalsha.apply(…, args)`).
    /// Returns the receiver of `evalsha`.
    fn evalsha_wrapper(&mut self, func: Node<'t>, depth: usize) -> Option<Node<'t>> {
        let body = func.child_by_field_name("body")?;
        if depth == 0 {
            let params = func.child_by_field_name("parameters")?;
            let ps: Vec<Node<'t>> = named_kids(params);
            let forwards = match ps.as_slice() {
                [] => self.mentions(body, "arguments"),
                [p] => p.kind() == "rest_pattern",
                _ => false,
            };
            if !forwards {
                return None;
            }
        }
        let mut stack = vec![body];
        let mut inner = Vec::new();
        while let Some(x) = stack.pop() {
            let mut c = x.walk();
            for ch in x.named_children(&mut c) {
                stack.push(ch);
            }
            if x.kind() != "member_expression" {
                continue;
            }
            let Some(p) = x.child_by_field_name("property") else {
                continue;
            };
            let prop = text(p, self.src);
            if matches!(prop, "evalsha" | "evalSha" | "EVALSHA") {
                if self.forwards_whole(x) {
                    return x.child_by_field_name("object");
                }
                continue;
            }
            let is_this_call = x
                .child_by_field_name("object")
                .is_some_and(|o| o.kind() == "this")
                && self
                    .parent(x)
                    .is_some_and(|c| c.kind() == "call_expression");
            if is_this_call {
                inner.push((x, prop));
            }
        }
        if depth >= 2 {
            return None;
        }
        inner.into_iter().find_map(|(at, m)| {
            self.this_method(at, m)
                .filter(|&g| g != func)
                .and_then(|g| self.evalsha_wrapper(g, depth + 1))
        })
    }
}
