//! Key builders that join their arguments after a prefix.
//!
//! A connection or namespace object often makes its keys with one variadic method
//! that puts a configured namespace in front of whatever parts it is given and joins
//! them with a separator:
//!
//! ```js
//! key(...parts) { return [this.namespace, ...parts].join(':'); }
//! key() {
//!   let args = [].slice.call(arguments, 0);
//!   args.unshift(this.options.namespace);          // or, for an array, `...namespace`
//!   args = args.filter((e) => String(e).trim());
//!   return args.join(':');
//! }
//! ```
//!
//! Such a method is a [`Builder`] with a [`Joined`] tail: `key('queue', q)` is
//! `<namespace>:queue:<q>`. Only these statements are read (an array of the
//! arguments, `unshift` of one prefix expression, possibly under an `if`/`else`
//! whose arms unshift the same expression, a `filter` that drops blank or empty
//! parts, and the `return` of the `join`); any other statement leaves the method
//! unread. A prefix that is spread (an array of parts) is one unknown value.

use super::*;
use crate::modules::{Builder, DropParts, Joined};

/// What a `filter` callback over one part keeps.
fn filter_kind(a: &Analyzer<'_>, cb: Node<'_>) -> Option<DropParts> {
    let cb = unwrap_expr(cb);
    if cb.kind() == "identifier" && text(cb, a.src) == "Boolean" {
        return Some(DropParts::Falsy);
    }
    if cb.kind() != "arrow_function" && cb.kind() != "function_expression" {
        return None;
    }
    let (_, param) = sole_plain_param(cb)?;
    let p = text(param, a.src);
    let body = lone_statement(cb.child_by_field_name("body")?, "return_statement")?;
    let e: String = text(unwrap_expr(body), a.src)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let q = ["''", "\"\""];
    if e == format!("String({p}).trim()") || e == format!("{p}.trim()") {
        Some(DropParts::Blank)
    } else if e == format!("String({p})")
        || q.iter()
            .any(|s| e == format!("{p}!=={s}") || e == format!("{p}!={s}"))
    {
        Some(DropParts::Empty)
    } else if e == p || e == format!("!!{p}") || e == format!("Boolean({p})") {
        Some(DropParts::Falsy)
    } else {
        None
    }
}

/// Whether `n` is an array of the function's arguments: `arguments`,
/// `[].slice.call(arguments[, 0])`, `Array.prototype.slice.call(arguments[, 0])`,
/// `Array.from(arguments)`, `[...arguments]`, the rest parameter `rest` or
/// `[...rest]`, or `arguments.length … ? <one of those> : []`.
fn is_args_array(a: &Analyzer<'_>, n: Node<'_>, rest: Option<&str>) -> bool {
    let n = unwrap_expr(n);
    let is_args = |x: Node<'_>| {
        let x = unwrap_expr(x);
        x.kind() == "identifier" && {
            let t = text(x, a.src);
            t == "arguments" || Some(t) == rest
        }
    };
    match n.kind() {
        "identifier" => is_args(n),
        "array" => {
            let v: Vec<Node<'_>> = named_kids(n);
            matches!(v[..], [s] if s.kind() == "spread_element"
                && s.named_child(0).is_some_and(is_args))
        }
        "ternary_expression" => {
            let (Some(c), Some(y), Some(z)) = (
                n.child_by_field_name("condition"),
                n.child_by_field_name("consequence"),
                n.child_by_field_name("alternative"),
            ) else {
                return false;
            };
            let empty = |x: Node<'_>| text(unwrap_expr(x), a.src).replace(' ', "") == "[]";
            let about_args = text(c, a.src).starts_with("arguments.length");
            about_args
                && ((is_args_array(a, y, rest) && empty(z))
                    || (empty(y) && is_args_array(a, z, rest)))
        }
        "call_expression" => {
            let Some(f) = n.child_by_field_name("function") else {
                return false;
            };
            let args = a.args(n);
            let ft: String = text(f, a.src).split_whitespace().collect();
            let zero = |x: &Node<'_>| text(*x, a.src) == "0";
            match ft.as_str() {
                "[].slice.call" | "Array.prototype.slice.call" => match args[..] {
                    [x] => is_args(x),
                    [x, ref y] => is_args(x) && zero(y),
                    _ => false,
                },
                "Array.from" => matches!(args[..], [x] if is_args(x)),
                _ => false,
            }
        }
        _ => false,
    }
}

/// `L.unshift(P)` / `L.unshift(...P)` as a statement: `P` and whether it is spread.
fn unshift_of<'t>(a: &Analyzer<'t>, st: Node<'t>, local: &str) -> Option<(Node<'t>, bool)> {
    if st.kind() != "expression_statement" {
        return None;
    }
    let call = st
        .named_child(0)
        .filter(|c| c.kind() == "call_expression")?;
    let f = call.child_by_field_name("function")?;
    if f.kind() != "member_expression" {
        return None;
    }
    let obj = f.child_by_field_name("object")?;
    let prop = f.child_by_field_name("property")?;
    if text(obj, a.src) != local || text(prop, a.src) != "unshift" {
        return None;
    }
    let args = a.args(call);
    let [p] = args[..] else { return None };
    if p.kind() == "spread_element" {
        return Some((p.named_child(0)?, true));
    }
    Some((p, false))
}

/// The one statement of a block (or the statement itself when it is no block).
fn only_statement(n: Node<'_>) -> Option<Node<'_>> {
    if n.kind() != "statement_block" {
        return Some(n);
    }
    let v: Vec<Node<'_>> = named_kids(n);
    let [s] = v[..] else { return None };
    Some(s)
}

impl<'t> Analyzer<'t> {
    /// A method that joins its arguments after a prefix (see the module comment).
    pub(super) fn joined_builder(&mut self, func: Node<'t>, module: &str) -> Option<Builder> {
        let mut c = func.walk();
        if func
            .children(&mut c)
            .any(|k| matches!(k.kind(), "async" | "*" | "get" | "set" | "static"))
        {
            return None;
        }
        let params = func.child_by_field_name("parameters")?;
        let ps: Vec<Node<'t>> = named_kids(params);
        // Parameters are documentation only (the body reads `arguments`), or one rest
        // parameter; none has a default value, which `arguments` would not hold.
        let mut rest: Option<&'t str> = None;
        for (i, p) in ps.iter().enumerate() {
            match p.kind() {
                "identifier" => {}
                "required_parameter" | "optional_parameter" => {
                    if p.child_by_field_name("value").is_some() {
                        return None;
                    }
                    let pat = p.child_by_field_name("pattern")?;
                    if pat.kind() == "rest_pattern" {
                        if i + 1 != ps.len() {
                            return None;
                        }
                        rest = Some(text(pat.named_child(0)?, self.src));
                    } else if pat.kind() != "identifier" {
                        return None;
                    }
                }
                "rest_pattern" if i + 1 == ps.len() => {
                    rest = Some(text(p.named_child(0)?, self.src));
                }
                _ => return None,
            }
        }
        let body = func.child_by_field_name("body")?;
        if body.kind() != "statement_block" {
            return None;
        }
        let stmts: Vec<Node<'t>> = named_kids(body);
        let (last, before) = stmts.split_last()?;
        if last.kind() != "return_statement" {
            return None;
        }
        // `return X.join(sep)`.
        let ret = unwrap_expr(last.named_child(0)?);
        if ret.kind() != "call_expression" {
            return None;
        }
        let jf = ret.child_by_field_name("function")?;
        if jf.kind() != "member_expression"
            || text(jf.child_by_field_name("property")?, self.src) != "join"
        {
            return None;
        }
        let jargs = self.args(ret);
        let [sep] = jargs[..] else { return None };
        let sep = string_value(unwrap_expr(sep), self.src)?;
        let joined = unwrap_expr(jf.child_by_field_name("object")?);
        let mut prefix: Vec<Node<'t>> = Vec::new();
        let mut spread_prefix = false;
        let mut drop = DropParts::Never;
        if joined.kind() == "array" {
            // `[p1, p2, ...rest].join(sep)`: nothing may come before.
            if !before.is_empty() {
                return None;
            }
            let els: Vec<Node<'t>> = named_kids(joined);
            let (tail, heads) = els.split_last()?;
            if tail.kind() != "spread_element" || !is_args_array(self, tail.named_child(0)?, rest) {
                return None;
            }
            for h in heads {
                if h.kind() == "spread_element" {
                    return None;
                }
                prefix.push(*h);
            }
        } else {
            // A local array of the arguments, given its prefix by `unshift`.
            if joined.kind() != "identifier" {
                return None;
            }
            let local = text(joined, self.src);
            let mut seeded = false;
            let mut filtered = false;
            for &st in before {
                match st.kind() {
                    "lexical_declaration" | "variable_declaration" => {
                        let mut c = st.walk();
                        let ds: Vec<Node<'t>> = st
                            .named_children(&mut c)
                            .filter(|d| d.kind() == "variable_declarator")
                            .collect();
                        let [d] = ds[..] else { return None };
                        let name = d.child_by_field_name("name")?;
                        if text(name, self.src) != local || seeded {
                            return None;
                        }
                        if let Some(v) = d.child_by_field_name("value") {
                            if !is_args_array(self, v, rest) {
                                return None;
                            }
                            seeded = true;
                        }
                    }
                    "expression_statement" => {
                        let e = st.named_child(0)?;
                        if e.kind() == "assignment_expression" {
                            let l = e.child_by_field_name("left")?;
                            let r = e.child_by_field_name("right")?;
                            if text(l, self.src) != local {
                                return None;
                            }
                            if !seeded {
                                if !prefix.is_empty() || !is_args_array(self, r, rest) {
                                    return None;
                                }
                                seeded = true;
                                continue;
                            }
                            // `L = L.filter(cb)`, once, after every `unshift`.
                            let r = unwrap_expr(r);
                            if filtered || r.kind() != "call_expression" {
                                return None;
                            }
                            let ff = r.child_by_field_name("function")?;
                            if ff.kind() != "member_expression"
                                || text(ff.child_by_field_name("object")?, self.src) != local
                                || text(ff.child_by_field_name("property")?, self.src) != "filter"
                            {
                                return None;
                            }
                            let fa = self.args(r);
                            let [cb] = fa[..] else { return None };
                            drop = filter_kind(self, cb)?;
                            filtered = true;
                            continue;
                        }
                        let (p, spread) = unshift_of(self, st, local)?;
                        if !seeded || filtered {
                            return None;
                        }
                        spread_prefix |= spread;
                        prefix.insert(0, p);
                    }
                    "if_statement" => {
                        // Both arms unshift the same expression (spread or not).
                        if !seeded || filtered {
                            return None;
                        }
                        let yes = only_statement(st.child_by_field_name("consequence")?)?;
                        let alt = st.child_by_field_name("alternative")?;
                        let mut c = alt.walk();
                        let no = alt
                            .named_children(&mut c)
                            .find(|x| x.kind() != "comment")
                            .and_then(only_statement)?;
                        let (p1, s1) = unshift_of(self, yes, local)?;
                        let (p2, s2) = unshift_of(self, no, local)?;
                        if text(p1, self.src) != text(p2, self.src) {
                            return None;
                        }
                        spread_prefix |= s1 || s2;
                        prefix.insert(0, p1);
                    }
                    _ => return None,
                }
            }
            if !seeded {
                return None;
            }
        }
        // The prefix: one unknown value when it may be several parts, else the
        // values themselves joined by the separator.
        let mut body_tpl = Tpl::default();
        if spread_prefix {
            if prefix.len() != 1 {
                return None;
            }
            body_tpl = self.hole(prefix[0]);
        } else if let [p] = prefix[..] {
            // One prefix value: when unknown, the namespace of every key made.
            body_tpl = self.tpl(p);
            if let Some(b) = body_tpl.as_bytes() {
                if drop.drops(&b)? {
                    body_tpl = Tpl::default();
                }
            }
        } else {
            let mut first = true;
            for p in prefix {
                let t = self.tpl(p);
                if let Some(b) = t.as_bytes() {
                    match drop.drops(&b) {
                        Some(true) => continue,
                        Some(false) => {}
                        None => return None,
                    }
                }
                if !first {
                    body_tpl.push(Tpl::text(sep.as_bytes()));
                }
                body_tpl.push(t);
                first = false;
            }
        }
        // A prefix of unknown value is one namespace for every key the method makes.
        for part in body_tpl.parts.iter_mut() {
            if let TPart::Hole(h) = part {
                h.binding = format!("{}{}", crate::modules::PREFIX, h.binding);
            }
        }
        Some(Builder {
            params: 0,
            body: crate::modules::detach(&body_tpl, module),
            joined: Some(Joined {
                sep: sep.into_bytes(),
                drop,
            }),
        })
    }
}
