//! Key names kept in a dict on `self`: a table the constructor writes once and the
//! class only reads.
//!
//! ```python
//! def __init__(self):
//!     self.resource_keys = {"cpu": "resources:cpu", "memory": "resources:memory"}
//!
//! def init(self):
//!     with self.redis.pipeline() as pipe:
//!         pipe.set(self.resource_keys["cpu"], 0)
//!         pipe.set(self.resource_keys["memory"], 0)
//! ```
//!
//! `self.resource_keys["cpu"]` is that entry's value, and `self.resource_keys.values()`
//! is the dict's values, one by one (string values only: a list or dict value could be
//! changed through its entry). The attribute must be assigned exactly once in
//! the class's chain of this file, in `__init__`, a dict display (a `**` splat leaves
//! it unknown; an entry is looked up only when every key is a string literal, or every
//! key a member of one class written as a dotted name, `JobPriority.HIGH`, looked up by
//! the same name; whatever the keys for `.values()`), no subclass of the file may assign
//! it, and every other use of an attribute of that name in the file must only read it:
//! `x.attr[k]` that is no assignment target nor `del`, `x.attr.get(…)`, `.items()`,
//! `.keys()`, `.values()`, `.copy()`, `len(x.attr)`, `k in x.attr` or the iterable of a
//! `for`. Any other use (an argument of a call, `.update`, an alias) may change it.

use crate::eval::{Ctx, Elem, Value};
use crate::index::{text, ClassId};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// `self.attr["name"]` (`sub` a subscript) of such a table: the entry's value.
    pub(crate) fn attr_dict_entry(&mut self, sub: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        // `self.keys["cpu"]`, or `self.queues[JobPriority.HIGH]` of `{JobPriority.HIGH:
        // "queue:high", …}`.
        let (value, string, member) = match string_subscript(self.ix.nav, sub) {
            Some((value, index)) => (value, Some(index), None),
            None => {
                let (value, member) = member_subscript(self.ix.nav, self.src(), sub)?;
                (value, None, Some(member))
            }
        };
        let (dict, init) = self.attr_table(value, ctx)?;
        let at = Ctx {
            func: Some(init),
            env: None,
            depth: ctx.depth + 1,
        };
        match (string, member) {
            (Some(index), _) => self.dict_string_entry(dict, index, ctx, &at),
            (None, Some(member)) => self.dict_member_entry(dict, &member, &at),
            (None, None) => None,
        }
    }

    /// The value of the entry of dict display `dict` whose key is written as `index`
    /// is, a member of a class (`JobPriority.HIGH`, [`member_name`]), when every key of
    /// the display is a member of one class, written once each: a string, evaluated in
    /// `at`. Two members are told apart by their names only (an enum whose two members
    /// have one value makes them one key, which a display rarely lists twice).
    fn dict_member_entry(
        &mut self,
        dict: Node<'t>,
        index: &str,
        at: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let src = self.src();
        let mut keys = Vec::new();
        for p in self.ix.nav.named_children(dict) {
            if p.kind_name() == "comment" {
                continue;
            }
            let key = p.field(Field::Key)?;
            keys.push((member_name(key, src)?, p.field(Field::Value)?));
        }
        let class = |m: &str| m.rsplit_once('.').map(|(c, _)| c.to_string());
        let first = class(&keys.first()?.0)?;
        if keys
            .iter()
            .any(|(k, _)| class(k).as_deref() != Some(first.as_str()))
        {
            return None;
        }
        let mut found = keys.iter().filter(|(k, _)| k == index);
        let (_, entry) = found.next()?;
        if found.next().is_some() {
            return None;
        }
        match self.eval(*entry, at) {
            v @ Value::Str(_) => Some(v),
            _ => None,
        }
    }

    /// The value of the entry that `index`, a string literal evaluated in `ctx`, names
    /// in dict display `dict`, whose keys must all be string literals; the value is
    /// evaluated in `at` and must be a string (a list or dict value could be changed
    /// through the entry: `self.keys["all"].append(k)`).
    pub(crate) fn dict_string_entry(
        &mut self,
        dict: Node<'t>,
        index: Node<'t>,
        ctx: &Ctx<'t>,
        at: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if !string_keys(self.ix.nav, dict) {
            return None;
        }
        let Value::Str(t) = self.eval(index, &ctx.deeper()) else {
            return None;
        };
        let want = String::from_utf8(t.as_bytes()?).ok()?;
        let (_, entry) = self
            .dict_entries(dict)
            .into_iter()
            .find(|(k, _)| *k == want)?;
        match self.eval(entry, at) {
            v @ Value::Str(_) => Some(v),
            _ => None,
        }
    }

    /// `self.attr.values()` (`call`, with `recv` = `self.attr`) of such a table: its
    /// values, element by element.
    pub(crate) fn attr_dict_values(
        &mut self,
        call: Node<'t>,
        recv: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if !no_arguments(self.ix.nav, call) {
            return None;
        }
        let (dict, init) = self.attr_table(recv, ctx)?;
        let at = Ctx {
            func: Some(init),
            env: None,
            depth: ctx.depth + 1,
        };
        self.dict_string_values(dict, &at)
    }

    /// The values of dict display `dict`, element by element, whatever its keys
    /// (`JobPriority.HIGH: "queue:high"`), evaluated in `at`: strings only (a list or
    /// dict value could be changed through its entry).
    pub(crate) fn dict_string_values(&mut self, dict: Node<'t>, at: &Ctx<'t>) -> Option<Value<'t>> {
        let entries: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(dict)
            .filter_map(|p| p.field(Field::Value))
            .collect();
        if entries.is_empty() {
            return None;
        }
        let mut items = Vec::with_capacity(entries.len());
        for v in entries {
            let value = self.eval(v, at);
            if !matches!(value, Value::Str(_)) {
                return None;
            }
            items.push(Elem {
                value,
                node: v,
                star: false,
                each: Vec::new(),
            });
        }
        Some(Value::Seq {
            items,
            family: false,
        })
    }

    /// The dict display `self.attr` (`obj`) holds and the `__init__` that writes it,
    /// when it is such a table.
    fn attr_table(
        &mut self,
        obj: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(Node<'t>, crate::index::FuncId)> {
        let (c, attr) = self.self_attr(obj, ctx)?;
        if self.overridden_below(c, attr) {
            return None;
        }
        let (k, a) = self.one_assignment(c, attr)?;
        let f = &self.ix.funcs[a.func];
        if f.name != "__init__" || f.class != Some(k) {
            return None;
        }
        let init = a.func;
        let dict = a.value?;
        if dict.kind_name() != "dictionary" || !self.only_read(attr) {
            return None;
        }
        // Entries only (no `**` splat), each key written as a literal or a name.
        entries_only(self.ix.nav, dict).then_some((dict, init))
    }

    /// The one assignment of `self.attr` in the chain of class `c`, with its class: no
    /// class of the chain defines the name otherwise.
    fn one_assignment(
        &self,
        c: ClassId,
        attr: &str,
    ) -> Option<(ClassId, crate::index::SelfAssign<'t>)> {
        let mut found = None;
        for k in self.ix.class_chain(c) {
            let cls = &self.ix.classes[k];
            if cls.methods.contains_key(attr) || cls.defs.contains_key(attr) {
                return None;
            }
            if let Some(assigns) = cls.self_assigns.get(attr) {
                match (assigns.as_slice(), &found) {
                    ([one], None) => found = Some((k, *one)),
                    _ => return None,
                }
            }
        }
        found
    }

    /// Whether every use of an attribute named `attr` in the file, besides its one
    /// assignment, only reads it as a dict.
    fn only_read(&self, attr: &str) -> bool {
        let Some(uses) = self.attr_uses(attr) else {
            return false;
        };
        let mut assignments = 0;
        uses.into_iter()
            .all(|x| reads_as_dict(self.ix.nav, self.src(), x, &mut assignments))
    }
}

/// Whether mention `x` of a dict only reads it: `x[k]` that is no assignment target nor
/// `del`, `x.get(…)`, `.items()`, `.keys()`, `.values()`, `.copy()`, the iterable of a
/// `for`, `k in x`, `len(x)`, or the one plain assignment that binds it (counted in
/// `assignments`).
pub(crate) fn reads_as_dict<'t>(
    nav: &crate::syntax::Nav<'t>,
    src: &str,
    x: Node<'t>,
    assignments: &mut usize,
) -> bool {
    let Some(p) = nav.parent(x) else {
        return false;
    };
    match p.kind_name() {
        "subscript" if p.field(Field::Value) == Some(x) => !crate::optdict::is_write_target(nav, p),
        "attribute" if p.field(Field::Object) == Some(x) => {
            p.field(Field::Attribute)
                .is_some_and(|m| crate::globals::DICT_READS.contains(&text(m, src)))
                && nav.parent(p).is_some_and(|c| c.kind_name() == "call")
        }
        "assignment" if p.field(Field::Left) == Some(x) => {
            *assignments += 1;
            *assignments == 1
        }
        // `for k in d:` (its keys).
        "for_statement" | "for_in_clause" => p.field(Field::Right) == Some(x),
        // `k in d`, `d == other`.
        "comparison_operator" => true,
        // `len(d)`.
        "argument_list" => nav
            .parent(p)
            .and_then(|c| c.field(Field::Function))
            .is_some_and(|f| text(f, src) == "len"),
        _ => false,
    }
}

/// Whether every key of dict display `dict` is a string literal.
pub(crate) fn string_keys<'t>(nav: &crate::syntax::Nav<'t>, dict: Node<'t>) -> bool {
    nav.named_children(dict)
        .filter(|p| p.kind_name() != "comment")
        .all(|p| {
            p.field(Field::Key)
                .is_some_and(|key| key.kind_name() == "string")
        })
}

/// Whether dict display `dict` holds entries only (no `**` splat).
pub(crate) fn entries_only<'t>(nav: &crate::syntax::Nav<'t>, dict: Node<'t>) -> bool {
    nav.named_children(dict)
        .filter(|p| p.kind_name() != "comment")
        .all(|p| p.kind_name() == "pair")
}

/// The object and the index of subscript `sub` when the index is a string literal
/// (`d["name"]`).
pub(crate) fn string_subscript<'t>(
    nav: &crate::syntax::Nav<'t>,
    sub: Node<'t>,
) -> Option<(Node<'t>, Node<'t>)> {
    let value = sub.field(Field::Value)?;
    let index = nav.named_children(sub).find(|c| *c != value)?;
    (index.kind_name() == "string").then_some((value, index))
}

/// The object and the index of subscript `sub` when the index is a member of a
/// class written as a dotted name ([`member_name`]): `d[JobPriority.HIGH]`.
fn member_subscript<'t>(
    nav: &crate::syntax::Nav<'t>,
    src: &str,
    sub: Node<'t>,
) -> Option<(Node<'t>, String)> {
    let value = sub.field(Field::Value)?;
    let mut rest = nav.named_children(sub).filter(|c| *c != value);
    let index = rest.next()?;
    if rest.next().is_some() {
        return None;
    }
    Some((value, member_name(index, src)?))
}

/// `Class.MEMBER` or `module.Class.MEMBER` (`index` an attribute of names only, the
/// class's name capitalised, the member's in capitals): its text without spaces.
fn member_name(index: Node<'_>, src: &str) -> Option<String> {
    if index.kind_name() != "attribute" {
        return None;
    }
    let t: String = text(index, src).split_whitespace().collect();
    if !t.is_ascii() || !crate::importscan::is_dotted(&t) {
        return None;
    }
    let parts: Vec<&str> = t.split('.').collect();
    let [.., class, member] = parts.as_slice() else {
        return None;
    };
    (class.starts_with(|c: char| c.is_ascii_uppercase())
        && member.chars().any(|c| c.is_ascii_uppercase())
        && !member.chars().any(|c| c.is_ascii_lowercase()))
    .then_some(t)
}

/// Whether `call` passes no argument (`d.values()`).
pub(crate) fn no_arguments<'t>(nav: &crate::syntax::Nav<'t>, call: Node<'t>) -> bool {
    call.field(Field::Arguments)
        .is_some_and(|args| nav.named_children(args).next().is_none())
}
