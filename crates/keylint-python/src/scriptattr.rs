//! Scripts kept as attributes of an object that is not `self`.
//!
//! `queue.run_pull = queue.register_script(PULL)` puts a registered script on the
//! client itself (or on any object: `bot.queue.run_clear = …`), and other functions
//! call it through that object: `await queue.run_pull(keys=keys)`. Two ways are read:
//!
//! - in the file itself: an attribute name that every assignment of the file gives
//!   a script registered with one body (`.run_pull = …register_script(PULL)`), with
//!   no other assignment of `.run_pull` and no function of that name in the file;
//!   a call of `<anything>.run_pull(…)` there is that script;
//! - through a function of another module that sets the attribute on the object its
//!   caller passes (`def register_scripts(queue): queue.run_clear =
//!   queue.register_script(CLEAR)`): after `register_scripts(bot.queue)` in this
//!   file, `bot.queue.run_clear(…)` (the same receiver, written the same way) is
//!   that script.
//!
//! Only the callee of a call that passes a key list (`keys=`, or a list first) is
//! looked up, so that the maps are built only in files that call scripts.

use crate::eval::{ClientKind, Ctx, ScriptId, Value};
use crate::index::{text, FuncId};
use crate::syntax::{Field, NodeExt};
use std::collections::HashMap;
use std::sync::Arc;
use tree_sitter::Node;

/// A script that a function of another module sets as an attribute of the object
/// its caller passes.
#[derive(Debug, Clone)]
pub(crate) struct ScriptSet {
    /// The parameter that brings the object.
    pub param: usize,
    /// The attribute's name.
    pub attr: String,
    /// The script's body and the client's kind.
    pub text: Arc<str>,
    pub client: ClientKind,
}

/// The scripts of one file kept as attributes of objects.
#[derive(Default)]
pub(crate) struct AttrScripts {
    /// By attribute name, set in this file.
    own: HashMap<String, ScriptId>,
    /// By receiver (as written) and attribute, set by another module's function.
    passed: HashMap<(String, String), (Arc<str>, ClientKind)>,
}

/// The assignment `obj.attr = <call>` whose right side is `call`: `obj` and `attr`.
fn assigned_attr<'t>(nav: &crate::syntax::Nav<'t>, call: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    let assign = nav.parent(call)?;
    if assign.kind_name() != "assignment"
        || assign.field(Field::Right).map(|r| r.id()) != Some(call.id())
    {
        return None;
    }
    let left = assign.field(Field::Left)?;
    if left.kind_name() != "attribute" {
        return None;
    }
    Some((left.field(Field::Object)?, left.field(Field::Attribute)?))
}

/// How many times the source assigns an attribute named `attr` (`.attr =`,
/// `.attr: T =`), however the object is written.
fn attr_assignments(src: &str, attr: &str) -> usize {
    let pat = format!(".{attr}");
    src.match_indices(&pat)
        .filter(|(i, _)| {
            let rest = &src[i + pat.len()..];
            let after = rest.trim_start_matches([' ', '\t']);
            let ident_ends = !rest
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            ident_ends
                && (after.starts_with(':') || after.starts_with('=') && !after.starts_with("=="))
        })
        .count()
}

impl<'t> crate::lower::Analyzer<'t> {
    /// `obj.attr` as the callee of `call`, where a script kept as an attribute of
    /// an object is known by that name (see the module's documentation).
    pub(crate) fn attr_script(
        &mut self,
        obj: Node<'t>,
        attr: &str,
        n: Node<'t>,
    ) -> Option<Value<'t>> {
        let call = self.ix.nav.parent(n)?;
        if call.kind_name() != "call"
            || call.field(Field::Function).map(|f| f.id()) != Some(n.id())
            || !self.passes_key_list(call)
        {
            return None;
        }
        if self.attr_scripts.is_none() {
            let m = self.collect_attr_scripts();
            self.attr_scripts = Some(m);
        }
        let maps = self.attr_scripts.as_ref()?;
        if let Some(&id) = maps.own.get(attr) {
            return Some(Value::Script(id));
        }
        let (body, client) = maps
            .passed
            .get(&(text(obj, self.src()).to_string(), attr.to_string()))?
            .clone();
        Some(Value::Script(self.ext_script(n, body, client)))
    }

    fn collect_attr_scripts(&mut self) -> AttrScripts {
        let mut out = AttrScripts::default();
        let src = self.src();
        // A function of this file named so is another thing called by that name.
        let defined = |name: &str| src.contains(&format!("def {name}("));
        if src.contains("register_script") {
            if !self.calls_indexed {
                self.index_calls();
            }
            let calls = self
                .calls_by_name
                .get("register_script")
                .cloned()
                .unwrap_or_default();
            let mut seen: HashMap<String, (Option<ScriptId>, usize)> = HashMap::new();
            for (call, func) in calls {
                let Some((obj, attr)) = assigned_attr(self.ix.nav, call) else {
                    continue;
                };
                // `self.x = …` is an attribute of the class (`scriptreg.rs`).
                if func.and_then(|f| self.ix.funcs[f].self_name()) == Some(text(obj, src)) {
                    continue;
                }
                let name = text(attr, src).to_string();
                let v = self.eval(call, &Ctx::at(func));
                let entry = seen.entry(name).or_insert((None, 0));
                entry.1 += 1;
                match (v, entry.0) {
                    (Value::Script(id), None) => entry.0 = Some(id),
                    (Value::Script(id), Some(p)) if self.same_script(id, p) => {}
                    // Two bodies, or not a script: not known by the name.
                    _ => entry.1 = usize::MAX,
                }
            }
            for (name, (id, count)) in seen {
                if let Some(id) = id {
                    if count == attr_assignments(src, &name) && !defined(&name) {
                        out.own.insert(name, id);
                    }
                }
            }
        }
        self.collect_passed_attr_scripts(&mut out, &defined);
        out
    }

    /// The scripts that functions of other modules set on the objects this file
    /// passes them (see [`AttrScripts::passed`]).
    fn collect_passed_attr_scripts(
        &mut self,
        out: &mut AttrScripts,
        defined: &dyn Fn(&str) -> bool,
    ) {
        let Some(scope) = self.project else {
            return;
        };
        let src = self.src();
        let mut imports: Vec<(String, String)> = self
            .ix
            .imports
            .iter()
            .map(|(l, p)| (l.clone(), p.clone()))
            .collect();
        imports.sort();
        for (local, path) in imports {
            if self.ix.module_defs.get(&local).is_some_and(|d| d.len() > 1) {
                continue;
            }
            let Some(crate::project::Fact::ScriptSetter(sets)) = scope.lookup(&path) else {
                continue;
            };
            if !self.calls_indexed {
                self.index_calls();
            }
            let calls = self
                .calls_by_name
                .get(local.as_str())
                .cloned()
                .unwrap_or_default();
            for (call, _) in calls {
                let Some(f) = call.field(Field::Function) else {
                    continue;
                };
                if f.kind_name() != "identifier" {
                    continue;
                }
                let Some(args) = call.field(Field::Arguments) else {
                    continue;
                };
                let given: Vec<Node<'t>> = self.ix.nav.named_children(args).collect();
                if given
                    .iter()
                    .any(|a| !matches!(a.kind_name(), "identifier" | "attribute"))
                {
                    continue;
                }
                for s in sets.iter() {
                    let Some(arg) = given.get(s.param) else {
                        continue;
                    };
                    // The file gives the attribute no value of its own.
                    if attr_assignments(src, &s.attr) > 0 || defined(&s.attr) {
                        continue;
                    }
                    out.passed.insert(
                        (text(*arg, src).to_string(), s.attr.clone()),
                        (s.text.clone(), s.client),
                    );
                }
            }
        }
    }

    /// Whether two scripts have the same body.
    fn same_script(&mut self, a: ScriptId, b: ScriptId) -> bool {
        if a == b {
            return true;
        }
        let body = |s: &mut Self, id: ScriptId| -> Option<String> {
            let info = s.scripts.get(id)?.clone();
            match (&info.ext, info.body) {
                (Some(t), _) => Some(t.to_string()),
                (None, Some(b)) => Some(crate::script::body_of(s, b, info.func)?.text),
                (None, None) => None,
            }
        };
        match (body(self, a), body(self, b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// A module function that sets registered scripts as attributes of objects its
    /// caller passes: `def register_scripts(queue): queue.run_clear =
    /// queue.register_script(CLEAR)`. Each with the parameter, the attribute, the
    /// body and the client's kind.
    pub(crate) fn script_setter(&mut self, f: FuncId) -> Option<Vec<ScriptSet>> {
        if !self.src().contains("register_script") {
            return None;
        }
        if !self.calls_indexed {
            self.index_calls();
        }
        let calls = self.calls_in.get(&f).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for call in calls {
            let Some(callee) = call.field(Field::Function) else {
                continue;
            };
            let is_register = callee.kind_name() == "attribute"
                && callee
                    .field(Field::Attribute)
                    .is_some_and(|a| text(a, self.src()) == "register_script");
            if !is_register {
                continue;
            }
            let Some((obj, attr)) = assigned_attr(self.ix.nav, call) else {
                continue;
            };
            let Some(i) = self.wrapper_param(f, obj) else {
                continue;
            };
            let Value::Script(id) = self.eval(call, &Ctx::at(Some(f))) else {
                continue;
            };
            let info = self.scripts.get(id)?.clone();
            let body = match (&info.ext, info.body) {
                (Some(t), _) => t.clone(),
                (None, Some(b)) => crate::script::body_of(self, b, info.func)?.text.into(),
                (None, None) => continue,
            };
            out.push(ScriptSet {
                param: i,
                attr: text(attr, self.src()).to_string(),
                text: body,
                client: info.client,
            });
        }
        (!out.is_empty()).then_some(out)
    }
}
