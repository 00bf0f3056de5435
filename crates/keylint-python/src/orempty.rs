//! A value or the empty string: `'' if s is None else s`, `s if s is not None else
//! ''`, `s if s else ''`, `'' if not s else s` and `s or ''`.
//!
//! Such an expression is `s` when `s` is given and nothing otherwise. A key built
//! from it is read as built from `s` itself: a hole for `s` already stands for any
//! value, the empty one among them, and the empty string carries no hash tag, so a
//! verdict that holds for every value of `s` holds for the expression too. Helpers
//! made of one such `return` (`normalize(s)`) are then key builders like any other.
//! Only the same name (or `self.x` attribute) tested and returned counts, and only
//! with the empty string in the other arm: `'' if flag else s`, or `{tag}` in the
//! other arm, stays unknown.

use crate::eval::Value;
use crate::index::text;
use crate::syntax::NodeExt;
use crate::tpl::TPart;
use tree_sitter::Node;

/// The tested expression of `cond` and whether `cond` is true when it holds a value
/// (`s`, `s is not None`, `s != None`) rather than when it does not (`s is None`,
/// `not s`); `None` for any other condition.
fn tested<'t>(cond: Node<'t>, src: &'t str) -> Option<(&'t str, bool)> {
    tested_node(cond).map(|(x, present)| (text(x, src), present))
}

/// The tested expression of `cond` and whether `cond` is true when it holds a value.
fn tested_node(cond: Node<'_>) -> Option<(Node<'_>, bool)> {
    match cond.kind_name() {
        "parenthesized_expression" => tested_node(cond.named_child(0)?),
        "not_operator" => tested_node(cond.named_child(0)?).map(|(x, p)| (x, !p)),
        "identifier" | "attribute" => Some((cond, true)),
        "comparison_operator" => {
            if cond.named_child_count() != 2 {
                return None;
            }
            let (a, b) = (cond.named_child(0)?, cond.named_child(1)?);
            if b.kind_name() != "none" || !matches!(a.kind_name(), "identifier" | "attribute") {
                return None;
            }
            // `is`/`==` against `None` tests absence; `is not`/`!=` presence.
            let mut c = cond.walk();
            let op: Vec<&str> = cond
                .children(&mut c)
                .filter(|k| !k.is_named())
                .map(|k| k.kind())
                .collect();
            match op.as_slice() {
                ["is"] | ["=="] => Some((a, false)),
                ["is", "not"] | ["is not"] | ["!="] => Some((a, true)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether two parts hold the same bytes or the same value.
fn same_part(x: &TPart, y: &TPart) -> bool {
    match (x, y) {
        (TPart::Lit { bytes: a, .. }, TPart::Lit { bytes: b, .. }) => a == b,
        (TPart::Hole(a), TPart::Hole(b)) => a.binding == b.binding,
        _ => false,
    }
}

/// Whether `v` is the empty string literal.
fn empty(v: &Value<'_>) -> bool {
    matches!(v, Value::Str(t) if t.as_bytes().is_some_and(|b| b.is_empty()))
}

/// Whether `v` may stand for the given value of a string: a string, or a value of
/// unknown content with an identity.
fn stringish(v: &Value<'_>) -> bool {
    matches!(v, Value::Str(_) | Value::Opaque(_))
}

/// Whether a string value may carry a hash tag of its own: a brace among its known
/// bytes, or a part that may be a whole key or prefix. One arm of `'{all}' if s is
/// None else s` is such a value, so the expression is not a brace-free id.
pub(crate) fn may_carry_tag(v: &Value<'_>) -> bool {
    match v {
        Value::Str(t) => t.parts.iter().any(|p| match p {
            TPart::Lit { bytes, .. } => bytes.iter().any(|&b| b == b'{' || b == b'}'),
            TPart::Hole(h) => h.keylike,
        }),
        Value::Opaque(h) => h.keylike,
        _ => false,
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// `a if cond else b` (evaluated to `va`, `vb`) when it is a value or the empty
    /// string: the value's own.
    pub(crate) fn or_empty_conditional(
        &self,
        cond: Node<'t>,
        a: Node<'t>,
        b: Node<'t>,
        va: &Value<'t>,
        vb: &Value<'t>,
    ) -> Option<Value<'t>> {
        let src = self.src();
        let (x, present) = tested(cond, src)?;
        let (given, given_v, other_v) = if present { (a, va, vb) } else { (b, vb, va) };
        (matches!(given.kind_name(), "identifier" | "attribute")
            && text(given, src) == x
            && empty(other_v)
            && stringish(given_v))
        .then(|| given_v.clone())
    }

    /// `f"{p}:{key}" if p is not None else key` (also `p + ":" + key if p else key`):
    /// `key` under an optional prefix, `p` and a separator, or nothing. Read as one
    /// unknown value that stands for `p` or nothing, the separator, then `key`: keys
    /// built the same way begin with the same value and separator, and a verdict that
    /// holds whatever that value is (the keys differ after it, or share a tag there)
    /// holds without the prefix too, where only the separator is missing.
    /// Only when the arm with the prefix is exactly the tested value, a separator
    /// without braces, then the other arm's value; a prefix with a default the code
    /// shows is left to the reading of configured values.
    pub(crate) fn optional_prefix(
        &mut self,
        cond: Node<'t>,
        va: &Value<'t>,
        vb: &Value<'t>,
        ctx: &crate::eval::Ctx<'t>,
    ) -> Option<Value<'t>> {
        let (tested_node, present) = tested_node(cond)?;
        let (given_v, other_v) = if present { (va, vb) } else { (vb, va) };
        let Value::Str(given) = given_v else {
            return None;
        };
        let other: Vec<TPart> = match other_v {
            Value::Str(t) => t.parts.clone(),
            Value::Opaque(h) => vec![TPart::Hole(h.clone())],
            _ => return None,
        };
        let [TPart::Hole(head), rest @ ..] = given.parts.as_slice() else {
            return None;
        };
        if crate::configured::default_of(&head.binding).is_some() {
            return None;
        }
        // The tested value is the prefix.
        let same = match self.eval(tested_node, &ctx.deeper()) {
            Value::Opaque(h) => h.binding == head.binding,
            Value::Str(t) => {
                matches!(t.parts.as_slice(), [TPart::Hole(h)] if h.binding == head.binding)
            }
            _ => false,
        };
        if !same {
            return None;
        }
        // The separator, then the other arm.
        let [TPart::Lit { bytes, .. }, after @ ..] = rest else {
            return None;
        };
        let (first, tail): (&[u8], &[TPart]) = match other.split_first() {
            Some((TPart::Lit { bytes, .. }, tail)) => (bytes, tail),
            _ => (&[], &other[..]),
        };
        let sep = bytes.strip_suffix(first)?;
        if sep.is_empty()
            || sep.len() > 3
            || sep
                .iter()
                .any(|&b| b == b'{' || b == b'}' || b.is_ascii_alphanumeric())
        {
            return None;
        }
        if after.len() != tail.len() || after.iter().zip(tail).any(|(x, y)| !same_part(x, y)) {
            return None;
        }
        // The separator stays after the value, as the code writes it: without the
        // prefix the key lacks it, which changes no verdict that holds for every value
        // of the one before it.
        let mut t = crate::tpl::Tpl::hole(crate::tpl::HoleInfo {
            label: head.label.clone(),
            binding: crate::heads::derived(
                &head.binding,
                format!("optional-prefix:{}", String::from_utf8_lossy(sep)),
            ),
            span: head.span.clone(),
            keylike: true,
        });
        t.push(crate::tpl::Tpl::text(sep));
        t.push(crate::tpl::Tpl { parts: other });
        Some(Value::Str(t))
    }

    /// `s or ''` (its operands evaluated to `l`, `r`): the value of `s`.
    pub(crate) fn or_empty_bool(
        &self,
        left: Node<'t>,
        l: &Value<'t>,
        r: &Value<'t>,
    ) -> Option<Value<'t>> {
        (matches!(left.kind_name(), "identifier" | "attribute") && empty(r) && stringish(l))
            .then(|| l.clone())
    }
}

#[cfg(test)]
mod tests {
    use crate::lower;
    use keylint_core::rules::{check, Settings};
    use keylint_core::Rule;

    fn rules(src: &str) -> Vec<Rule> {
        check(&lower(src), &Settings::default())
            .into_iter()
            .map(|f| f.rule)
            .collect()
    }

    #[test]
    fn a_value_or_nothing_is_the_value() {
        for part in [
            "('' if p is None else p)",
            "(p if p is not None else '')",
            "(p if p else '')",
            "('' if not p else p)",
            "(p or '')",
        ] {
            let src = format!(
                "import redis\nr = redis.Redis()\ndef f(p):\n    r.mget({part} + ':a', p + ':b')\n"
            );
            assert_eq!(rules(&src), vec![Rule::CrossSlotLikely], "{part}");
        }
    }

    #[test]
    fn an_optional_prefix_is_one_value_before_the_key() {
        for (part, expect) in [
            (
                "(f'{p}:{k}' if p is not None else k)",
                vec![Rule::CrossSlotLikely],
            ),
            ("(p + ':' + k if p else k)", vec![Rule::CrossSlotLikely]),
            (
                "(k if p is None else p + ':' + k)",
                vec![Rule::CrossSlotLikely],
            ),
            // Another value in the other arm, or another test: unknown.
            ("(p + ':' + k if p else 'x')", vec![]),
            ("(p + ':' + k if q else k)", vec![]),
        ] {
            let src = format!(
                "import redis\nr = redis.Redis()\ndef f(p, q):\n    k = 'a:1'\n    a = {part}\n    k = 'b:1'\n    b = {part}\n    r.rename(a, b)\n"
            );
            assert_eq!(rules(&src), expect, "{part}");
        }
    }

    #[test]
    fn another_test_or_a_tagged_default_stays_unknown() {
        for part in [
            "('' if q is None else p)",
            "('{all}' if p is None else p)",
            "(p if p is None else '')",
            "(p or '{all}')",
        ] {
            let src = format!(
                "import redis\nr = redis.Redis()\ndef f(p, q):\n    r.mget({part} + ':a', p + ':b')\n"
            );
            assert_eq!(rules(&src), vec![], "{part}");
        }
    }

    #[test]
    fn a_choice_with_a_braced_text_may_carry_a_tag() {
        for part in ["('{all}' if s is None else s)", "(s or '{all}')"] {
            let src = format!(
                "import redis\nr = redis.Redis()\ndef f(s, n, m):\n    r.mget('e:' + {part} + ':' + n, 'e:' + {part} + ':' + m)\n"
            );
            assert_eq!(rules(&src), vec![], "{part}");
        }
        let src = "import redis\nr = redis.Redis()\ndef f(s, n, m):\n    r.mget('e:' + ('a' if s else 'b') + ':' + n, 'e:' + ('a' if s else 'b') + ':' + m)\n";
        assert_eq!(rules(src), vec![Rule::CrossSlotLikely]);
    }
}
