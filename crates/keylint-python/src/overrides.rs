//! `self.m(pipe, key)` where subclasses of the file override `m`
//! (`_get_len(r, k)`: `r.llen(k)` in the list storage, `r.scard(k)` in the set
//! storage). Which method runs depends on the instance, so the call is followed only
//! when every candidate agrees on the keys: each is one statement, `[return]
//! [await] r.cmd(k, …)`, with `r` and `k` parameters at the same places in every
//! candidate and `cmd` a one-key command of its first argument. The key the caller
//! passes is then queued on its pipeline whichever method runs; the command is the
//! base's (the one the class of `self` defines). Candidates are the method `self`'s
//! class reaches and every override in a class of the file derived from it.

use crate::eval::{Ctx, Value};
use crate::index::{text, ClassId, FuncId};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// The method to follow for `self.m(…)` (`func`) when `m` is overridden below
    /// and every candidate queues the same key from the same parameters.
    pub(crate) fn agreeing_override(
        &mut self,
        func: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(FuncId, ClassId)> {
        if func.kind_name() != "attribute" {
            return None;
        }
        let obj = func.field(Field::Object)?;
        let m = text(func.field(Field::Attribute)?, self.src());
        if obj.kind_name() != "identifier" {
            return None;
        }
        let Value::SelfObj(c) = self.eval(obj, ctx) else {
            return None;
        };
        let base = self.defines(c, m)?;
        let ix = &self.ix;
        let mut candidates = vec![base];
        for k in 0..ix.classes.len() {
            if k != c && ix.class_chain(k).contains(&c) {
                if let Some(&f) = ix.classes[k].methods.get(m) {
                    if !candidates.contains(&f) {
                        candidates.push(f);
                    }
                }
            }
        }
        if candidates.len() < 2 {
            return None;
        }
        let mut shape = None;
        for f in candidates {
            let s = self.one_key_shape(f)?;
            if shape.is_some_and(|p| p != s) {
                return None;
            }
            shape = Some(s);
        }
        Some((base, c))
    }

    /// For a method whose body is one `[return] [await] r.cmd(k, …)`: whether it is
    /// static, and the places of `r` and `k` among its parameters (after `self`).
    fn one_key_shape(&self, f: FuncId) -> Option<(bool, usize, usize)> {
        let info = &self.ix.funcs[f];
        if info.is_lambda || !info.plainly_called() {
            return None;
        }
        let nav = self.ix.nav;
        let src = self.src();
        let stmts = nav.statements(info.body);
        let [stmt] = stmts.as_slice() else {
            return None;
        };
        if !matches!(
            stmt.kind_name(),
            "expression_statement" | "return_statement"
        ) {
            return None;
        }
        let e = crate::syntax::unawaited(stmt.named_child(0)?)?;
        if e.kind_name() != "call" {
            return None;
        }
        let callee = e.field(Field::Function)?;
        if callee.kind_name() != "attribute" {
            return None;
        }
        let recv = callee.field(Field::Object)?;
        let cmd = text(callee.field(Field::Attribute)?, src);
        if recv.kind_name() != "identifier" || crate::methods::single_key_command(cmd).is_none() {
            return None;
        }
        let first = nav
            .named_children(e.field(Field::Arguments)?)
            .find(|k| k.kind_name() != "comment")?;
        if first.kind_name() != "identifier" {
            return None;
        }
        let has_self = info.self_name().is_some();
        let params: Vec<&str> = info
            .params
            .iter()
            .skip(usize::from(has_self))
            .map(|p| p.name.as_str())
            .collect();
        let at = |name: &str| params.iter().position(|p| *p == name);
        let r = at(text(recv, src))?;
        let k = at(text(first, src))?;
        // Parameters assigned again are not what the caller passed.
        for name in [text(recv, src), text(first, src)] {
            if info.defs.get(name).is_some_and(|d| d.len() > 1) {
                return None;
            }
        }
        Some((has_self, r, k))
    }
}
