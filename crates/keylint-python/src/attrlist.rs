//! An attribute that holds a collection of keys filled in place: `self.queues = []`
//! in the constructor, then `self.queues.append(PREFIX + name)` in a loop over the
//! names. Read in another method (`for q in self.queues:`, `r.mget(*self.queues)`,
//! `streams={q: ">" for q in self.queues}`), it is the family those appends make.
//!
//! Followed only when the attribute is assigned once in the file's classes, that
//! assignment is an empty list or set, every `self.<attr>` that changes it appends,
//! extends or adds members of one family varying with a loop (or fixed keys beside
//! them, which are left out: a collection holds at least the family's members), or
//! removes some, and every other use of the attribute reads it (iterates it, passes
//! it to a call, tests it). An attribute of that name that another object changes
//! (`w.queues.append(…)`) leaves it unknown.

use crate::collections::marked_loops;
use crate::eval::{arg_nodes, Ctx, Elem, Value};
use crate::index::{text, ClassId, FuncId, SelfAssign};
use crate::syntax::{Field, NodeExt};
use crate::tpl::Tpl;
use tree_sitter::Node;

/// Attribute nodes of one name looked at in a file, at most.
const MAX_USES: usize = 256;

impl<'t> crate::lower::Analyzer<'t> {
    /// The family the attribute `attr` holds when its one assignment `assign` is an
    /// empty collection filled in place (see the module's doc).
    pub(crate) fn attr_collection(
        &mut self,
        c: ClassId,
        attr: &str,
        assign: &SelfAssign<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let v = assign.value?;
        if !is_empty_collection(self.ix.nav, self.src(), v) {
            return None;
        }
        let added = self.attr_additions(c, attr)?;
        let mut member: Option<(Tpl, Node<'t>)> = None;
        for (a, f) in added {
            let actx = Ctx {
                func: Some(f),
                env: None,
                depth: ctx.depth + 1,
            };
            let t = match self.eval(a, &actx) {
                Value::Str(t) if !marked_loops(&t).is_empty() => t,
                // A fixed key beside the family: left out.
                Value::Str(_) => continue,
                Value::Seq {
                    items,
                    family: true,
                } => match items.as_slice() {
                    [Elem {
                        value: Value::Str(t),
                        ..
                    }] if !marked_loops(t).is_empty() => t.clone(),
                    _ => return None,
                },
                _ => return None,
            };
            match &member {
                Some((m, _)) if *m != t => return None,
                Some(_) => {}
                None => member = Some((t, a)),
            }
        }
        let (t, node) = member?;
        let each = marked_loops(&t);
        Some(Value::family(Value::Str(t), node, each))
    }

    /// What the methods of class `c`, its bases and its subclasses add to
    /// `self.<attr>` (each with its function), or `None` when a use of an attribute
    /// of that name may change it otherwise.
    fn attr_additions(&self, c: ClassId, attr: &str) -> Option<Vec<(Node<'t>, FuncId)>> {
        let nav = self.ix.nav;
        let src = self.src();
        let mut added = Vec::new();
        for x in self.attr_uses(attr)? {
            let obj = x.field(Field::Object)?;
            let on_self = obj.kind_name() == "identifier" && text(obj, src) == "self";
            // `self.<attr>` of an unrelated class of the file is another attribute.
            let f = self.ix.enclosing_func(x);
            if on_self && !f.is_some_and(|f| self.related_method(f, c)) {
                continue;
            }
            match use_of(nav, src, x)? {
                Use::Read | Use::Shrink => {}
                Use::Assign => {
                    // The one assignment, or another that the index counts.
                    if !on_self {
                        return None;
                    }
                }
                Use::Add(a) => {
                    if !on_self {
                        return None;
                    }
                    added.push((a, f?));
                }
            }
        }
        Some(added)
    }

    /// The attribute nodes of the file named `attr` (`x.<attr>` on any object), or
    /// `None` when there are more than [`MAX_USES`] of them to look at.
    pub(crate) fn attr_uses(&self, attr: &str) -> Option<Vec<Node<'t>>> {
        let nav = self.ix.nav;
        let src = self.src();
        let mut uses = Vec::new();
        let mut stack = vec![nav.root()];
        while let Some(x) = stack.pop() {
            stack.extend(nav.children(x));
            if x.kind_name() == "attribute"
                && x.field(Field::Attribute).map(|a| text(a, src)) == Some(attr)
            {
                if uses.len() == MAX_USES {
                    return None;
                }
                uses.push(x);
            }
        }
        Some(uses)
    }

    /// Whether `f` (or the method it is nested in) is a method of `c`, of a base of
    /// `c` or of a subclass of `c`.
    fn related_method(&self, f: FuncId, c: ClassId) -> bool {
        let mut cur = Some(f);
        let mut depth = 0;
        while let Some(g) = cur {
            if let Some(k) = self.ix.funcs[g].class {
                return k == c
                    || self.ix.class_chain(k).contains(&c)
                    || self.ix.class_chain(c).contains(&k);
            }
            depth += 1;
            if depth > 16 {
                break;
            }
            cur = self.ix.funcs[g].parent;
        }
        false
    }
}

/// How one `<obj>.<attr>` is used.
enum Use<'t> {
    Read,
    Shrink,
    Assign,
    Add(Node<'t>),
}

/// `None` when the use may change the collection in a way not followed.
fn use_of<'t>(nav: &crate::syntax::Nav<'t>, src: &str, x: Node<'t>) -> Option<Use<'t>> {
    let parent = nav.parent(x)?;
    match parent.kind_name() {
        "attribute" if parent.field(Field::Object) == Some(x) => {
            let m = parent.field(Field::Attribute).map(|a| text(a, src))?;
            let call = nav
                .parent(parent)
                .filter(|c| c.kind_name() == "call" && c.field(Field::Function) == Some(parent));
            let Some(call) = call else {
                // `self.queues.attr` read, not called.
                return Some(Use::Read);
            };
            let args = call.field(Field::Arguments)?;
            match m {
                "append" | "add" | "extend" if args.kind_name() == "generator_expression" => {
                    (m == "extend").then_some(Use::Add(args))
                }
                "append" | "add" | "extend" => match arg_nodes(nav, Some(args)).as_slice() {
                    [a] if a.kind_name() != "keyword_argument" => Some(Use::Add(*a)),
                    _ => None,
                },
                "remove" | "discard" | "pop" | "clear" => Some(Use::Shrink),
                "copy" | "count" | "index" | "issubset" | "issuperset" | "union"
                | "intersection" | "difference" => Some(Use::Read),
                _ => None,
            }
        }
        "assignment" if parent.field(Field::Left) == Some(x) => Some(Use::Assign),
        // `self.queues = other`, `self.queues += xs`, `del self.queues`, an alias
        // (`qs = self.queues`) that could be changed, or a return that hands it out.
        "assignment"
        | "augmented_assignment"
        | "delete_statement"
        | "return_statement"
        | "pattern_list"
        | "tuple_pattern"
        | "yield"
        | "lambda" => None,
        "subscript" if parent.field(Field::Value) == Some(x) => {
            let gp = nav.parent(parent)?;
            let written = match gp.kind_name() {
                "assignment" | "augmented_assignment" => gp.field(Field::Left) == Some(parent),
                "delete_statement" => true,
                _ => false,
            };
            (!written).then_some(Use::Read)
        }
        "for_statement" | "for_in_clause" if parent.field(Field::Right) == Some(x) => {
            Some(Use::Read)
        }
        "argument_list"
        | "list_splat"
        | "keyword_argument"
        | "if_statement"
        | "elif_clause"
        | "while_statement"
        | "not_operator"
        | "boolean_operator"
        | "comparison_operator"
        | "binary_operator"
        | "interpolation"
        | "parenthesized_expression"
        | "conditional_expression" => Some(Use::Read),
        _ => None,
    }
}

/// `[]`, `set()` or `list()`.
fn is_empty_collection(nav: &crate::syntax::Nav<'_>, src: &str, v: Node<'_>) -> bool {
    match v.kind_name() {
        "list" => nav.named_children(v).all(|c| c.kind_name() == "comment"),
        "call" => {
            let callee = v.field(Field::Function);
            callee.is_some_and(|c| matches!(text(c, src), "set" | "list"))
                && v.field(Field::Arguments)
                    .is_some_and(|a| nav.named_children(a).next().is_none())
        }
        _ => false,
    }
}
