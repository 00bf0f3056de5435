//! A loop over the members of an `Enum` class, reading each member's value:
//!
//! ```python
//! class MarketIndex(StrEnum):
//!     KOSPI = "KS11"
//!     KOSDAQ = "KQ11"
//!
//! keys = [m.value for m in MarketIndex]
//! r.mget(keys)
//! ```
//!
//! Iterating an `Enum` class gives its members in the order the body writes them
//! (an alias, a second name for a value already given, is skipped). When the body
//! gives every member a literal string, `m.value` of the loop's variable takes one
//! of those strings per pass, as a loop over a list of them does
//! (`Analyzer::listed_var_of`). Only `m.value` is read so: how `f"{m}"` formats a
//! member depends on the Python version and the class's mixins. The class may be of
//! this file or of another module (its fact keeps the values).

use crate::eval::{Ctx, Elem, Value};
use crate::index::{text, ClassId};
use crate::syntax::{Field, NodeExt};
use crate::tpl::Tpl;
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// The values of the members of `Enum` class `c` of this file, in order, when
    /// its body binds nothing but members to literal strings (methods, a docstring
    /// and `pass` aside). `None` for any other statement, a name starting with `_`,
    /// or a member whose value is not a literal string.
    pub(crate) fn enum_member_values(&mut self, c: ClassId) -> Option<Vec<Tpl>> {
        if !crate::eval::enum_bases(&self.ix.classes[c].bases) {
            return None;
        }
        let nav = self.ix.nav;
        let body = self.ix.classes[c].node.field(Field::Body)?;
        let mut out: Vec<Tpl> = Vec::new();
        let mut seen: Vec<Vec<u8>> = Vec::new();
        for (i, s) in nav.named_children(body).enumerate() {
            match s.kind_name() {
                "comment" | "pass_statement" | "function_definition" | "decorated_definition" => {}
                "expression_statement" => {
                    let e = s.named_child(0)?;
                    if e.kind_name() == "string" && i == 0 {
                        continue;
                    }
                    let (left, right) = (e.field(Field::Left)?, e.field(Field::Right)?);
                    if e.kind_name() != "assignment"
                        || left.kind_name() != "identifier"
                        || text(left, self.src()).starts_with('_')
                        || right.kind_name() != "string"
                    {
                        return None;
                    }
                    let Value::Str(t) = self.eval(right, &Ctx::at(None)) else {
                        return None;
                    };
                    let bytes = t.as_bytes()?;
                    // A second name for a value is an alias, which iteration skips.
                    if !seen.contains(&bytes) {
                        seen.push(bytes);
                        out.push(t);
                    }
                }
                _ => return None,
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// `m.value` where `obj` is `m`, the variable of the innermost loop or
    /// comprehension clause that binds it, walking an `Enum` class whose members
    /// all have literal string values: one of those values per pass. A `for`
    /// statement's variable must be bound nowhere else in its function.
    pub(crate) fn enum_loop_value(&mut self, obj: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let src = self.src();
        let name = text(obj, src);
        let binds = |clause: Node<'t>| {
            clause
                .field(Field::Left)
                .is_some_and(|l| l.kind_name() == "identifier" && text(l, src) == name)
        };
        let mut cur = nav.parent(obj);
        let (stmt, each) = loop {
            let p = cur?;
            match p.kind_name() {
                "list_comprehension"
                | "generator_expression"
                | "set_comprehension"
                | "dictionary_comprehension" => {
                    let clause = nav
                        .named_children(p)
                        .find(|c| c.kind_name() == "for_in_clause" && binds(*c));
                    // Not with an `if` clause, which may leave members out.
                    if let Some(clause) = clause {
                        if nav.named_children(p).any(|c| c.kind_name() == "if_clause") {
                            return None;
                        }
                        break (clause, p.start_byte());
                    }
                }
                "for_statement" if binds(p) => {
                    let inside = p
                        .field(Field::Body)
                        .is_some_and(|b| b.start_byte() <= obj.start_byte());
                    let once = match ctx.func {
                        Some(f) => self.ix.funcs[f]
                            .defs
                            .get(name)
                            .is_some_and(|d| d.len() == 1),
                        None => self.ix.module_defs.get(name).is_some_and(|d| d.len() == 1),
                    };
                    if !inside || !once {
                        return None;
                    }
                    break (p, p.start_byte());
                }
                "function_definition" | "lambda" | "class_definition" => return None,
                _ => {}
            }
            cur = nav.parent(p);
        };
        let right = stmt.field(Field::Right)?;
        let values: Vec<Tpl> = match self.eval(right, &ctx.deeper()) {
            Value::Class(c) => self.enum_member_values(c)?,
            Value::Symbol(p) => match self.project?.lookup(&p) {
                Some(crate::project::Fact::Class(cf)) if cf.is_enum() => cf.enum_values()?.to_vec(),
                _ => return None,
            },
            _ => return None,
        };
        let items = values
            .into_iter()
            .map(|t| Elem {
                value: Value::Str(t),
                node: right,
                star: false,
                each: Vec::new(),
            })
            .collect();
        self.listed_var_of(name, items, each)
    }
}
