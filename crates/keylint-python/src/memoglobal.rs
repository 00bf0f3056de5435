//! A module global made once by the function that returns it, the lazy client of a
//! module: `global POOL` / `if not POOL: POOL = redis.Redis(…)` / `return POOL` (also
//! `if POOL is None:`). Every call returns what the first one stored, so the call is
//! read as that value, like the memoising accessor of an attribute
//! (`builders::memo_return`). Any other statement in the body, an `else` arm, or a
//! test that reads anything but the global leaves the function unread. The same
//! shape on an attribute of `self` (`if self._conn is None: self._conn = …` / `return
//! self._conn`) is read when the attribute is assigned nothing but `None` elsewhere
//! ([`memo_attr_return`]), and so is `if self._client is None: self.open()` / `return
//! self._client` (or `cast(T, self._client)`), whose guard calls a method of `self`
//! that sets it: the attribute's value is then what the class assigns it, as where it
//! is read directly.

use crate::index::text;
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// The one statement of `if not NAME:` / `if NAME is None:` / `if NAME == None:`
/// (`name` as written, spaces aside), an `if` with no `elif` or `else` arm; `None`
/// for any other test or body.
fn unset_guard<'t>(
    nav: &crate::syntax::Nav<'t>,
    src: &'t str,
    test: Node<'t>,
    name: &str,
) -> Option<Node<'t>> {
    if nav
        .named_children(test)
        .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
    {
        return None;
    }
    let cond = test.field(Field::Condition)?;
    let cond_text: String = text(cond, src)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if ![
        format!("not {name}"),
        format!("{name} is None"),
        format!("{name} == None"),
    ]
    .contains(&cond_text)
    {
        return None;
    }
    let body = nav.statements(test.field(Field::Consequence)?);
    let [set] = body.as_slice() else {
        return None;
    };
    Some(*set)
}

/// The value a lazy module-global accessor stores and returns, as a one-element
/// list of returned expressions; `None` for any other body.
pub(crate) fn memo_global_return<'t>(
    nav: &crate::syntax::Nav<'t>,
    src: &'t str,
    info: &crate::index::FuncInfo<'t>,
) -> Option<Vec<Node<'t>>> {
    if info.is_lambda || !info.params.is_empty() {
        return None;
    }
    let stmts = nav.statements(info.body);
    let [decl, test, ret] = stmts.as_slice() else {
        return None;
    };
    if decl.kind_name() != "global_statement"
        || test.kind_name() != "if_statement"
        || ret.kind_name() != "return_statement"
    {
        return None;
    }
    let returned = ret.named_child(0)?;
    if returned.kind_name() != "identifier" {
        return None;
    }
    let name = text(returned, src);
    if !nav
        .named_children(*decl)
        .any(|c| c.kind_name() == "identifier" && text(c, src) == name)
    {
        return None;
    }
    let set = unset_guard(nav, src, *test, name)?;
    let asg = set.named_child(0)?;
    if set.kind_name() != "expression_statement" || asg.kind_name() != "assignment" {
        return None;
    }
    let left = asg.field(Field::Left)?;
    if left.kind_name() != "identifier" || text(left, src) != name {
        return None;
    }
    Some(vec![asg.field(Field::Right)?])
}

/// The value a lazy attribute accessor stores and returns: `if self._client is
/// None:` (or `if not self._client:`) / `self._client = redis.Redis(…)` / `return
/// self._client`, or `try: return self._client` / `except AttributeError:
/// self._client = …; return self._client`, as a one-element list of returned
/// expressions, when every other
/// assignment of the attribute in the classes of `chain` is `None` (the constructor's
/// `self._client = None`). Every call returns what the first one stored. `None` for
/// any other body, or an attribute assigned anything else elsewhere.
pub(crate) fn memo_attr_return<'t>(
    ix: &crate::index::Index<'t>,
    src: &'t str,
    info: &crate::index::FuncInfo<'t>,
    chain: &[crate::index::ClassId],
) -> Option<Vec<Node<'t>>> {
    let nav = ix.nav;
    let receiver = info.self_name()?;
    if info.is_lambda || info.params.len() != 1 || chain.is_empty() {
        return None;
    }
    // `return self.x`: the attribute's name.
    let returned_attr = |ret: Node<'t>| -> Option<&'t str> {
        if ret.kind_name() != "return_statement" {
            return None;
        }
        let returned = ret.named_child(0)?;
        let obj = returned.field(Field::Object)?;
        if returned.kind_name() != "attribute"
            || obj.kind_name() != "identifier"
            || text(obj, src) != receiver
        {
            return None;
        }
        Some(text(returned.field(Field::Attribute)?, src))
    };
    // `self.x = value`: the value.
    let stored = |set: Node<'t>, attr: &str| -> Option<Node<'t>> {
        let asg = set.named_child(0)?;
        if set.kind_name() != "expression_statement" || asg.kind_name() != "assignment" {
            return None;
        }
        let left = asg.field(Field::Left)?;
        let left_text: String = text(left, src).split_whitespace().collect();
        if left.kind_name() != "attribute" || left_text != format!("{receiver}.{attr}") {
            return None;
        }
        asg.field(Field::Right)
    };
    let stmts = nav.statements(info.body);
    // `if self.x is None: self.open()` / `return self.x` (or `cast(T, self.x)`): the
    // method the guard calls sets the attribute, whose value is then all that the
    // class assigns it, as where the attribute is read directly.
    if let [test, ret] = stmts.as_slice() {
        if test.kind_name() == "if_statement" && ret.kind_name() == "return_statement" {
            let returned = ret.named_child(0)?;
            let inner = uncast(returned, src).unwrap_or(returned);
            if let (Some(obj), Some(a)) =
                (inner.field(Field::Object), inner.field(Field::Attribute))
            {
                if inner.kind_name() == "attribute"
                    && obj.kind_name() == "identifier"
                    && text(obj, src) == receiver
                {
                    let name = format!("{receiver}.{}", text(a, src));
                    if let Some(set) = unset_guard(nav, src, *test, &name) {
                        if calls_own_method(set, src, receiver) {
                            return Some(vec![returned]);
                        }
                    }
                }
            }
        }
    }
    let (attr, value) = match stmts.as_slice() {
        // `if self.x is None: self.x = value` / `return self.x`.
        [test, ret] if test.kind_name() == "if_statement" => {
            let attr = returned_attr(*ret)?;
            let set = unset_guard(nav, src, *test, &format!("{receiver}.{attr}"))?;
            (attr, stored(set, attr)?)
        }
        // `try: return self.x` / `except AttributeError: self.x = value; return
        // self.x`.
        [tr] if tr.kind_name() == "try_statement" => {
            let parts: Vec<Node<'t>> = nav
                .named_children(*tr)
                .filter(|c| c.kind_name() != "comment")
                .collect();
            let [body, handler] = parts.as_slice() else {
                return None;
            };
            if body.kind_name() != "block" || handler.kind_name() != "except_clause" {
                return None;
            }
            let [ret] = nav.statements(*body)[..] else {
                return None;
            };
            let attr = returned_attr(ret)?;
            let hparts: Vec<Node<'t>> = nav
                .named_children(*handler)
                .filter(|c| c.kind_name() != "comment")
                .collect();
            let [caught, block] = hparts.as_slice() else {
                return None;
            };
            if text(*caught, src) != "AttributeError" || block.kind_name() != "block" {
                return None;
            }
            let [set, ret2] = nav.statements(*block)[..] else {
                return None;
            };
            if returned_attr(ret2) != Some(attr) {
                return None;
            }
            (attr, stored(set, attr)?)
        }
        _ => return None,
    };
    // Every other assignment of the attribute is `None`.
    for &k in chain {
        for a in ix.classes[k].self_assigns.get(attr).into_iter().flatten() {
            match a.value {
                Some(v) if v.id() == value.id() => {}
                Some(v) if v.kind_name() == "none" => {}
                Some(_) => return None,
                None => {}
            }
        }
    }
    Some(vec![value])
}

/// `x` of `cast(T, x)` / `typing.cast(T, x)`.
pub(crate) fn uncast<'t>(n: Node<'t>, src: &str) -> Option<Node<'t>> {
    if n.kind_name() != "call" {
        return None;
    }
    let f = n.field(Field::Function)?;
    if !matches!(text(f, src), "cast" | "typing.cast" | "t.cast") {
        return None;
    }
    let args = n.field(Field::Arguments)?;
    let mut cur = args.walk();
    let items: Vec<Node<'t>> = args
        .named_children(&mut cur)
        .filter(|c| c.kind_name() != "comment")
        .collect();
    match items.as_slice() {
        [_, x]
            if !matches!(
                x.kind_name(),
                "keyword_argument" | "list_splat" | "dictionary_splat"
            ) =>
        {
            Some(*x)
        }
        _ => None,
    }
}

/// Whether `stmt` is `self.m(…)` or `await self.m(…)`, a call of a method of the
/// receiver, as a statement.
fn calls_own_method(stmt: Node<'_>, src: &str, receiver: &str) -> bool {
    if stmt.kind_name() != "expression_statement" {
        return false;
    }
    let Some(e) = stmt.named_child(0) else {
        return false;
    };
    let Some(e) = crate::syntax::unawaited(e) else {
        return false;
    };
    if e.kind_name() != "call" {
        return false;
    }
    let Some(f) = e.field(Field::Function) else {
        return false;
    };
    f.kind_name() == "attribute"
        && f.field(Field::Object)
            .is_some_and(|o| o.kind_name() == "identifier" && text(o, src) == receiver)
}
