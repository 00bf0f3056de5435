//! `SORT`'s `BY` and `GET` patterns (`r.sort(key, by="weight_*", get=["#",
//! "obj:*->name"])`), reported to the model for `sort-pattern`.
//!
//! A pattern is not a key: the server substitutes each element for its `*` and reads
//! the keys it forms, which a cluster node allows only inside the sorted key's slot.
//! The method table names the parameters that carry patterns; each pattern whose text
//! the code shows (a literal, an f-string, a followed builder) is reported with the
//! sorted key. A list or tuple of `GET` patterns gives one pattern per element.

use crate::eval::{Elem, Value};
use crate::methods::{Method, ParamKind};
use keylint_core::model::{SortOption, SortPattern};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// The patterns of a call of `method` (`sort`, `sort_ro`), if it takes any.
    pub(crate) fn sort_patterns(
        &mut self,
        method: &Method,
        call: Node<'t>,
        pos: &[Elem<'t>],
        kw: &[(String, Elem<'t>)],
    ) {
        if !method
            .params
            .iter()
            .any(|p| matches!(p.kind, ParamKind::Pattern | ParamKind::Patterns))
        {
            return;
        }
        let arg = |p: &crate::methods::Param| crate::lower::table_arg(pos, kw, p);
        let sorted_arg = method
            .params
            .iter()
            .find(|p| p.kind == ParamKind::Key && p.index == 0)
            .and_then(arg)
            .filter(|e| !e.star);
        let sorted_at = sorted_arg.as_ref().map(|e| e.node.byte_range());
        let sorted = sorted_arg.and_then(|e| match &e.value {
            Value::Str(t) if e.each.is_empty() => Some(t.to_key_template(&e.node.byte_range())),
            _ => None,
        });
        for p in &method.params {
            let option = match p.kind {
                ParamKind::Pattern => SortOption::By,
                ParamKind::Patterns => SortOption::Get,
                _ => continue,
            };
            let Some(e) = arg(p) else {
                continue;
            };
            let items = match (&e.value, p.kind) {
                (Value::Seq { items, .. }, ParamKind::Patterns) => items.clone(),
                (Value::Str(_), _) => vec![e.clone()],
                _ => continue,
            };
            for item in items {
                // An element of a comprehension stands for many patterns, all of this
                // template: a verdict on the template holds for each. A `*x` is unknown.
                if item.star {
                    continue;
                }
                let Value::Str(t) = &item.value else {
                    continue;
                };
                let at = item.node.byte_range();
                self.model.sort_patterns.push(SortPattern {
                    command: method.command.clone(),
                    span: call.byte_range(),
                    sorted: sorted.clone(),
                    sorted_at: sorted_at.clone(),
                    option,
                    pattern: t.to_key_template(&at),
                    at,
                    in_script: false,
                });
            }
        }
    }
}
