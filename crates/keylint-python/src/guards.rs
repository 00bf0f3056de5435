//! Objects known by an `isinstance` test: a parameter `other` read where the code has
//! checked `isinstance(other, Cls)` (or `isinstance(other, self.__class__)`,
//! `type(self)`) is an instance of that class of the file there.
//!
//! The test must hold where the object is read: the read is in the body of an `if`
//! (or `elif`) whose condition is the test or an `and` of it, in the first arm of
//! `x if test else y`, after `test and` in one expression, or after an
//! `if not test: return` (or `raise`, `continue`) at the top of an enclosing block.
//! A test under `or`, a negated test read in its arm, or a class the file does not
//! define says nothing.

use crate::index::{text, ClassId, FuncId};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// The class of the file that an `isinstance` test of `name` proves where `at`
    /// is read, in function `f`.
    pub(crate) fn isinstance_guard(&self, at: Node<'t>, name: &str, f: FuncId) -> Option<ClassId> {
        let nav = self.ix.nav;
        let top = self.ix.funcs[f].node;
        let mut child = at;
        let mut cur = nav.parent(at);
        while let Some(p) = cur {
            if p.id() == top.id() {
                return None;
            }
            let found = match p.kind_name() {
                "if_statement" | "elif_clause" => {
                    let in_arm = p
                        .field(Field::Consequence)
                        .is_some_and(|c| c.id() == child.id());
                    if in_arm {
                        p.field(Field::Condition)
                            .and_then(|c| self.tested_class(c, name, f, false))
                    } else {
                        None
                    }
                }
                "conditional_expression" => {
                    let kids: Vec<Node<'t>> = nav
                        .named_children(p)
                        .filter(|k| k.kind_name() != "comment")
                        .collect();
                    match kids.as_slice() {
                        [x, cond, _] if x.id() == child.id() => {
                            self.tested_class(*cond, name, f, false)
                        }
                        _ => None,
                    }
                }
                "boolean_operator" => {
                    let and = p
                        .field(Field::Operator)
                        .is_some_and(|o| text(o, self.src()) == "and");
                    let right = p.field(Field::Right).is_some_and(|r| r.id() == child.id());
                    if and && right {
                        p.field(Field::Left)
                            .and_then(|l| self.tested_class(l, name, f, false))
                    } else {
                        None
                    }
                }
                "block" | "module" => self.guarded_before(p, child, name, f),
                _ => None,
            };
            if found.is_some() {
                return found;
            }
            child = p;
            cur = nav.parent(p);
        }
        None
    }

    /// An `if not isinstance(name, Cls): return …` among the statements of `block`
    /// before `stmt`, with no `else`: past it, `name` is an instance of `Cls`.
    fn guarded_before(
        &self,
        block: Node<'t>,
        stmt: Node<'t>,
        name: &str,
        f: FuncId,
    ) -> Option<ClassId> {
        let nav = self.ix.nav;
        for s in nav.statements(block) {
            if s.id() == stmt.id() {
                return None;
            }
            if s.kind_name() != "if_statement" {
                continue;
            }
            let arms = nav
                .named_children(s)
                .filter(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
                .count();
            if arms != 0 {
                continue;
            }
            let leaves = s
                .field(Field::Consequence)
                .and_then(|b| nav.statements(b).last().copied())
                .is_some_and(|last| {
                    matches!(
                        last.kind_name(),
                        "return_statement" | "raise_statement" | "continue_statement"
                    )
                });
            if !leaves {
                continue;
            }
            if let Some(c) = s
                .field(Field::Condition)
                .and_then(|c| self.tested_class(c, name, f, true))
            {
                return Some(c);
            }
        }
        None
    }

    /// The class `cond` proves `name` an instance of when it holds (`negated`: when
    /// it fails), an `and` of tests counting as each of them.
    fn tested_class(
        &self,
        cond: Node<'t>,
        name: &str,
        f: FuncId,
        negated: bool,
    ) -> Option<ClassId> {
        match cond.kind_name() {
            "parenthesized_expression" => {
                let inner = cond.named_child(0)?;
                self.tested_class(inner, name, f, negated)
            }
            "not_operator" => {
                let inner = cond.named_child(0)?;
                self.tested_class(inner, name, f, !negated)
            }
            "boolean_operator" if !negated => {
                if text(cond.field(Field::Operator)?, self.src()) != "and" {
                    return None;
                }
                self.tested_class(cond.field(Field::Left)?, name, f, false)
                    .or_else(|| self.tested_class(cond.field(Field::Right)?, name, f, false))
            }
            "call" if !negated => self.isinstance_call(cond, name, f),
            _ => None,
        }
    }

    /// `isinstance(name, Cls)` with `Cls` a class of the file, or
    /// `isinstance(name, self.__class__)` / `type(self)` in a method of one.
    fn isinstance_call(&self, call: Node<'t>, name: &str, f: FuncId) -> Option<ClassId> {
        let callee = call.field(Field::Function)?;
        if text(callee, self.src()) != "isinstance"
            || self.ix.module_defs.contains_key("isinstance")
        {
            return None;
        }
        let args: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(call.field(Field::Arguments)?)
            .collect();
        let [obj, cls] = args.as_slice() else {
            return None;
        };
        if obj.kind_name() != "identifier" || text(*obj, self.src()) != name {
            return None;
        }
        let written = text(*cls, self.src());
        if matches!(written, "self.__class__" | "type(self)") {
            return self.method_class(f);
        }
        if cls.kind_name() != "identifier" {
            return None;
        }
        self.ix.class_named(written)
    }

    /// The class whose method `f` is, or whose method `f` is nested in.
    fn method_class(&self, f: FuncId) -> Option<ClassId> {
        let mut cur = Some(f);
        while let Some(id) = cur {
            let info = &self.ix.funcs[id];
            if let Some(c) = info.class {
                return Some(c);
            }
            cur = info.parent;
        }
        None
    }
}
