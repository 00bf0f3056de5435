//! Key flow through other instances of this file's classes: `q.key`, `other.key`,
//! `[q.key for q in queues]`, where the class of `q` is known from a parameter
//! annotation, a constructor call, or a comprehension over such instances.

use crate::eval::{Ctx, Value};
use crate::index::{text, ClassId, DefKind};
use crate::syntax::{Field, NodeExt};
use crate::tpl::{HoleInfo, TPart};
use tree_sitter::Node;

/// What an annotation declares: one object, a sequence of them, or each argument
/// of a `*args` parameter.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Declared {
    One,
    Seq,
    Star,
}

/// Containers whose one type argument is the class of every element.
const SEQ_TYPES: &[&str] = &[
    "List",
    "list",
    "Sequence",
    "Iterable",
    "Iterator",
    "Set",
    "set",
    "Tuple",
    "tuple",
    "Collection",
];

impl<'t> crate::lower::Analyzer<'t> {
    /// `obj.attr` where `obj` (evaluated to `base`) is an instance of a class
    /// of this file: the attribute as the class defines it on `self`, with every
    /// value that varies per instance bound to this instance. `None` when the class
    /// is not known or the attribute is not a string.
    pub(crate) fn other_instance_attr(
        &mut self,
        obj: Node<'t>,
        base: &Value<'t>,
        attr: &str,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let h = match base {
            Value::Opaque(h) => Some(h),
            _ => None,
        };
        let (c, ident) = self.instance_class(obj, h, ctx)?;
        let v = self.instance_attr(c, attr, n, ctx, true);
        let owner = text(obj, self.src());
        let rebind = |b: &mut HoleInfo| {
            // Module-level values are the same for every instance.
            if !(b.binding.starts_with("mod") || b.binding.starts_with("global:")) {
                b.binding = format!("{ident}|{}", b.binding);
                // Shown as the instance's (`other.name`), not as the class's `name`.
                // (The label takes part in identity: instances made by equal
                // constructor calls keep the class's label.)
                if ident.starts_with("inst:")
                    && b.label.chars().all(|c| c.is_alphanumeric() || c == '_')
                {
                    b.label = format!("{owner}.{}", b.label);
                }
            }
        };
        match v {
            Value::Str(mut t) => {
                for p in &mut t.parts {
                    if let TPart::Hole(b) = p {
                        rebind(b);
                    }
                }
                Some(Value::Str(t))
            }
            Value::Opaque(mut b) => {
                rebind(&mut b);
                Some(Value::Opaque(b))
            }
            // A script registered on the object (`self.s = client.register_script(…)`):
            // the same script, whichever object holds it.
            v @ Value::Script(_) => Some(v),
            // The client the object holds (`store.db` of `store: Store`).
            v @ Value::Client(_) => Some(v),
            _ => None,
        }
    }

    /// `manager = Manager()` at module level, the only binding of `manager` in the
    /// file (no function rebinds it after `global`, and no code of the file sets an
    /// attribute on it): one instance, the same in every function that reads it.
    fn global_instance(&mut self, name: &str) -> Option<(ClassId, String)> {
        let defs = self.ix.module_defs.get(name)?;
        let [d] = defs.as_slice() else {
            return None;
        };
        let DefKind::Expr(e) = d.kind else {
            return None;
        };
        // Rebound after `global`, or given attributes from outside its class
        // (`manager.script = …`, `manager.script: Script = …`, `manager.n += 1`): what
        // its class says of it may not hold.
        let src = self.src();
        let written_outside = src.match_indices(&format!("{name}.")).any(|(i, m)| {
            let before = src[..i].chars().next_back();
            let rest = &src[i + m.len()..];
            let field = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let after = rest[field..].trim_start_matches([' ', '\t']);
            // `=`, an annotated `: T =`, or an augmented `+=` (not `==`, `<=`, `>=`).
            let op = after
                .find(|c: char| !"+-*/%|&^@<>".contains(c))
                .unwrap_or(after.len());
            let assigns = after.starts_with(':')
                || after[op..].starts_with('=')
                    && !after[op..].starts_with("==")
                    && !matches!(&after[..op], "<" | ">");
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
                && field > 0
                && assigns
        });
        if e.kind_name() != "call" || written_outside || src.contains(&format!("global {name}")) {
            return None;
        }
        let c = self.constructed_class(e)?;
        Some((c, format!("global:{name}")))
    }

    /// The class of `obj` and the identity of the instance.
    pub(crate) fn instance_class(
        &mut self,
        obj: Node<'t>,
        h: Option<&HoleInfo>,
        ctx: &Ctx<'t>,
    ) -> Option<(ClassId, String)> {
        if obj.kind_name() != "identifier" {
            return None;
        }
        let name = text(obj, self.src());
        // A comprehension variable over a list of instances.
        if let Some(iter) = self.comprehension_iterable(obj, name) {
            let c = self.element_class(iter, ctx)?;
            return Some((c, format!("inst:{}", h?.binding)));
        }
        let mut f = ctx.func?;
        // A closure reads the parameter of the function around it.
        while !self.ix.funcs[f].defs.contains_key(name) {
            let info = &self.ix.funcs[f];
            if info.nonlocal.iter().any(|n| n == name) {
                return None;
            }
            match info.parent {
                Some(p) => f = p,
                // A module global bound once to an instance of a class of this file.
                None => return self.global_instance(name),
            }
        }
        let defs = self.ix.funcs[f].defs.get(name)?;
        let [d] = defs.as_slice() else {
            return None;
        };
        let d = *d;
        if Some(f) != ctx.func && !matches!(d.kind, DefKind::Param(_)) {
            return None;
        }
        match d.kind {
            DefKind::Param(_) => {
                // Annotated with the class, or tested with `isinstance` where it is read.
                let c = match d.annotation {
                    Some(a) => self.annotated_class(a, Declared::One, f),
                    None => None,
                }
                .or_else(|| self.isinstance_guard(obj, name, f).and_then(|t| t.local()))
                .or_else(|| self.duck_class(f, name))?;
                Some((c, format!("inst:{}", h?.binding)))
            }
            DefKind::Expr(e) if e.kind_name() == "call" => {
                let c = self
                    .constructed_class(e)
                    .or_else(|| self.cls_constructed(e, f))?;
                // The same arguments, the same instance's keys.
                Some((c, format!("new:{}", text(e, self.src()))))
            }
            // `for q in queues:` over a list of instances: one instance per pass.
            DefKind::Other if d.stmt.kind_name() == "for_statement" => {
                let left = d.stmt.field(Field::Left)?;
                if left.kind_name() != "identifier" || text(left, self.src()) != name {
                    return None;
                }
                // Over a list of instances, or tested with `isinstance` where it is
                // read (`if isinstance(other, RedisSet): sets.append(other.id)`).
                let c = self
                    .element_class(d.stmt.field(Field::Right)?, ctx)
                    .or_else(|| self.isinstance_guard(obj, name, f).and_then(|t| t.local()))?;
                Some((c, format!("inst:{}", h?.binding)))
            }
            _ => None,
        }
    }

    /// `Cls(...)` with `Cls` a class of this file.
    pub(crate) fn constructed_class(&self, call: Node<'t>) -> Option<ClassId> {
        let f = call.field(Field::Function)?;
        if f.kind_name() != "identifier" {
            return None;
        }
        self.ix.class_named(text(f, self.src()))
    }

    /// `cls(...)` in a class method of function `f`: an instance of its class (or
    /// of the subclass it is called on, which the class's own attributes describe
    /// unless a subclass of this file overrides them).
    fn cls_constructed(&self, call: Node<'t>, f: crate::index::FuncId) -> Option<ClassId> {
        let callee = call.field(Field::Function)?;
        let info = &self.ix.funcs[f];
        if callee.kind_name() != "identifier" || !info.is_classmethod() {
            return None;
        }
        let first = info.params.first()?;
        (text(callee, self.src()) == first.name && info.defs.get(&first.name)?.len() == 1)
            .then_some(info.class)
            .flatten()
    }

    /// The class named by an annotation: `Queue`, `"Queue"`, `Optional[Queue]`; for a
    /// sequence, `List[Queue]` and the like; for a `*args` parameter (whose
    /// annotation is each argument's), also `Unpack[Queue]`. `Self` in a method of
    /// function `f` names the method's class (the class or a subclass, as `self` does).
    pub(crate) fn annotated_class(
        &self,
        ann: Node<'t>,
        declared: Declared,
        f: crate::index::FuncId,
    ) -> Option<ClassId> {
        let raw = text(ann, self.src());
        let toks: Vec<&str> = raw
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .filter(|t| !t.is_empty())
            .collect();
        // `RedisStore[DS, SE]`: a generic class of this file, parameterised.
        if let [first, _, ..] = toks.as_slice() {
            let bare = raw.trim().trim_matches(|c| c == '"' || c == '\'');
            if declared == Declared::One && bare.starts_with(&format!("{first}[")) {
                if let Some(c) = self.ix.class_named(first) {
                    return Some(c);
                }
            }
        }
        let (outer, inner) = match toks.as_slice() {
            [one] => (None, *one),
            [o, one] => (Some(*o), *one),
            _ => return None,
        };
        let ok = match outer {
            None => declared != Declared::Seq,
            Some(o) => {
                let o = o.rsplit('.').next().unwrap_or(o);
                match declared {
                    Declared::One => o == "Optional",
                    Declared::Seq => SEQ_TYPES.contains(&o),
                    Declared::Star => o == "Unpack",
                }
            }
        };
        if !ok {
            return None;
        }
        if matches!(inner, "Self" | "typing.Self" | "typing_extensions.Self") {
            return self.ix.funcs[f].class;
        }
        self.ix.class_named(inner)
    }

    /// The iterable of the comprehension clause that binds `name` around `n`.
    fn comprehension_iterable(&self, n: Node<'t>, name: &str) -> Option<Node<'t>> {
        let nav = self.ix.nav;
        let mut cur = nav.parent(n);
        while let Some(p) = cur {
            match p.kind_name() {
                "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression" => {
                    for c in nav.named_children(p) {
                        if c.kind_name() != "for_in_clause" {
                            continue;
                        }
                        let binds = c.field(Field::Left).is_some_and(|l| {
                            l.kind_name() == "identifier" && text(l, self.src()) == name
                        });
                        if binds {
                            return c.field(Field::Right);
                        }
                    }
                }
                "function_definition" | "lambda" | "class_definition" | "module" => return None,
                _ => {}
            }
            cur = nav.parent(p);
        }
        None
    }

    /// The class of every element of `iter`: a parameter annotated `List[Cls]`, or a
    /// name bound once to `[Cls(...) for ...]`.
    fn element_class(&self, iter: Node<'t>, ctx: &Ctx<'t>) -> Option<ClassId> {
        if iter.kind_name() != "identifier" {
            return None;
        }
        let f = ctx.func?;
        let defs = self.ix.funcs[f].defs.get(text(iter, self.src()))?;
        let [d] = defs.as_slice() else {
            return None;
        };
        match d.kind {
            // `*models: Model` (or `*models: Unpack[Self]`): each element is a Model.
            DefKind::Param(p) if is_list_splat(self.ix.nav, p) => {
                self.annotated_class(d.annotation?, Declared::Star, f)
            }
            DefKind::Param(_) => self.annotated_class(d.annotation?, Declared::Seq, f),
            DefKind::Expr(e) if e.kind_name() == "list_comprehension" => {
                let body = e.field(Field::Body)?;
                (body.kind_name() == "call")
                    .then(|| self.constructed_class(body))
                    .flatten()
            }
            _ => None,
        }
    }
}

/// Whether a parameter node is a `*args` parameter (annotated or not).
fn is_list_splat(nav: &crate::syntax::Nav<'_>, p: Node<'_>) -> bool {
    let is = |n: Node<'_>| n.kind_name() == "list_splat_pattern";
    is(p)
        || nav.parent(p).is_some_and(is)
        || (p.kind_name() == "typed_parameter" && p.named_child(0).is_some_and(is))
}
