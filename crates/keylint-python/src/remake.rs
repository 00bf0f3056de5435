//! Class methods that make a new object of their class from another one.
//!
//! A key object often has an alternative constructor that nests a prefix in
//! another: `@classmethod def concat(cls, prefix, name): return cls(prefix.of(name))`.
//! `KeyPrefix.concat(ns, ":item:")` is then an object of the class whose one
//! constructor argument is the key `ns.of(":item:")` builds, so its own key builders
//! (`.of(id)`) build keys of that family. `return cls(head + tail)` makes one from
//! the two values joined, when one of them is a string the caller shows.
//!
//! The method's body must be that one `return` of a call of `cls` (or of the class by
//! its name) with one argument, itself a call of a method of the class on one
//! parameter with another parameter, or the sum of two parameters. At the call, the
//! object passed for that parameter must be an object of the class, known here, and
//! the named method a key builder of one argument; anything else leaves the call
//! unknown.

use crate::eval::{Ctx, Value};
use crate::index::{text, ClassId, FuncId};
use crate::project::{Fact, Instance, Remake, RemakeHow};
use crate::syntax::{Field, NodeExt};
use std::rc::Rc;
use tree_sitter::Node;

/// The remake fact of method `fid` (named `name`) of class `c`, if its body is
/// `return cls(p.m(q))` with `m` a method the class defines, or `return cls(p + q)`,
/// `p` and `q` two parameters after `cls`.
pub(crate) fn remake_fact(
    a: &crate::lower::Analyzer<'_>,
    fid: FuncId,
    c: ClassId,
    name: &str,
) -> Option<Remake> {
    let ix = &a.ix;
    let info = &ix.funcs[fid];
    let is_static = info.decorators.iter().any(|d| d == "staticmethod");
    if !is_static && !info.is_classmethod() {
        return None;
    }
    if info.params.iter().any(|p| p.star) {
        return None;
    }
    let skip = usize::from(!is_static);
    let params: Vec<&str> = info
        .params
        .iter()
        .skip(skip)
        .map(|p| p.name.as_str())
        .collect();
    let body = ix.nav.statements(info.body);
    let [ret] = body.as_slice() else {
        return None;
    };
    if ret.kind_name() != "return_statement" {
        return None;
    }
    let made = ret.named_child(0)?;
    if made.kind_name() != "call" {
        return None;
    }
    let callee = text(made.field(Field::Function)?, a.src());
    let cls_name = info
        .params
        .first()
        .filter(|_| !is_static)
        .map(|p| p.name.as_str());
    if Some(callee) != cls_name && callee != ix.classes[c].name {
        return None;
    }
    let made_args: Vec<Node<'_>> = ix
        .nav
        .named_children(made.field(Field::Arguments)?)
        .collect();
    let [inner] = made_args.as_slice() else {
        return None;
    };
    let pos = |n: Node<'_>| {
        (n.kind_name() == "identifier")
            .then(|| params.iter().position(|p| *p == text(n, a.src())))
            .flatten()
    };
    let how = match inner.kind_name() {
        "call" => {
            let f = inner.field(Field::Function)?;
            if f.kind_name() != "attribute" {
                return None;
            }
            let method = text(f.field(Field::Attribute)?, a.src());
            ix.classes[c].methods.get(method)?;
            let inner_args: Vec<Node<'_>> = ix
                .nav
                .named_children(inner.field(Field::Arguments)?)
                .collect();
            let [arg] = inner_args.as_slice() else {
                return None;
            };
            RemakeHow::Method {
                obj: pos(f.field(Field::Object)?)?,
                method: method.to_string(),
                arg: pos(*arg)?,
            }
        }
        "binary_operator" => {
            let op = inner.field(Field::Operator)?;
            if text(op, a.src()) != "+" {
                return None;
            }
            RemakeHow::Sum(
                pos(inner.field(Field::Left)?)?,
                pos(inner.field(Field::Right)?)?,
            )
        }
        _ => return None,
    };
    match how {
        RemakeHow::Method { obj, arg, .. } | RemakeHow::Sum(obj, arg) if obj == arg => None,
        how => Some(Remake {
            name: name.to_string(),
            arity: params.len(),
            how,
            class: None,
        }),
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The object a call of a remake method makes, or `None` when it cannot be
    /// known: for `cls(p.m(q))`, the object passed as `p` must be of the class the
    /// method was read from (or the one it was called on) and have the same method,
    /// and `m` must be a key builder of one argument; for `cls(p + q)`, one of the two
    /// values must be a string the code shows (the sum is then a string).
    pub(crate) fn remade(
        &mut self,
        r: &Remake,
        inst: Option<&Instance>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let (pos, kw) = self.call_args(args, ctx);
        if !kw.is_empty() || pos.len() != r.arity || pos.iter().any(|e| e.star) {
            return None;
        }
        let class = r.class_of(inst)?;
        let key = match &r.how {
            RemakeHow::Method { obj, method, arg } => {
                let o = &pos[*obj];
                let x = self.typed_ext(o.node, &o.value.clone(), ctx)?;
                let same = matches!(x.methods_fact(&r.name), Some(Fact::Remake(m)) if m.same(r));
                if !same || !x.is_of(&class) {
                    return None;
                }
                let e = &pos[*arg];
                let t = self.to_tpl(&e.value.clone(), e.node, ctx);
                x.build_one(method, t)?
            }
            RemakeHow::Sum(l, rr) => {
                let (l, rr) = (&pos[*l], &pos[*rr]);
                if !matches!(l.value, Value::Str(_)) && !matches!(rr.value, Value::Str(_)) {
                    return None;
                }
                let mut t = self.to_tpl(&l.value.clone(), l.node, ctx);
                t.push(self.to_tpl(&rr.value.clone(), rr.node, ctx));
                t
            }
        };
        Some(Value::Ext(Rc::new(Instance::remade(class, key)?)))
    }
}

#[cfg(test)]
mod tests {
    use crate::project::{Remake, RemakeHow};

    #[test]
    fn same_remake() {
        let r = Remake {
            name: "concat".into(),
            arity: 2,
            how: RemakeHow::Method {
                obj: 0,
                method: "of".into(),
                arg: 1,
            },
            class: None,
        };
        assert!(r.same(&r.clone()));
        let mut o = r.clone();
        o.how = RemakeHow::Sum(0, 1);
        assert!(!r.same(&o));
    }
}
