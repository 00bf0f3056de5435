//! Transparent decorators of the file: a module function that only wraps the function
//! it receives in a wrapper that returns that function's call with the wrapper's own
//! arguments, unchanged:
//!
//! ```python
//! def raises_conn_error(func):
//!     @functools.wraps(func)
//!     def wrapper(*args, **kwargs):
//!         try:
//!             return func(*args, **kwargs)
//!         except redis.exceptions.ConnectionError:
//!             raise StorageError()
//!     return wrapper
//! ```
//!
//! The wrapper may name leading parameters before the splats (`def wrapper(self,
//! *args, **kwargs)`) if it passes them first and in order, and may hand the call to
//! an executor as a thunk that takes nothing (`return self._with_breaker(name, lambda:
//! func(self, *args, **kwargs))`, a retry or circuit-breaker helper): the executor is
//! taken to return the thunk's value. A decorator factory of the file, `def
//! resilient(name): def decorator(func): … return decorator`, whose decorator is
//! transparent, is transparent when called (`@resilient("eval")`), whatever its
//! arguments.
//!
//! A method decorated with it returns what its body returns (or raises), so the
//! analysis reads it as if it were not decorated. Anything else a decorator might do
//! (pass other arguments, return another value, cache, retry with a new client) keeps
//! the method's decorator, and the method stays unknown as before.

use crate::index::{text, FuncId, FuncInfo, Index};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> Index<'t> {
    /// Whether decorator `d` (a `decorator` node) names, as a bare name, a module
    /// function of this file defined before it that is transparent, or calls one that
    /// makes a transparent decorator.
    pub(crate) fn transparent_decorator(&self, d: Node<'t>) -> bool {
        let Some(e) = d.named_child(0) else {
            return false;
        };
        let (name, factory) = match e.kind_name() {
            "identifier" => (e, false),
            "call" => match e.field(Field::Function) {
                Some(f) if f.kind_name() == "identifier" => (f, true),
                _ => return false,
            },
            _ => return false,
        };
        let Some(&f) = self.module_funcs.get(text(name, self.src)) else {
            return false;
        };
        // Defined before the use, so that the name certainly is that function.
        if self.funcs[f].node.end_byte() > d.start_byte() {
            return false;
        }
        if factory {
            self.is_transparent_factory(f)
        } else {
            self.is_transparent(f)
        }
    }

    /// `def factory(…): ["doc"] def decorator(func): … return decorator` where the
    /// inner decorator is transparent ([`Index::is_transparent`]).
    fn is_transparent_factory(&self, f: FuncId) -> bool {
        let info = &self.funcs[f];
        if !info.decorators.is_empty() || info.is_lambda || !info.nonlocal.is_empty() {
            return false;
        }
        let stmts = self.body_statements(info.body);
        let [def, ret] = stmts.as_slice() else {
            return false;
        };
        if def.kind_name() != "function_definition" {
            return false;
        }
        let Some(&inner) = self.func_by_node.get(&def.id()) else {
            return false;
        };
        // The factory never rebinds the decorator's name.
        if info
            .defs
            .get(&self.funcs[inner].name)
            .is_none_or(|d| d.len() != 1)
        {
            return false;
        }
        self.returns_name(*ret, &self.funcs[inner].name) && self.is_transparent(inner)
    }

    /// Whether statement `ret` is `return <name>`.
    fn returns_name(&self, ret: Node<'t>, name: &str) -> bool {
        ret.kind_name() == "return_statement"
            && ret
                .named_child(0)
                .is_some_and(|r| text(r, self.src) == name)
    }

    /// The statements of a body, comments and a leading docstring left out.
    pub(crate) fn body_statements(&self, body: Node<'t>) -> Vec<Node<'t>> {
        let stmts: Vec<Node<'t>> = self
            .nav
            .named_children(body)
            .filter(|n| n.kind_name() != "comment")
            .collect();
        match stmts.split_first() {
            Some((first, rest)) if is_docstring(*first) => rest.to_vec(),
            _ => stmts,
        }
    }

    /// `def deco(func): ["doc"] [@wraps(func)] def wrapper(*a, **k): … return wrapper`
    /// where every `return` of the wrapper is `func(*a, **k)` (or its `await`).
    fn is_transparent(&self, f: FuncId) -> bool {
        self.decorator_wrapper(f)
            .is_some_and(|(func, w)| self.wrapper_forwards(w, &func))
    }

    /// `def deco(func): ["doc"] [@wraps(func)] def wrapper(…): … return wrapper`: the
    /// name of the wrapped function's parameter, never assigned again, and the
    /// wrapper; `None` for any other shape of decorator.
    fn decorator_wrapper(&self, f: FuncId) -> Option<(String, FuncId)> {
        let info = &self.funcs[f];
        let [p] = info.params.as_slice() else {
            return None;
        };
        if p.star || !info.decorators.is_empty() || info.is_lambda || !info.nonlocal.is_empty() {
            return None;
        }
        // The wrapped function is never assigned again.
        if info.defs.get(&p.name).is_none_or(|d| d.len() != 1) {
            return None;
        }
        let stmts = self.body_statements(info.body);
        let [def, ret] = stmts.as_slice() else {
            return None;
        };
        let w = self.wrapper_of(*def, &p.name)?;
        self.returns_name(*ret, &self.funcs[w].name)
            .then(|| (p.name.clone(), w))
    }

    /// The wrapper function defined by statement `def`, undecorated or decorated
    /// with `wraps(func)` / `functools.wraps(func)` only.
    fn wrapper_of(&self, def: Node<'t>, func: &str) -> Option<FuncId> {
        let node = match def.kind_name() {
            "function_definition" => def,
            "decorated_definition" => {
                let wraps = format!("({func})");
                let ok = self
                    .nav
                    .named_children(def)
                    .filter(|c| c.kind_name() == "decorator")
                    .all(|c| {
                        let t = text(c, self.src);
                        let t = t.trim_start_matches('@');
                        (t.starts_with("wraps(") || t.starts_with("functools.wraps("))
                            && t.ends_with(&wraps)
                    });
                if !ok {
                    return None;
                }
                def.field(Field::Definition)?
            }
            _ => return None,
        };
        self.func_by_node.get(&node.id()).copied()
    }

    /// A key-transforming decorator of the file, `d` (a `decorator` node naming a
    /// module function defined before it):
    ///
    /// ```python
    /// def prefix_key(func):
    ///     @functools.wraps(func)
    ///     def wrapper(self, *args, **kwargs):
    ///         key = func(self, *args, **kwargs)
    ///         return f"{self.prefix}:{key}" if self.prefix is not None else key
    ///     return wrapper
    /// ```
    ///
    /// The wrapper forwards its own parameters to the function once, keeps the result
    /// in a local assigned only there, and returns one expression of it: the
    /// wrapper, the local's name and the returned expression. A decorated method's
    /// value is that expression with the local bound to what the method's body
    /// returns ([`crate::lower::Analyzer::call_builder`]).
    pub(crate) fn key_transform(&self, d: Node<'t>) -> Option<(FuncId, String, Node<'t>)> {
        let name = d.named_child(0)?;
        if name.kind_name() != "identifier" {
            return None;
        }
        let f = *self.module_funcs.get(text(name, self.src))?;
        if self.funcs[f].node.end_byte() > d.start_byte() {
            return None;
        }
        let (func, w) = self.decorator_wrapper(f)?;
        let call = self.forwarded_call(w, &func)?;
        let winfo = &self.funcs[w];
        let wstmts = self.body_statements(winfo.body);
        let [assign, wret] = wstmts.as_slice() else {
            return None;
        };
        let a = (assign.kind_name() == "expression_statement")
            .then(|| assign.named_child(0))
            .flatten()
            .filter(|a| a.kind_name() == "assignment")?;
        let (left, right) = (a.field(Field::Left)?, a.field(Field::Right)?);
        if left.kind_name() != "identifier" || a.field(Field::Type).is_some() {
            return None;
        }
        let local = text(left, self.src).to_string();
        let bare: String = text(crate::syntax::unawaited(right)?, self.src)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if bare != call || winfo.defs.get(&local).is_none_or(|d| d.len() != 1) {
            return None;
        }
        if wret.kind_name() != "return_statement" {
            return None;
        }
        let expr = wret.named_child(0)?;
        Some((w, local, expr))
    }

    /// `func(self, *args, **kwargs)` as the wrapper `w` would write it to pass its own
    /// parameters on (plain ones first, then `*args, **kwargs`), when it never
    /// assigns them nor `func`; without spaces.
    fn forwarded_call(&self, w: FuncId, func: &str) -> Option<String> {
        let info: &FuncInfo<'t> = &self.funcs[w];
        let [lead @ .., a, k] = info.params.as_slice() else {
            return None;
        };
        let kind = |p: &crate::index::ParamInfo<'t>| {
            self.nav.parent(p.node).map(|n| n.kind_name()).unwrap_or("")
        };
        if kind(a) != "list_splat_pattern" || kind(k) != "dictionary_splat_pattern" {
            return None;
        }
        if lead
            .iter()
            .any(|p| p.star || p.default.is_some() || p.node.kind_name() != "identifier")
        {
            return None;
        }
        let single = |n: &str| info.defs.get(n).is_some_and(|d| d.len() == 1);
        if !single(&a.name)
            || !single(&k.name)
            || lead.iter().any(|p| !single(&p.name))
            || info.defs.contains_key(func)
            || !info.nonlocal.is_empty()
        {
            return None;
        }
        let mut args: Vec<String> = lead.iter().map(|p| p.name.clone()).collect();
        args.push(format!("*{}", a.name));
        args.push(format!("**{}", k.name));
        Some(format!("{func}({})", args.join(",")))
    }

    /// The wrapper takes `*args, **kwargs`, after plain parameters it passes first
    /// (`self`), never assigns any of them nor `func`, has no `yield`, and every
    /// `return` (at least one) is `func(self, *args, **kwargs)`, or a call that hands
    /// an executor that call as a thunk (`lambda: func(self, *args, **kwargs)`).
    fn wrapper_forwards(&self, w: FuncId, func: &str) -> bool {
        let info: &FuncInfo<'t> = &self.funcs[w];
        let Some(call) = self.forwarded_call(w, func) else {
            return false;
        };
        let bare = |x: Node<'t>| -> String {
            text(x, self.src)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect()
        };
        // `executor(…, lambda: func(…), …)`: a thunk of the call, taking nothing.
        let thunk = |x: Node<'t>| -> bool {
            x.kind_name() == "call"
                && x.field(Field::Arguments).is_some_and(|args| {
                    self.nav.named_children(args).any(|l| {
                        l.kind_name() == "lambda"
                            && l.field(Field::Parameters).is_none()
                            && l.field(Field::Body).is_some_and(|b| bare(b) == call)
                    })
                })
        };
        let mut returns = 0usize;
        let mut ok = true;
        self.visit_own(info.body, &mut |n| match n.kind_name() {
            "yield" => ok = false,
            "return_statement" => {
                returns += 1;
                let v = n.named_child(0).and_then(crate::syntax::unawaited);
                ok &= v.is_some_and(|v| bare(v) == call || thunk(v));
            }
            _ => {}
        });
        ok && returns > 0
    }

    /// Visits the nodes of a function body, not those of nested functions, lambdas
    /// or classes.
    fn visit_own(&self, n: Node<'t>, f: &mut dyn FnMut(Node<'t>)) {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            f(x);
            for c in self.nav.named_children(x) {
                if !matches!(
                    c.kind_name(),
                    "function_definition" | "lambda" | "class_definition"
                ) {
                    stack.push(c);
                }
            }
        }
    }
}

fn is_docstring(n: Node<'_>) -> bool {
    n.kind_name() == "expression_statement"
        && n.named_child(0).is_some_and(|c| c.kind_name() == "string")
}
