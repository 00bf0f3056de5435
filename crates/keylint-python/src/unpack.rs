//! A name bound by unpacking an assignment's value (`key, type_key =
//! Flags._build_keys(project_id)`): the element at the name's place in the tuple or
//! list the value evaluates to, when it evaluates to one with exactly as many
//! elements as there are targets (a key builder returning `key, f"{key}-type"`).
//!
//! A loop variable unpacked in the loop's body (`for pair in pairs: key, val =
//! pair`) gives each name one value per pass of the loop, as `for key, val in
//! pairs:` does.
//!
//! The literal form `a, b = x, y` is paired by the index already; this is the form
//! where the right side is any other expression. A starred target, a nested
//! pattern, a comprehension (one element standing for many) or a length that does
//! not match leaves the name unknown, as before.

use crate::eval::{Ctx, Value};
use crate::index::Def;
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// The value `def` binds when it is one target of an unpacking assignment whose
    /// value is a sequence of the same length; `None` otherwise.
    pub(crate) fn unpacked_value(&mut self, def: Def<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let stmt = def.stmt;
        if stmt.kind_name() == "with_item" {
            return self.entered_member(def, ctx);
        }
        if stmt.kind_name() != "assignment" {
            return None;
        }
        let left = stmt.field(Field::Left)?;
        if !matches!(
            left.kind_name(),
            "pattern_list" | "tuple_pattern" | "list_pattern"
        ) {
            return None;
        }
        let right = stmt.field(Field::Right)?;
        // Literal right sides are paired target by target where the index binds them.
        if matches!(right.kind_name(), "expression_list" | "tuple" | "list") {
            return None;
        }
        let targets: Vec<_> = self
            .ix
            .nav
            .named_children(left)
            .filter(|t| t.kind_name() != "comment")
            .collect();
        if targets.iter().any(|t| t.kind_name() != "identifier") {
            return None;
        }
        let at = targets.iter().position(|t| t.start_byte() == def.pos)?;
        let v = self.eval(right, &ctx.deeper());
        // `key, val = keyval` with `keyval` a loop variable (a tuple per pass): each
        // name is one value per pass of that loop, like `for key, val in pairs:`.
        if let Value::Opaque(h) = &v {
            if matches!(right.kind_name(), "identifier" | "subscript" | "call")
                && h.binding.contains("@each")
            {
                let label = crate::index::text(targets[at], self.src()).to_string();
                return Some(Value::Opaque(crate::tpl::HoleInfo {
                    keylike: crate::tpl::is_keylike_label(&label),
                    binding: format!("{}[{at}]", h.binding),
                    label,
                    span: Some(targets[at].byte_range()),
                }));
            }
        }
        let Value::Seq {
            items,
            family: false,
        } = v
        else {
            return None;
        };
        if items.len() != targets.len() || items.iter().any(|e| e.star || !e.each.is_empty()) {
            return None;
        }
        items.into_iter().nth(at).map(|e| e.value)
    }

    /// `with sync_redis() as (reader, writer)`: the client at the name's place in
    /// the tuple that entering the object gives (`cmobject.rs`).
    fn entered_member(&mut self, def: Def<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let item = def.stmt.field(Field::Value)?;
        if item.kind_name() != "as_pattern" {
            return None;
        }
        let expr = item.named_child(0)?;
        let alias = item.field(Field::Alias)?;
        let mut target = alias.named_child(0).unwrap_or(alias);
        if target.kind_name() == "parenthesized_expression" {
            target = target.named_child(0)?;
        }
        if !matches!(
            target.kind_name(),
            "tuple"
                | "pattern_list"
                | "tuple_pattern"
                | "list_pattern"
                | "list"
                | "expression_list"
        ) {
            return None;
        }
        let (at, count) = self.bound_place(target, def)?;
        let entered = self.entered_object(expr, ctx)?;
        entered.member(at, count).map(Value::Client)
    }

    /// The place of the name `def` binds among the plain names of an unpacking
    /// target, and their count.
    fn bound_place(&self, target: Node<'t>, def: Def<'t>) -> Option<(usize, usize)> {
        let name = self
            .ix
            .nav
            .named_children(target)
            .find(|t| t.start_byte() == def.pos)?;
        self.target_place(target, crate::index::text(name, self.src()))
    }
}
