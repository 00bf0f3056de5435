//! Class names: `model.__name__`, `cls.__name__`, `type(self).__name__`,
//! `self.__class__.__name__`, `__qualname__`, and a case change of them
//! (`model.__name__.lower()`).
//!
//! A class's name is a Python identifier (a qualified name is identifiers and dots): it
//! never holds `{` or `}`, so a key built from it carries no hash tag of its own there.
//! Such a value is an unknown value that is known to be brace-free
//! ([`keylint_core::template::brace_free_binding`]), like an id, even where it begins
//! the key: keys that share it and differ after it (`f"{name}_%&_{pk}"` next to
//! `f"{name}__index"`) are hashed from different bytes.
//!
//! Its identity is that of the object it is read from and the reading: the same
//! model passed to two key builders gives the same name in both.

use crate::eval::{arg_nodes, Ctx, Value};
use crate::index::text;
use crate::syntax::{Field, NodeExt};
use crate::tpl::HoleInfo;
use keylint_core::template::{brace_free_binding, is_brace_free_binding};
use tree_sitter::Node;

/// Attributes that hold a class's (or a function's) name.
const NAME_ATTRS: &[&str] = &["__name__", "__qualname__"];

/// Methods that keep a brace-free text brace-free.
const KEEPS_BRACE_FREE: &[&str] = &["lower", "upper", "casefold", "strip", "title"];

impl<'t> crate::lower::Analyzer<'t> {
    /// The value of `n` when it is the name of a class, read right there or through a
    /// case change (`model.__name__.lower()`, `name.lower()` of such a name).
    pub(crate) fn class_name_value(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        match n.kind_name() {
            "attribute" => {
                let attr = text(n.field(Field::Attribute)?, self.src());
                if !NAME_ATTRS.contains(&attr) {
                    return None;
                }
                let obj = n.field(Field::Object)?;
                let owner = self.class_owner(obj, ctx);
                let id = match owner {
                    Some(id) => format!("{id}.{attr}"),
                    None => match self.opaque(n, ctx) {
                        Value::Opaque(h) => h.binding,
                        _ => return None,
                    },
                };
                Some(self.brace_free(n, id))
            }
            "call" => {
                let func = n.field(Field::Function)?;
                if func.kind_name() != "attribute"
                    || !arg_nodes(self.ix.nav, n.field(Field::Arguments)).is_empty()
                {
                    return None;
                }
                let method = text(func.field(Field::Attribute)?, self.src());
                if !KEEPS_BRACE_FREE.contains(&method) {
                    return None;
                }
                let obj = func.field(Field::Object)?;
                let inner = match obj.kind_name() {
                    "attribute" | "call" => self.class_name_value(obj, ctx),
                    "identifier" | "parenthesized_expression" => {
                        match self.eval(obj, &ctx.deeper()) {
                            Value::Opaque(h) if is_brace_free_binding(&h.binding) => {
                                Some(Value::Opaque(h))
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                };
                match inner? {
                    Value::Opaque(h) => {
                        let id = format!("{}.{method}()", h.binding);
                        Some(self.brace_free(n, id))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The identity of the class whose name `obj.__name__` reads: the value of `obj`
    /// when it has one (a model the caller passes in, `cls`), `type(x)` and
    /// `x.__class__` by the identity of `x`. `None` when it cannot be told.
    fn class_owner(&mut self, obj: Node<'t>, ctx: &Ctx<'t>) -> Option<String> {
        let src = self.src();
        let (of, how) = match obj.kind_name() {
            "attribute" if text(obj.field(Field::Attribute)?, src) == "__class__" => {
                (obj.field(Field::Object)?, "type")
            }
            "call" => {
                let f = obj.field(Field::Function)?;
                let args = arg_nodes(self.ix.nav, obj.field(Field::Arguments));
                match args.as_slice() {
                    [a] if f.kind_name() == "identifier" && text(f, src) == "type" => (*a, "type"),
                    _ => return None,
                }
            }
            "identifier" | "attribute" => (obj, "obj"),
            _ => return None,
        };
        let id = match self.eval(of, &ctx.deeper()) {
            Value::Opaque(h) => h.binding,
            Value::SelfObj(c) => format!("self{c}"),
            Value::ClsObj(c) if how == "obj" => format!("self{c}"),
            Value::Class(c) if how == "obj" => format!("class{c}"),
            _ => return None,
        };
        Some(format!("{how}({id})"))
    }

    fn brace_free(&self, n: Node<'t>, id: String) -> Value<'t> {
        Value::Opaque(HoleInfo {
            label: text(n, self.src()).to_string(),
            binding: brace_free_binding(&id),
            span: Some(n.byte_range()),
            keylike: false,
        })
    }
}
