//! Class methods that make a new object of their class from another one.
//!
//! A key object often has an alternative constructor that nests a prefix in
//! another: `@classmethod def concat(cls, prefix, name): return cls(prefix.of(name))`.
//! `KeyPrefix.concat(ns, ":item:")` is then an object of the class whose one
//! constructor argument is the key `ns.of(":item:")` builds, so its own key builders
//! (`.of(id)`) build keys of that family. `return cls(head + tail)` makes one from
//! the two values joined, when one of them is a string the caller shows.
//!
//! An alternative constructor may also pass its parameters on, or strings it builds
//! from them alone (`return cls(_status=STATUS.format(namespace=namespace), …)` of
//! a dataclass whose properties return its fields): the object is then the one the
//! call of the class with those arguments makes, so `TaskKeys.format(namespace=ns)
//! .status` is the key `STATUS` formatted with the caller's `ns`. An argument of
//! anything else (a setting, a call the analysis does not know) leaves the method
//! unsummarised.
//!
//! For a nested prefix, the method's body must be that one `return` of a call of
//! `cls` (or of the class by its name) with one argument, itself a call of a method
//! of the class on one parameter with another parameter, or the sum of two
//! parameters. At the call, the object passed for that parameter must be an object
//! of the class, known here, and the named method a key builder of one argument;
//! anything else leaves the call unknown.

use crate::eval::{Ctx, Value};
use crate::index::{text, ClassId, FuncId};
use crate::project::{Fact, Instance, Passed, Remake, RemakeHow};
use crate::syntax::{Field, NodeExt};
use std::rc::Rc;
use tree_sitter::Node;

/// The remake fact of method `fid` (named `name`) of class `c`, if its body is
/// `return cls(p.m(q))` with `m` a method the class defines, or `return cls(p + q)`,
/// `p` and `q` two parameters after `cls`.
pub(crate) fn remake_fact(
    a: &mut crate::lower::Analyzer<'_>,
    fid: FuncId,
    c: ClassId,
    name: &str,
    qual: &str,
) -> Option<Remake> {
    let info = a.ix.funcs[fid].clone();
    let is_static = info.is_staticmethod();
    if !is_static && !info.is_classmethod() {
        return None;
    }
    if info.params.iter().any(|p| p.star) {
        return None;
    }
    let skip = usize::from(!is_static);
    let params: Vec<String> = info
        .params
        .iter()
        .skip(skip)
        .map(|p| p.name.clone())
        .collect();
    if let Some(how) = pass_fact(a, fid, c, &params, qual) {
        return Some(Remake {
            name: name.to_string(),
            arity: params.len(),
            how,
            class: None,
        });
    }
    let ix = &a.ix;
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
            .then(|| params.iter().position(|p| p == text(n, a.src())))
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

/// Most statements between making the object and returning it.
const MAX_PASS_STATEMENTS: usize = 8;

/// `return cls(id, connection=connection)`, or `job = cls(…)`, calls of `job`'s
/// methods, `return job`, in a class method: a constructor call whose every argument is
/// a parameter of the method, passed on as it is, a string the method builds from its
/// parameters alone (`STATUS.format(namespace=namespace)`, also as `… if agent else
/// None`), or `None`. The methods called in between must not set an attribute the
/// constructor sets (they may load other state: `job.refresh()`).
fn pass_fact<'t>(
    a: &mut crate::lower::Analyzer<'t>,
    fid: FuncId,
    c: ClassId,
    params: &[String],
    qual: &str,
) -> Option<RemakeHow> {
    let ix = &a.ix;
    let src = a.src();
    let info = &ix.funcs[fid];
    let is_static = info.is_staticmethod();
    let cls_name = info
        .params
        .first()
        .filter(|_| !is_static)
        .map(|p| p.name.as_str());
    let mut body: Vec<Node<'_>> = ix.nav.statements(info.body);
    // A docstring first.
    if body.first().is_some_and(|s| {
        s.kind_name() == "expression_statement"
            && s.named_child(0).is_some_and(|e| e.kind_name() == "string")
    }) {
        body.remove(0);
    }
    let (last, rest) = body.split_last()?;
    if last.kind_name() != "return_statement" || rest.len() > MAX_PASS_STATEMENTS {
        return None;
    }
    let ret = last.named_child(0)?;
    let made = match rest {
        [] => ret,
        [first, calls @ ..] => {
            // `job = cls(…)`, then `job.m(…)` statements, then `return job`.
            if ret.kind_name() != "identifier" || first.kind_name() != "expression_statement" {
                return None;
            }
            let var = text(ret, src);
            let assign = first.named_child(0)?;
            if assign.kind_name() != "assignment"
                || text(assign.field(Field::Left)?, src) != var
                || assign.field(Field::Type).is_some()
            {
                return None;
            }
            // The attributes the constructor sets from its arguments.
            let init = a.defines(c, "__init__");
            let init_params: Vec<&str> = init
                .map(|f| {
                    ix.funcs[f]
                        .params
                        .iter()
                        .skip(1)
                        .map(|p| p.name.as_str())
                        .collect()
                })
                .unwrap_or_default();
            let reads_param = |v: Node<'_>| {
                let mut stack = vec![v];
                while let Some(n) = stack.pop() {
                    if n.kind_name() == "identifier" && init_params.contains(&text(n, src)) {
                        return true;
                    }
                    stack.extend(ix.nav.named_children(n));
                }
                false
            };
            let init_attrs: Vec<&str> = ix.classes[c]
                .self_assigns
                .iter()
                .filter(|(_, v)| {
                    v.iter()
                        .any(|x| Some(x.func) == init && x.value.is_none_or(reads_param))
                })
                .map(|(k, _)| k.as_str())
                .collect();
            for st in calls {
                let call = (st.kind_name() == "expression_statement")
                    .then(|| st.named_child(0))
                    .flatten()?;
                let call = crate::syntax::unawaited(call)?;
                let f = (call.kind_name() == "call")
                    .then(|| call.field(Field::Function))
                    .flatten()?;
                if f.kind_name() != "attribute" || text(f.field(Field::Object)?, src) != var {
                    return None;
                }
                let m = text(f.field(Field::Attribute)?, src);
                let mid = a.defines(c, m)?;
                let sets_ctor_attr = ix.classes[c].self_assigns.iter().any(|(k, v)| {
                    init_attrs.contains(&k.as_str()) && v.iter().any(|x| x.func == mid)
                });
                if sets_ctor_attr {
                    return None;
                }
            }
            assign.field(Field::Right)?
        }
    };
    if made.kind_name() != "call" {
        return None;
    }
    // Only `cls(…)`: a class named in the body is that class even when the method is
    // called on a subclass, whose facts the object would otherwise be read with.
    let callee = text(made.field(Field::Function)?, src);
    if Some(callee) != cls_name {
        return None;
    }
    let mut pos_args = Vec::new();
    let mut kw_args = Vec::new();
    for arg in ix.nav.named_children(made.field(Field::Arguments)?) {
        match arg.kind_name() {
            "keyword_argument" => {
                let name = text(arg.field(Field::Name)?, src).to_string();
                kw_args.push((name, arg.field(Field::Value)?));
            }
            "comment" => {}
            _ if kw_args.is_empty() => pos_args.push(arg),
            _ => return None,
        }
    }
    let skip = usize::from(!is_static);
    let fparams: Vec<(String, bool)> = info
        .params
        .iter()
        .skip(skip)
        .map(|p| (p.name.clone(), p.default.is_some()))
        .collect();
    let mut built = Built::new(fid, c, cls_name.map(str::to_string), params, qual);
    let mut pos = Vec::with_capacity(pos_args.len());
    for arg in pos_args {
        pos.push(built.passed(a, arg)?);
    }
    let mut kw = Vec::with_capacity(kw_args.len());
    for (name, arg) in kw_args {
        kw.push((name, built.passed(a, arg)?));
    }
    Some(RemakeHow::Pass {
        params: fparams,
        pos,
        kw,
    })
}

/// Most arguments of an alternative constructor that it builds itself.
const MAX_BUILT: usize = 64;

/// Reads the arguments an alternative constructor passes to the class: a parameter,
/// a string built from the parameters alone, or `None`.
struct Built {
    fid: FuncId,
    /// The method's receiver (`cls`).
    cls: Option<String>,
    class: ClassId,
    params: Vec<String>,
    qual: String,
    count: usize,
}

impl Built {
    fn new(
        fid: FuncId,
        class: ClassId,
        cls: Option<String>,
        params: &[String],
        qual: &str,
    ) -> Built {
        Built {
            fid,
            cls,
            class,
            params: params.to_vec(),
            qual: qual.to_string(),
            count: 0,
        }
    }

    fn passed<'t>(&mut self, a: &mut crate::lower::Analyzer<'t>, arg: Node<'t>) -> Option<Passed> {
        let src = a.src();
        match arg.kind_name() {
            "identifier" => {
                if let Some(i) = self.params.iter().position(|p| p == text(arg, src)) {
                    return Some(Passed::Param(i));
                }
            }
            "none" => return Some(Passed::Null),
            // `QUEUE.format(namespace=namespace, agent=agent) if agent else None`:
            // the key when there is one (a `None` key is never sent).
            "conditional_expression" => {
                let kids: Vec<Node<'t>> = a.ix.nav.named_children(arg).collect();
                if let [then, _cond, other] = kids.as_slice() {
                    match (then.kind_name(), other.kind_name()) {
                        ("none", "none") => return Some(Passed::Null),
                        (_, "none") => return self.built(a, *then),
                        ("none", _) => return self.built(a, *other),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        self.built(a, arg)
    }

    /// A string the method builds from its parameters alone, each bound to its
    /// marker.
    fn built<'t>(&mut self, a: &mut crate::lower::Analyzer<'t>, e: Node<'t>) -> Option<Passed> {
        self.count += 1;
        if self.count > MAX_BUILT {
            return None;
        }
        let mut params = std::collections::HashMap::new();
        if let Some(cls) = &self.cls {
            params.insert(cls.clone(), Value::ClsObj(self.class));
        }
        for (i, p) in self.params.iter().enumerate() {
            params.insert(p.clone(), crate::project::placeholder('p', i, p));
        }
        let ctx = Ctx {
            func: Some(self.fid),
            env: Some(Rc::new(crate::eval::Env {
                func: self.fid,
                params,
                tag: "alt".to_string(),
            })),
            depth: 1,
        };
        match a.eval(e, &ctx) {
            Value::Str(t) if only_markers(&t) => Some(Passed::Built(crate::project::sanitize(
                &t, &self.qual, false,
            ))),
            _ => None,
        }
    }
}

/// Whether every hole of `t` is a parameter's marker: the string is built from the
/// parameters and literal text alone.
fn only_markers(t: &crate::tpl::Tpl) -> bool {
    t.parts.iter().all(|p| match p {
        crate::tpl::TPart::Lit { .. } => true,
        crate::tpl::TPart::Hole(h) => h.binding.starts_with("\u{1}p"),
    })
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The object a pass-through constructor (`RemakeHow::Pass`) makes of `class`
    /// for this call: the call's arguments bound to the method's parameters, passed
    /// on to the constructor's, whose others take their defaults.
    fn passed_on(
        &mut self,
        class: std::sync::Arc<crate::project::ClassFacts>,
        how: &RemakeHow,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let RemakeHow::Pass {
            params: fparams,
            pos,
            kw,
        } = how
        else {
            return None;
        };
        let ps: Vec<crate::project::Param> = fparams
            .iter()
            .map(|(n, d)| crate::project::Param::named(n, *d))
            .collect();
        let bound = self.bind_params(&ps, args, ctx)?;
        let given = bound.args();
        let ctor_params = Instance::ctor_params(&class)?.to_vec();
        let mut ctor = Vec::with_capacity(ctor_params.len());
        for (j, p) in ctor_params.iter().enumerate() {
            let from = pos
                .get(j)
                .or_else(|| kw.iter().find(|(k, _)| k == p.name()).map(|(_, x)| x));
            let t = match from {
                Some(Passed::Param(i)) => given.get(*i)?.clone(),
                Some(Passed::Built(t)) => {
                    let t = crate::project::apply_bound(t, &bound, None)?;
                    let id = crate::eval::fingerprint(&Value::Str(t.clone()));
                    (t, id)
                }
                // A field left `None`: no key of it is ever sent.
                Some(Passed::Null) => {
                    let t = crate::tpl::Tpl::hole(crate::tpl::HoleInfo {
                        label: p.name().to_string(),
                        binding: format!("none:{}", p.name()),
                        span: None,
                        keylike: false,
                    });
                    let id = crate::eval::fingerprint(&Value::Str(t.clone()));
                    (t, id)
                }
                // The default, as a call that leaves the argument out binds it.
                None => {
                    let t = p.left_out()?;
                    let id = crate::eval::fingerprint(&Value::Str(t.clone()));
                    (t, id)
                }
            };
            ctor.push(t);
        }
        // Every keyword the call of the class passes names a parameter.
        if kw
            .iter()
            .any(|(k, _)| !ctor_params.iter().any(|p| p.name() == k))
            || pos.len() > ctor_params.len()
        {
            return None;
        }
        Some(Value::Ext(Rc::new(Instance::made(class, ctor)?)))
    }

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
        if let RemakeHow::Pass { .. } = &r.how {
            let class = r.class_of(inst)?;
            return self.passed_on(class, &r.how, args, ctx);
        }
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
            RemakeHow::Pass { .. } => return None,
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
