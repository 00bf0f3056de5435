//! Settings read from a dict whose literal defaults the code shows.
//!
//! Two ways of writing "this setting, or the default shown here":
//!
//! - an options dict on `self` filled from a dict of defaults in `__init__` and then
//!   overridden by the caller: `self.options = DEFAULTS.copy()` (also `dict(DEFAULTS)`,
//!   `copy.copy(DEFAULTS)`, `{**DEFAULTS, **kw}`, `dict(DEFAULTS, **kw)`, or the defaults
//!   written in place), then `self.options.update(options)`, `DEFAULTS` a dict display
//!   with string keys of the class (`Cls.DEFAULTS`, `self.DEFAULTS`) or of the module.
//!   `self.options["namespace"]` (or `self.options.get("namespace")`) is the entry's
//!   literal default unless the caller gives another value;
//! - a read with its default written at the read: `options.get("ns", "app")`,
//!   `self.options.pop("key_prefix", self.DEFAULT_PREFIX)`, `os.environ.get(
//!   "APP_PREFIX", "app")`, on an object named like configuration; also inside a
//!   followed helper whose parameters the call binds to literals (`def setting(self,
//!   name, default): return self.conf.get(name, default)` called as
//!   `self.setting("prefix", "app")`).
//!
//! Either is a configured value (see [`crate::configured`]): one opaque, keylike hole
//! whose binding carries the default, judged with that default as a warning. Only
//! entries named like a key or a prefix are read so; an entry that the class writes
//! with a literal name anywhere (`self.options["namespace"] = …`) is left opaque, since
//! the default may never be what the code uses.

use crate::eval::{arg_nodes, Ctx, Value};
use crate::index::{text, ClassId, DefKind};
use crate::syntax::{Field, NodeExt};
use crate::tpl::is_keylike_label;
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// `self.X["name"]` (`sub` a subscript): the entry of an options dict filled from
    /// literal defaults, as a configured value.
    pub(crate) fn options_subscript(&mut self, sub: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let value = sub.field(Field::Value)?;
        let index = self.ix.nav.named_children(sub).find(|c| *c != value)?;
        self.options_entry(value, index, sub, ctx)
    }

    /// `recv.get("name")`, `recv.get("name", d)`, `recv.pop("name", d)` (`call`, whose
    /// method is `m`): an entry of an options dict of `self` filled from literal
    /// defaults, or a setting read with its literal default at the read.
    pub(crate) fn defaulted_get(
        &mut self,
        call: Node<'t>,
        recv: Node<'t>,
        m: &str,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        // `os.getenv("APP_KEY", "app")`: the environment's entry with its default.
        let getenv = m == "getenv"
            && matches!(self.eval(recv, &ctx.deeper()), Value::Symbol(p) if p == "os");
        if !matches!(m, "get" | "pop") && !getenv {
            return None;
        }
        let args = arg_nodes(self.ix.nav, call.field(Field::Arguments));
        let (&entry, default) = args.split_first()?;
        if default.len() > 1 || !matches!(entry.kind_name(), "string" | "identifier") {
            return None;
        }
        if m == "get" && entry.kind_name() == "string" {
            if let Some(v) = self.options_entry(recv, entry, call, ctx) {
                return v_if_agrees(self, v, default.first().copied(), ctx);
            }
        }
        let &[default] = default else {
            return None;
        };
        if !getenv && !crate::heads::is_config_object(recv, self.src()) {
            return None;
        }
        // A mapping the code shows (a dict display, a parameter bound to one) is read
        // as it is elsewhere; an imported one (`os.environ`) is not shown.
        if !getenv
            && !matches!(
                self.eval(recv, &ctx.deeper()),
                Value::Opaque(_) | Value::Unknown | Value::Symbol(_)
            )
        {
            return None;
        }
        let name = self.literal_of(entry, ctx)?;
        if !crate::tpl::is_key_setting(&name) {
            return None;
        }
        if !matches!(default.kind_name(), "string" | "identifier" | "attribute") {
            return None;
        }
        let default = self.literal_of_bytes(default, ctx)?;
        let Value::Opaque(h) = self.opaque(call, ctx) else {
            return None;
        };
        let label = text(call, self.src()).to_string();
        Some(crate::configured::configured(&label, &h.binding, &default))
    }

    /// The string a literal (or a constant that is one) evaluates to.
    fn literal_of(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<String> {
        String::from_utf8(self.literal_of_bytes(n, ctx)?).ok()
    }

    fn literal_of_bytes(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<Vec<u8>> {
        match self.eval(n, &ctx.deeper()) {
            Value::Str(t) => t.as_bytes(),
            _ => None,
        }
    }

    /// `self.attr` (`obj`) read in a method of a class of this file: the class and the
    /// attribute's name.
    pub(crate) fn self_attr(
        &mut self,
        obj: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(crate::index::ClassId, &'t str)> {
        if obj.kind_name() != "attribute" {
            return None;
        }
        let owner = obj.field(Field::Object)?;
        if owner.kind_name() != "identifier" || text(owner, self.src()) != "self" {
            return None;
        }
        let attr = text(obj.field(Field::Attribute)?, self.src());
        let Value::SelfObj(c) = self.eval(owner, &ctx.deeper()) else {
            return None;
        };
        Some((c, attr))
    }

    /// `obj[index]` or `obj.get(index)` with `obj` = `self.X`, an options dict filled
    /// from literal defaults in `__init__` (see the module's doc).
    fn options_entry(
        &mut self,
        obj: Node<'t>,
        index: Node<'t>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if index.kind_name() != "string" {
            return None;
        }
        let (c, attr) = self.self_attr(obj, ctx)?;
        let name = self.literal_of(index, ctx)?;
        if !is_keylike_label(&name) {
            return None;
        }
        if self.overridden_below(c, attr) {
            return None;
        }
        // The one class of the chain that assigns it, once, in its `__init__`.
        let chain = self.ix.class_chain(c);
        let k = chain
            .iter()
            .copied()
            .find(|&k| self.ix.classes[k].self_assigns.contains_key(attr))?;
        let assigns = self.ix.classes[k].self_assigns.get(attr)?.clone();
        let [a] = assigns.as_slice() else {
            return None;
        };
        let f = &self.ix.funcs[a.func];
        if f.name != "__init__" || f.class != Some(k) {
            return None;
        }
        let init = a.func;
        let defaults = self.defaults_source(a.value?, k, init, &name)?;
        if self.entry_written(attr, &name) {
            return None;
        }
        let class = self.ix.classes[k].name.clone();
        let label = text(n, self.src()).to_string();
        Some(crate::configured::configured(
            &label,
            &format!("{class}.self.{attr}[{name}]"),
            &defaults,
        ))
    }

    /// The literal default of entry `name` in what `__init__` (`init`, of class `k`)
    /// assigns to the options dict: a copy of a dict of defaults, or a display.
    fn defaults_source(
        &mut self,
        v: Node<'t>,
        k: ClassId,
        init: crate::index::FuncId,
        name: &str,
    ) -> Option<Vec<u8>> {
        match v.kind_name() {
            "dictionary" => {
                let mut found: Option<Vec<u8>> = None;
                for it in self.ix.nav.named_children(v).collect::<Vec<_>>() {
                    match it.kind_name() {
                        "comment" => {}
                        // `**DEFAULTS` gives the default; any other splat overrides.
                        "dictionary_splat" => {
                            if let Some(inner) = it.named_child(0) {
                                if let Some(d) = self.defaults_dict(inner, k, init) {
                                    found = Some(self.entry_default(d, name)?);
                                }
                            }
                        }
                        "pair" => {
                            let key = it.field(Field::Key)?;
                            if key.kind_name() != "string" {
                                return None;
                            }
                            let ctx = Ctx::at(Some(init));
                            if self.literal_of(key, &ctx)? == name {
                                let val = it.field(Field::Value)?;
                                found = Some(self.literal_of_bytes(val, &ctx)?);
                            }
                        }
                        _ => return None,
                    }
                }
                found
            }
            "call" => {
                let func = v.field(Field::Function)?;
                let args = arg_nodes(self.ix.nav, v.field(Field::Arguments));
                let src = self.src();
                let source = match func.kind_name() {
                    // `DEFAULTS.copy()`
                    "attribute" if text(func.field(Field::Attribute)?, src) == "copy" => {
                        if !args.is_empty() {
                            return None;
                        }
                        func.field(Field::Object)?
                    }
                    // `copy.copy(DEFAULTS)`, `copy.deepcopy(DEFAULTS)`
                    "attribute" => {
                        let m = text(func, src);
                        if !matches!(m, "copy.copy" | "copy.deepcopy") {
                            return None;
                        }
                        let [d] = args[..] else { return None };
                        d
                    }
                    // `dict(DEFAULTS)`, `dict(DEFAULTS, **kw)`, `deepcopy(DEFAULTS)`
                    "identifier" => {
                        let f = text(func, src);
                        if self.ix.module_defs.contains_key(f) {
                            return None;
                        }
                        let (&d, rest) = args.split_first()?;
                        match f {
                            "dict" => {
                                // Keyword arguments override; one of the entry's name
                                // sets it.
                                for r in rest {
                                    match r.kind_name() {
                                        "dictionary_splat" => {}
                                        "keyword_argument" => {
                                            let kw = r.field(Field::Name)?;
                                            if text(kw, src) == name {
                                                return None;
                                            }
                                        }
                                        _ => return None,
                                    }
                                }
                            }
                            "deepcopy" | "copy" if rest.is_empty() => {}
                            _ => return None,
                        }
                        d
                    }
                    _ => return None,
                };
                let d = self.defaults_dict(source, k, init)?;
                self.entry_default(d, name)
            }
            _ => None,
        }
    }

    /// The dict display a dict of defaults names: a module constant (`DEFAULTS`), or a
    /// class constant of `k` or its bases (`Cls.DEFAULTS`, `self.DEFAULTS`).
    fn defaults_dict(
        &mut self,
        n: Node<'t>,
        k: ClassId,
        init: crate::index::FuncId,
    ) -> Option<Node<'t>> {
        let src = self.src();
        let expr = match n.kind_name() {
            "identifier" => {
                let name = text(n, src);
                let f = &self.ix.funcs[init];
                if f.defs.contains_key(name) || f.params.iter().any(|p| p.name == name) {
                    return None;
                }
                let [def] = self.ix.module_defs.get(name)?.as_slice() else {
                    return None;
                };
                let DefKind::Expr(e) = def.kind else {
                    return None;
                };
                e
            }
            "attribute" => {
                let owner = n.field(Field::Object)?;
                let attr = text(n.field(Field::Attribute)?, src);
                let on_self = text(owner, src) == "self";
                let chain = self.ix.class_chain(k);
                let named = owner.kind_name() == "identifier"
                    && chain
                        .iter()
                        .any(|&c| self.ix.classes[c].name == text(owner, src));
                if !on_self && !named {
                    return None;
                }
                let defs = chain
                    .iter()
                    .find_map(|&c| self.ix.classes[c].defs.get(attr))?
                    .clone();
                let [def] = defs.as_slice() else {
                    return None;
                };
                let DefKind::Expr(e) = def.kind else {
                    return None;
                };
                e
            }
            _ => return None,
        };
        (expr.kind_name() == "dictionary").then_some(expr)
    }

    /// The literal value of entry `name` of a dict display of defaults.
    fn entry_default(&mut self, d: Node<'t>, name: &str) -> Option<Vec<u8>> {
        let (_, v) = self
            .dict_entries(d)
            .into_iter()
            .find(|(key, _)| key == name)?;
        if v.kind_name() != "string" {
            return None;
        }
        self.literal_of_bytes(v, &Ctx::at(None))
    }

    /// Whether a method of the file writes entry `name` of `self.<attr>` by that
    /// literal name (`self.options["namespace"] = …`, `del …`, `.pop("namespace")`,
    /// `.setdefault("namespace", …)`), or there are too many uses to tell.
    fn entry_written(&self, attr: &str, name: &str) -> bool {
        let nav = self.ix.nav;
        let src = self.src();
        let names_entry = |n: Node<'t>| {
            n.kind_name() == "string"
                && text(n, src).trim_matches(|c: char| c == '"' || c == '\'') == name
        };
        let Some(uses) = self.attr_uses(attr) else {
            return true;
        };
        for x in uses {
            let Some(parent) = nav.parent(x) else {
                continue;
            };
            match parent.kind_name() {
                "subscript" if parent.field(Field::Value) == Some(x) => {
                    let index = nav.named_children(parent).find(|c| *c != x);
                    if !index.is_some_and(names_entry) {
                        continue;
                    }
                    if is_write_target(nav, parent) {
                        return true;
                    }
                }
                "attribute" if parent.field(Field::Object) == Some(x) => {
                    let m = parent.field(Field::Attribute).map(|a| text(a, src));
                    if !matches!(m, Some("pop" | "setdefault" | "__setitem__")) {
                        continue;
                    }
                    let call = nav.parent(parent).filter(|c| c.kind_name() == "call");
                    let first = call
                        .and_then(|c| arg_nodes(nav, c.field(Field::Arguments)).first().copied());
                    if first.is_some_and(names_entry) {
                        return true;
                    }
                }
                _ => {}
            }
        }
        false
    }
}

/// Whether `n` is written: the target of an assignment (also augmented, also inside
/// a tuple or list of targets) or of `del`.
pub(crate) fn is_write_target<'t>(nav: &crate::syntax::Nav<'t>, n: Node<'t>) -> bool {
    let mut cur = n;
    while let Some(p) = nav.parent(cur) {
        match p.kind_name() {
            "assignment" | "augmented_assignment" => return p.field(Field::Left) == Some(cur),
            "delete_statement" => return true,
            "pattern_list" | "tuple_pattern" | "list_pattern" | "expression_list" => cur = p,
            _ => return false,
        }
    }
    false
}

/// `self.options.get("name", d)`: the entry's default when `d` is absent, `None` or
/// the same literal; another literal default makes the read unknown.
fn v_if_agrees<'t>(
    me: &mut crate::lower::Analyzer<'t>,
    v: Value<'t>,
    default: Option<Node<'t>>,
    ctx: &Ctx<'t>,
) -> Option<Value<'t>> {
    let Some(d) = default else {
        return Some(v);
    };
    if d.kind_name() == "none" {
        return Some(v);
    }
    let Value::Str(t) = &v else {
        return None;
    };
    let mine = t.parts.iter().find_map(|p| match p {
        crate::tpl::TPart::Hole(h) => crate::configured::default_of(&h.binding),
        _ => None,
    })?;
    (me.literal_of_bytes(d, ctx)? == mine).then_some(v)
}
