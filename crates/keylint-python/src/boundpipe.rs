//! A client's bound `pipeline` method kept on `self` and called later:
//! `self._pipe = self._redis.pipeline` in the constructor (or any one method of the
//! class), then `pipe = self._pipe()` in another method. The call is read as
//! `self._redis.pipeline()` written there: a pipeline of that client, of the kind the
//! call's own arguments decide (`self._pipe(transaction=False)` is not a transaction).
//!
//! Only one assignment of the attribute per class is read. A subclass of this file
//! that assigns it again is one more candidate: every candidate must be the bound
//! `pipeline` of a Redis client (whichever object `self` is, the call makes a pipeline
//! of a client). A class that also defines a method or class attribute of that name,
//! a subclass of another module that defines it, or an object that is not known to
//! be a Redis client (the `pipeline` of another library) leaves the call unknown.

use crate::eval::{ClientKind, Ctx, Value};
use crate::index::{text, ClassId, FuncId};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// `self.m(…)` (the call `n`, its function `func`) where every assignment of
    /// `self.m` that `self` may hold is `<client>.pipeline`: the pipeline that call
    /// makes.
    pub(crate) fn bound_pipeline_call(
        &mut self,
        c: ClassId,
        m: &str,
        func: Node<'t>,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if ctx.depth > 8 || self.defines(c, m).is_some() || self.overridden_elsewhere(c, m) {
            return None;
        }
        // The class that assigns `self.m` for `c`, and the subclasses of this file
        // that assign it their own way.
        let chain = self.ix.class_chain(c);
        let first = *chain
            .iter()
            .find(|&&k| self.ix.classes[k].self_assigns.contains_key(m))?;
        let mut owners = vec![first];
        for k in 0..self.ix.classes.len() {
            if k == c || !self.ix.class_chain(k).contains(&c) {
                continue;
            }
            let cls = &self.ix.classes[k];
            if cls.defs.contains_key(m) || cls.methods.contains_key(m) {
                return None;
            }
            if cls.self_assigns.contains_key(m) {
                owners.push(k);
            }
        }
        if chain
            .iter()
            .any(|&k| self.ix.classes[k].defs.contains_key(m))
        {
            return None;
        }
        let mut kind: Option<ClientKind> = None;
        for k in owners {
            let written = self.bound_pipeline_client(k, m, ctx)?;
            kind = Some(match kind {
                Some(prev) if prev != written => ClientKind::Unknown,
                _ => written,
            });
        }
        Some(self.client_method(kind?, "pipeline", func, args, n, ctx))
    }

    /// The client whose `pipeline` the one assignment of `self.m` in class `k` binds.
    fn bound_pipeline_client(&mut self, k: ClassId, m: &str, ctx: &Ctx<'t>) -> Option<ClientKind> {
        let assigns = self.ix.classes[k].self_assigns.get(m).cloned()?;
        let [a] = assigns.as_slice() else { return None };
        if a.annotation.is_some() {
            return None;
        }
        let v = a.value?;
        if v.kind_name() != "attribute"
            || text(v.field(Field::Attribute)?, self.src()) != "pipeline"
        {
            return None;
        }
        let obj = v.field(Field::Object)?;
        let actx = Ctx {
            func: Some(a.func),
            env: None,
            depth: ctx.depth + 1,
        };
        let recv = self.eval(obj, &actx);
        if let Value::Client(w) = self.as_receiver(recv, obj) {
            return Some(w);
        }
        // `self._redis.pipeline` where `self._redis` is assigned only in that same
        // method: `self._redis` as the other methods of the class read it (a client
        // the class shows by its use), the object the bound method was taken from.
        let attr = self.self_attr_set_only_in(k, obj, a.func)?;
        let recv = self.instance_attr(k, attr, obj, &actx, true);
        match self.as_receiver(recv, obj) {
            Value::Client(w) => Some(w),
            _ => None,
        }
    }

    /// The name `y` when `obj` is `self.y` and every assignment of `self.y` in class
    /// `c` and its bases of this file is in function `f`, and no subclass of this
    /// file defines it.
    fn self_attr_set_only_in(&self, c: ClassId, obj: Node<'t>, f: FuncId) -> Option<&'t str> {
        if obj.kind_name() != "attribute" {
            return None;
        }
        let owner = obj.field(Field::Object)?;
        let attr: &'t str = text(obj.field(Field::Attribute)?, self.src());
        if owner.kind_name() != "identifier"
            || self.ix.funcs[f].self_name() != Some(text(owner, self.src()))
        {
            return None;
        }
        let chain = self.ix.class_chain(c);
        let assigns = chain
            .iter()
            .find_map(|&k| self.ix.classes[k].self_assigns.get(attr))?;
        (!assigns.is_empty()
            && assigns.iter().all(|x| x.func == f)
            && !self.overridden_below(c, attr))
        .then_some(attr)
    }
}
