//! Values with a shape per branch: key builders with a return per arm (`if
//! self.is_tasks: return A + q` / `else: return B + q`, also `elif` arms), memoising
//! accessors, and a name assigned one of two families of keys in an `if`/`else`.

use crate::eval::{each_marker, Value};
use crate::syntax::{Field, NodeExt};
use crate::tpl::{HoleInfo, TPart, Tpl};
use tree_sitter::Node;

/// The returned expressions of an `if` statement each of whose arms (an `else` among
/// them) is one `return x` alone; `None` for any other shape.
pub(crate) fn arm_returns<'t>(
    nav: &crate::syntax::Nav<'t>,
    stmt: Node<'t>,
) -> Option<Vec<Node<'t>>> {
    let one_return = |block: Node<'t>| -> Option<Node<'t>> {
        let body: Vec<Node<'t>> = nav
            .named_children(block)
            .filter(|x| x.kind_name() != "comment")
            .collect();
        match body.as_slice() {
            [r] if r.kind_name() == "return_statement" => r.named_child(0),
            _ => None,
        }
    };
    let mut out = vec![one_return(stmt.field(Field::Consequence)?)?];
    let mut has_else = false;
    for c in nav.named_children(stmt) {
        match c.kind_name() {
            "elif_clause" => out.push(one_return(c.field(Field::Consequence)?)?),
            "else_clause" => {
                out.push(one_return(c.field(Field::Body)?)?);
                has_else = true;
            }
            _ => {}
        }
    }
    has_else.then_some(out)
}

/// The value a memoising accessor returns: `if not hasattr(self, name):
/// setattr(self, name, value)` then `return getattr(self, name)` (the same `name`,
/// a parameter or a literal): `value`, which the first call stores and every call
/// returns. `None` for any other body.
pub(crate) fn memo_return<'t>(
    nav: &crate::syntax::Nav<'t>,
    src: &'t str,
    info: &crate::index::FuncInfo<'t>,
) -> Option<Vec<Node<'t>>> {
    use crate::index::text;
    let stmts = nav.statements(info.body);
    let [test, ret] = stmts.as_slice() else {
        return None;
    };
    let receiver = info.self_name()?;
    // `f(receiver, name, …)` with `f` a builtin: its other arguments.
    let builtin_call = |e: Node<'t>, f: &str, n: usize| -> Option<Vec<Node<'t>>> {
        if e.kind_name() != "call" {
            return None;
        }
        let callee = e.field(Field::Function)?;
        if callee.kind_name() != "identifier" || text(callee, src) != f {
            return None;
        }
        let args: Vec<Node<'t>> = nav
            .named_children(e.field(Field::Arguments)?)
            .filter(|a| a.kind_name() != "comment")
            .collect();
        if args.len() != n
            || args[0].kind_name() != "identifier"
            || text(args[0], src) != receiver
            || !matches!(args[1].kind_name(), "identifier" | "string")
        {
            return None;
        }
        Some(args[1..].to_vec())
    };
    if test.kind_name() != "if_statement"
        || nav
            .named_children(*test)
            .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
    {
        return None;
    }
    let cond = test.field(Field::Condition)?;
    if cond.kind_name() != "not_operator" {
        return None;
    }
    let has = builtin_call(nav.named_children(cond).next()?, "hasattr", 2)?;
    let body: Vec<Node<'t>> = nav
        .named_children(test.field(Field::Consequence)?)
        .filter(|x| x.kind_name() != "comment")
        .collect();
    let [set] = body.as_slice() else { return None };
    if set.kind_name() != "expression_statement" {
        return None;
    }
    let set = builtin_call(set.named_child(0)?, "setattr", 3)?;
    if ret.kind_name() != "return_statement" {
        return None;
    }
    let get = builtin_call(ret.named_child(0)?, "getattr", 2)?;
    let name = text(has[0], src);
    (text(set[0], src) == name && text(get[0], src) == name).then(|| vec![set[1]])
}

/// A name assigned one of two families of keys in the arms of an `if`/`else`
/// (`keys = [f"p:{o}:{x}" for x in xs]` / `keys = [k for k in r.scan_iter(match=f"p:{o}:*")]`):
/// a family whose member is what both members begin with, then one opaque part that
/// varies with either family's loop. Made only when each member varies after that
/// common beginning, and its end holds no brace and no hole that does not vary with
/// its own family (a value that might carry a tag of its own for every pass): then
/// each family alone and the joined one get the same verdict. `None` otherwise.
pub(crate) fn join_families<'t>(
    name: &str,
    a: Value<'t>,
    b: Value<'t>,
    node: Node<'t>,
) -> Option<Value<'t>> {
    let member = |v: Value<'t>| -> Option<(Tpl, Vec<usize>)> {
        let Value::Seq {
            mut items,
            family: true,
        } = v
        else {
            return None;
        };
        if items.len() != 1 {
            return None;
        }
        let e = items.remove(0);
        match e.value {
            Value::Str(t) if !e.each.is_empty() && !e.star => Some((t, e.each)),
            _ => None,
        }
    };
    let (ta, ea) = member(a)?;
    let (tb, eb) = member(b)?;
    // The common beginning: whole parts, then the bytes two literals share.
    let mut prefix = Tpl::default();
    let mut at = 0usize;
    let mut cut = 0usize;
    for (i, (pa, pb)) in ta.parts.iter().zip(&tb.parts).enumerate() {
        match (pa, pb) {
            (TPart::Hole(x), TPart::Hole(y)) if x.binding == y.binding => {
                prefix.parts.push(pa.clone());
                at = i + 1;
            }
            (TPart::Lit { bytes: x, offs }, TPart::Lit { bytes: y, .. }) => {
                let n = x.iter().zip(y).take_while(|(p, q)| p == q).count();
                if n > 0 {
                    prefix.push(Tpl::lit(x[..n].to_vec(), offs[..n].to_vec()));
                }
                if n == x.len() && n == y.len() {
                    at = i + 1;
                    continue;
                }
                cut = n;
                break;
            }
            _ => break,
        }
    }
    if prefix.parts.is_empty() {
        return None;
    }
    let mut ends = Vec::new();
    for (t, each) in [(&ta, &ea), (&tb, &eb)] {
        let mut rest: Vec<TPart> = t.parts.get(at..).unwrap_or_default().to_vec();
        if let Some(TPart::Lit { bytes, offs }) = rest.first_mut() {
            if cut > 0 {
                bytes.drain(..cut.min(bytes.len()));
                offs.drain(..cut.min(offs.len()));
            }
        }
        let varies = |h: &HoleInfo| each.iter().any(|&e| h.binding.contains(&each_marker(e)));
        let mut varying = false;
        let mut sig = String::new();
        for p in &rest {
            match p {
                TPart::Lit { bytes, .. } => {
                    if bytes.contains(&b'{') || bytes.contains(&b'}') {
                        return None;
                    }
                    sig.push_str(&String::from_utf8_lossy(bytes).escape_debug().to_string());
                }
                TPart::Hole(h) => {
                    if !varies(h) {
                        return None;
                    }
                    varying = true;
                    sig.push('<');
                    sig.push_str(&h.binding);
                    sig.push('>');
                }
            }
        }
        if !varying {
            return None;
        }
        ends.push(sig);
    }
    prefix.push(Tpl::hole(HoleInfo {
        label: name.to_string(),
        binding: format!("{name}:either[{}]", ends.join("|")),
        span: None,
        keylike: true,
    }));
    let mut each = ea;
    each.extend(eb);
    Some(Value::family(Value::Str(prefix), node, each))
}
