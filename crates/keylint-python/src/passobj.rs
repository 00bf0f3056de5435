//! Objects made once per pass of a loop: `for key in keys: ex = Execution.from_key(key)`.
//!
//! A call whose return annotation names a class of the project makes an object known
//! by its type, identified by the call's text. Written inside a loop with an argument
//! that changes each pass (the loop variable, a value derived from it), the call makes
//! another object each pass: its identity carries the loops its arguments vary with,
//! so the keys read from the object vary with them too, as a key built from the loop
//! variable does.

use crate::eval::{each_marker, Ctx, Elem, Value};
use crate::index::text;
use crate::lower::Analyzer;
use crate::syntax::{Field, NodeExt};
use crate::tpl::Tpl;
use tree_sitter::Node;

impl<'t> Analyzer<'t> {
    /// The markers of the loops the arguments `args` of a call vary with, in the
    /// order first met (empty when none does). Only a call written inside a loop of
    /// its function is read: the arguments of any other call are left unevaluated
    /// here, as before.
    pub(crate) fn args_loop_marks(&mut self, args: Option<Node<'t>>, ctx: &Ctx<'t>) -> String {
        if !args.is_some_and(|a| self.inside_loop(a)) {
            return String::new();
        }
        let (pos, kw) = self.call_args(args, ctx);
        let mut loops: Vec<usize> = Vec::new();
        for v in pos
            .iter()
            .map(|e| &e.value)
            .chain(kw.iter().map(|(_, e)| &e.value))
        {
            let t = match v {
                Value::Str(t) => t.clone(),
                Value::Opaque(h) => Tpl::hole(h.clone()),
                _ => continue,
            };
            for id in crate::collections::marked_loops(&t) {
                if !loops.contains(&id) {
                    loops.push(id);
                }
            }
        }
        loops.into_iter().map(each_marker).collect()
    }

    /// Whether `n` is inside a loop or a comprehension of the function around it.
    fn inside_loop(&self, n: Node<'t>) -> bool {
        let mut cur = self.ix.nav.parent(n);
        while let Some(p) = cur {
            match p.kind_name() {
                "for_statement"
                | "while_statement"
                | "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression" => return true,
                "function_definition" | "lambda" | "class_definition" | "module" => return false,
                _ => {}
            }
            cur = self.ix.nav.parent(p);
        }
        false
    }

    /// `for ex in executions:` over a comprehension of objects of a project class
    /// (`[Execution.from_key(k) for k in ks]`): one object per pass.
    pub(crate) fn object_loop_var(
        &mut self,
        name: &str,
        stmt: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let left = stmt.field(Field::Left)?;
        if left.kind_name() != "identifier" || text(left, self.src()) != name {
            return None;
        }
        let right = stmt.field(Field::Right)?;
        let Value::Seq {
            items,
            family: true,
        } = self.eval(right, &ctx.deeper())
        else {
            return None;
        };
        let [Elem {
            value: Value::Ext(x),
            each,
            ..
        }] = items.as_slice()
        else {
            return None;
        };
        // Only objects that change with the comprehension: `[X.make(k) for _ in
        // range(n)]` makes the same object each time.
        if !each.iter().any(|&c| x.ident().contains(&each_marker(c))) {
            return None;
        }
        let ident = format!("{}{}", x.ident(), each_marker(stmt.start_byte()));
        Some(Value::Ext(x.retyped(name, ident)))
    }
}
