//! Fresh random values: `uuid.uuid4()`, `str(uuid4())`, `uuid4().hex`,
//! `secrets.token_hex()`, `os.urandom(8).hex()`, `binascii.hexlify(os.urandom(8))`.
//!
//! The text of such a value is hex digits, dashes or base64url characters: it never
//! holds `{` or `}`, so a key made of it and brace-free text hashes to a random slot.
//! Each place that generates one gives a value of its own (two `uuid4()` calls are two
//! values); a variable assigned one, and what is computed from it (`u.hex`, a slice),
//! keep its identity (the same value, never told apart), so two uses of one variable
//! are one value.

use crate::eval::{arg_nodes, Ctx, Value};
use crate::index::text;
use crate::syntax::{Field, NodeExt};
use crate::tpl::HoleInfo;
use keylint_core::template::{fresh_binding, is_fresh_binding};
use tree_sitter::Node;

/// Functions whose result is fresh text, or an object whose text is (a `UUID`).
const FRESH_CALLS: &[&str] = &[
    "uuid.uuid1",
    "uuid.uuid3",
    "uuid.uuid4",
    "uuid.uuid5",
    "secrets.token_hex",
    "secrets.token_urlsafe",
    // `str(uuid4())` of the OpenStack utility library.
    "oslo_utils.uuidutils.generate_uuid",
    // A uuid written in base 57.
    "shortuuid.uuid",
];

/// Functions whose result is random bytes: fresh once written in hex.
const RANDOM_BYTES: &[&str] = &["os.urandom", "secrets.token_bytes", "random.randbytes"];

/// Functions that write bytes in hex.
const HEXLIFY: &[&str] = &["binascii.hexlify", "binascii.b2a_hex"];

/// Methods and attributes that keep a fresh text fresh (`.hex` of a `UUID`,
/// `.decode()` of hex bytes, a case change).
const KEEPS_FRESH: &[&str] = &["hex", "decode", "lower", "upper", "strip"];

impl<'t> crate::lower::Analyzer<'t> {
    /// The dotted name a callee is written as, through this file's imports
    /// (`uuid4` of `from uuid import uuid4` is `uuid.uuid4`); `None` when its first
    /// name is not imported.
    fn imported_path(&self, callee: Node<'t>, ctx: &Ctx<'t>) -> Option<String> {
        if !matches!(callee.kind_name(), "identifier" | "attribute") {
            return None;
        }
        let t = text(callee, self.src());
        if t.chars()
            .any(|c| !(c.is_alphanumeric() || c == '_' || c == '.'))
        {
            return None;
        }
        let first = t.split('.').next()?;
        // A name a function around the call defines is not the import.
        let mut func = ctx.func;
        while let Some(f) = func {
            let info = &self.ix.funcs[f];
            if info.defs.contains_key(first) {
                return None;
            }
            func = info.parent;
        }
        let module = self.ix.imports.get(first)?;
        Some(crate::index::client_path(&format!("{module}{}", &t[first.len()..])).into_owned())
    }

    /// Whether `n` is a call of one of `names`.
    fn calls_one_of(&self, n: Node<'t>, names: &[&str], ctx: &Ctx<'t>) -> bool {
        n.kind_name() == "call"
            && n.field(Field::Function)
                .and_then(|f| self.imported_path(f, ctx))
                .is_some_and(|p| names.contains(&p.as_str()))
    }

    /// The value of `n` when it is a fresh random value, written right there or
    /// computed from one (`u.hex`, `token[:8]`).
    /// The binding of a fresh value made at `n`: its place, and the loops it is made in.
    fn made_here(&self, n: Node<'t>, ctx: &Ctx<'t>) -> String {
        fresh_binding(&format!(
            "{}@{}{}",
            self.scope_tag(ctx),
            n.start_byte(),
            self.loop_marks(n)
        ))
    }

    /// The marks of the loops of its function that a call made at `n` runs in: a
    /// fresh value made in a loop's body is a new one each pass.
    fn loop_marks(&self, n: Node<'t>) -> String {
        let nav = self.ix.nav;
        let mut out = String::new();
        let mut cur = nav.parent(n);
        while let Some(p) = cur {
            match p.kind_name() {
                "function_definition" | "lambda" | "class_definition" => break,
                "for_statement" | "while_statement"
                    if p.field(Field::Body)
                        .is_some_and(|b| crate::index::contains(b, n.start_byte())) =>
                {
                    out.push_str(&crate::eval::each_marker(p.start_byte()));
                }
                _ => {}
            }
            cur = nav.parent(p);
        }
        out
    }

    pub(crate) fn fresh_value(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let binding = match n.kind_name() {
            "call" => {
                let func = n.field(Field::Function)?;
                if self.calls_one_of(n, FRESH_CALLS, ctx) {
                    self.made_here(n, ctx)
                } else if self.calls_one_of(n, HEXLIFY, ctx) {
                    let args = arg_nodes(self.ix.nav, n.field(Field::Arguments));
                    match args.as_slice() {
                        [a] if self.calls_one_of(*a, RANDOM_BYTES, ctx) => self.made_here(n, ctx),
                        _ => return None,
                    }
                } else if func.kind_name() == "attribute" {
                    // `x.hex()`, `x.decode()` of a fresh value or of random bytes.
                    let obj = func.field(Field::Object)?;
                    let attr = text(func.field(Field::Attribute)?, self.src());
                    if !KEEPS_FRESH.contains(&attr) {
                        return None;
                    }
                    if attr == "hex" && self.calls_one_of(obj, RANDOM_BYTES, ctx) {
                        self.made_here(n, ctx)
                    } else {
                        return self.fresh_operand(obj, ctx);
                    }
                } else {
                    return None;
                }
            }
            "attribute" => {
                // `u.hex` of a `UUID`.
                let attr = text(n.field(Field::Attribute)?, self.src());
                if attr != "hex" {
                    return None;
                }
                return self.fresh_operand(n.field(Field::Object)?, ctx);
            }
            "subscript" => {
                // `token[:8]`: a slice of fresh text.
                let value = n.field(Field::Value)?;
                let index = n.named_child(1)?;
                if index.kind_name() != "slice" || n.named_child_count() != 2 {
                    return None;
                }
                return self.fresh_operand(value, ctx);
            }
            _ => return None,
        };
        Some(Value::Opaque(HoleInfo {
            label: text(n, self.src()).to_string(),
            binding,
            span: Some(n.byte_range()),
            keylike: false,
        }))
    }

    /// The value of `n` when it is a fresh value: what is computed from one is taken
    /// as that same value (`u.hex` and `str(u)`, `token[:8]` and `token` may share
    /// text, so they are never told apart).
    fn fresh_operand(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        if !matches!(
            n.kind_name(),
            "identifier" | "call" | "attribute" | "subscript" | "parenthesized_expression"
        ) {
            return None;
        }
        match self.eval(n, &ctx.deeper()) {
            v @ Value::Opaque(_) if is_fresh(&v) => Some(v),
            Value::Str(t) => match t.parts.as_slice() {
                [crate::tpl::TPart::Hole(h)] if is_fresh_binding(&h.binding) => {
                    Some(Value::Opaque(h.clone()))
                }
                _ => None,
            },
            _ => None,
        }
    }
}

fn is_fresh(v: &Value<'_>) -> bool {
    matches!(v, Value::Opaque(h) if is_fresh_binding(&h.binding))
}
