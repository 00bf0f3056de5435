//! Objects known by an `isinstance` test: a parameter `other` read where the code has
//! checked `isinstance(other, Cls)` (or `isinstance(other, self.__class__)`,
//! `type(self)`) is an instance of that class of the file there.
//!
//! The test must hold where the object is read: the read is in the body of an `if`
//! (or `elif`) whose condition is the test or an `and` of it, in the first arm of
//! `x if test else y`, after `test and` in one expression, or after an
//! `if not test: return` (or `raise`, `continue`) at the top of an enclosing block.
//! A test under `or`, a negated test read in its arm, or a class that is neither
//! defined in the file nor imported from a module of the project says nothing.
//!
//! A class imported from another module of the project is known by its facts
//! (`project.rs`), and so is a guard helper a base class of another module defines
//! (`self._same_kind(other, Base)` where `_same_kind` is a method of `Base`): the
//! facts keep which parameter it tests and where the class it names comes from.

use crate::index::{text, ClassId, FuncId};
use crate::project::ClassFacts;
use crate::syntax::{Field, NodeExt};
use std::sync::Arc;
use tree_sitter::Node;

/// The class a test proves an object to be of.
#[derive(Clone)]
pub(crate) enum Tested {
    /// A class of this file.
    Local(ClassId),
    /// A class of another module of the project.
    Ext(Arc<ClassFacts>),
}

impl Tested {
    /// The class of this file, if it is one.
    pub(crate) fn local(self) -> Option<ClassId> {
        match self {
            Tested::Local(c) => Some(c),
            Tested::Ext(_) => None,
        }
    }
}

/// Where the class a guard helper's `isinstance` names comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GuardOf {
    /// `self.__class__`, `type(self)`: the caller's class.
    SelfClass,
    /// A parameter (index after `self`) the call fills with a class; with
    /// `p = p or self.__class__` before the test, the caller's class when left out.
    Param { index: usize, self_fallback: bool },
    /// A name of the helper's module (only for helpers of the same file).
    Named(String),
}

/// A method that returns `False` unless its parameter `param` (index after `self`)
/// is an instance of the class `of` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GuardFact {
    pub param: usize,
    pub of: GuardOf,
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The class that an `isinstance` test of `name` proves where `at` is read, in
    /// function `f`.
    pub(crate) fn isinstance_guard(&self, at: Node<'t>, name: &str, f: FuncId) -> Option<Tested> {
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
    ) -> Option<Tested> {
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
    fn tested_class(&self, cond: Node<'t>, name: &str, f: FuncId, negated: bool) -> Option<Tested> {
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
            "call" if !negated => self
                .isinstance_call(cond, name, f)
                .or_else(|| self.guard_helper_call(cond, name, f)),
            _ => None,
        }
    }

    /// `self.is_same_kind(name, …)`: a method of the class that returns `False`
    /// unless its parameter is an instance of a class (its body is `return test`,
    /// or begins with `if not test: return False`, after assignments such as
    /// `cls = cls or self.__class__`). The class is the one the test names: a class
    /// of the file, `self.__class__` (the caller's class), or a parameter of the
    /// method with that fallback, which the call fills with a class of the file or
    /// of another module, or leaves out. A method of a base class of another module
    /// is read from that base's facts.
    fn guard_helper_call(&self, call: Node<'t>, name: &str, f: FuncId) -> Option<Tested> {
        let callee = call.field(Field::Function)?;
        if callee.kind_name() != "attribute" {
            return None;
        }
        let obj = callee.field(Field::Object)?;
        let caller_class = self.ix.method_class(f)?;
        let self_name = {
            let mut cur = Some(f);
            let mut found = None;
            while let Some(id) = cur {
                let info = &self.ix.funcs[id];
                if info.class.is_some() {
                    found = info.self_name();
                    break;
                }
                cur = info.parent;
            }
            found?
        };
        if obj.kind_name() != "identifier" || text(obj, self.src()) != self_name {
            return None;
        }
        let m = text(callee.field(Field::Attribute)?, self.src());
        let fact = match self
            .ix
            .class_chain(caller_class)
            .iter()
            .find_map(|&k| self.ix.classes[k].methods.get(m).copied())
        {
            Some(helper) => self.guard_fact(helper)?,
            None => self.imported_guard(caller_class, m)?,
        };
        let args: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(call.field(Field::Arguments)?)
            .filter(|k| k.kind_name() != "comment")
            .collect();
        // The caller's own class, passed as `self.__class__` or `type(self)`.
        let own_class = |a: Node<'t>| {
            let w = text(a, self.src()).replace(' ', "");
            w == format!("{self_name}.__class__") || w == format!("type({self_name})")
        };
        if args
            .iter()
            .any(|a| a.kind_name() != "identifier" && !own_class(*a))
        {
            return None;
        }
        let at = args.iter().position(|a| text(*a, self.src()) == name)?;
        if at != fact.param {
            return None;
        }
        match fact.of {
            GuardOf::SelfClass => Some(Tested::Local(caller_class)),
            GuardOf::Named(w) => self.ix.class_named(&w).map(Tested::Local),
            GuardOf::Param {
                index,
                self_fallback,
            } => match args.get(index) {
                Some(a) if own_class(*a) => Some(Tested::Local(caller_class)),
                Some(a) => self.class_written(text(*a, self.src())),
                None if self_fallback => Some(Tested::Local(caller_class)),
                None => None,
            },
        }
    }

    /// The guard helper method `helper` is, if it is one: which parameter it tests
    /// and where the class comes from.
    pub(crate) fn guard_fact(&self, helper: FuncId) -> Option<GuardFact> {
        let info = &self.ix.funcs[helper];
        if !info.plainly_called() || info.is_classmethod() || info.params.iter().any(|p| p.star) {
            return None;
        }
        let self_name = info.self_name()?;
        let stmts = self.ix.nav.statements(info.body);
        let mut fallback_self: Vec<String> = Vec::new();
        let of = |written: Node<'t>, param: &str, fallback_self: &[String]| {
            let w = text(written, self.src());
            if w == format!("{self_name}.__class__") || w == format!("type({self_name})") {
                return Some(GuardOf::SelfClass);
            }
            if written.kind_name() != "identifier" || w == param {
                return None;
            }
            match info.params.iter().skip(1).position(|p| p.name == w) {
                Some(index) => Some(GuardOf::Param {
                    index,
                    self_fallback: fallback_self.iter().any(|n| n == w),
                }),
                None => (!info.defs.contains_key(w)).then(|| GuardOf::Named(w.to_string())),
            }
        };
        for s in &stmts {
            match s.kind_name() {
                "return_statement" | "if_statement" => {
                    let test = if s.kind_name() == "return_statement" {
                        s.named_child(0)?
                    } else {
                        let returns_false = s
                            .field(Field::Consequence)
                            .map(|b| self.ix.nav.statements(b))
                            .is_some_and(|b| {
                                matches!(b.as_slice(), [r] if r.kind_name() == "return_statement"
                                    && r.named_child(0).is_some_and(|v| text(v, self.src()) == "False"))
                            });
                        let arms = self
                            .ix
                            .nav
                            .named_children(*s)
                            .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"));
                        let cond = s.field(Field::Condition)?;
                        if !returns_false || arms || cond.kind_name() != "not_operator" {
                            return None;
                        }
                        cond.named_child(0)?
                    };
                    // `isinstance(p, X)` with `p` a parameter after `self`.
                    let (p, written) = self.tested_written(test)?;
                    let param = info.params.iter().skip(1).position(|q| q.name == p)?;
                    let of = of(written, p, &fallback_self)?;
                    return Some(GuardFact { param, of });
                }
                "expression_statement" => {
                    // `cls = cls or self.__class__`
                    let a = s.named_child(0)?;
                    if a.kind_name() != "assignment" {
                        return None;
                    }
                    let (l, r) = (a.field(Field::Left)?, a.field(Field::Right)?);
                    let t = text(r, self.src()).replace(' ', "");
                    let lhs = text(l, self.src());
                    if l.kind_name() != "identifier" || t != format!("{lhs}or{self_name}.__class__")
                    {
                        return None;
                    }
                    fallback_self.push(lhs.to_string());
                }
                _ => return None,
            }
        }
        None
    }

    /// The object and the class argument of `isinstance(p, X)` as written, `test`
    /// being that call alone and `p` a name.
    fn tested_written(&self, test: Node<'t>) -> Option<(&'t str, Node<'t>)> {
        if test.kind_name() != "call"
            || text(test.field(Field::Function)?, self.src()) != "isinstance"
            || self.ix.module_defs.contains_key("isinstance")
        {
            return None;
        }
        let args: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(test.field(Field::Arguments)?)
            .collect();
        match args.as_slice() {
            [o, c] if o.kind_name() == "identifier" => Some((text(*o, self.src()), *c)),
            _ => None,
        }
    }

    /// The class a name of this file stands for: one it defines, or one it imports
    /// from another module of the project (not a client class).
    fn class_written(&self, w: &str) -> Option<Tested> {
        if let Some(c) = self.ix.class_named(w) {
            return Some(Tested::Local(c));
        }
        let path = self.ix.imports.get(w)?;
        match self.project?.lookup(path)? {
            crate::project::Fact::Class(c) if c.is_plain() => Some(Tested::Ext(c)),
            _ => None,
        }
    }

    /// `isinstance(name, Cls)` with `Cls` a class of the file or one imported from
    /// another module of the project, or `isinstance(name, self.__class__)` /
    /// `type(self)` in a method of one.
    fn isinstance_call(&self, call: Node<'t>, name: &str, f: FuncId) -> Option<Tested> {
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
            return self.ix.method_class(f).map(Tested::Local);
        }
        if cls.kind_name() != "identifier" {
            return None;
        }
        self.class_written(written)
    }
}
