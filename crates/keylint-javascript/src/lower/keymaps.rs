//! Types whose values are one object of keys (`export type KeysMap = { [k: string]:
//! string }`) that the module declaring the type makes in one function only, from a
//! list of names over one head the caller gives (`getKeys(name): KeysMap` fills
//! `keys[k] = \`${this.prefix}:${name}:${k}\`` in a loop over literal names). A value
//! another module declares with the type (`keys: KeysMap`) is that object: its members
//! begin with one value the code does not show (the caller's prefix and name) and
//! differ in the literal name after it.

use super::*;
use crate::modules::{detach, Fact, PREFIX};

/// Functions of a module looked at for the producer of a type, at most.
const MAX_FUNCS: usize = 4096;

impl<'t> Analyzer<'t> {
    /// The key map the type `name` stands for: the one function of this module whose
    /// declared return type is `name` returns an object filled from literal names,
    /// each member the same head (with a value the code does not show in it) followed
    /// by the member's name.
    pub(super) fn key_map_type(&mut self, name: &str, module: &str) -> Option<Fact> {
        let producer = self.only_producer(name)?;
        let plain = {
            let mut c = producer.walk();
            let p = producer
                .children(&mut c)
                .all(|k| !matches!(k.kind(), "async" | "*" | "get" | "set"));
            p
        };
        if !plain {
            return None;
        }
        // A method whose class the module extends may be another function there.
        if producer.kind() == "method_definition" {
            let class = self.ancestry(producer).map(|(_, p)| p).find(|p| {
                matches!(
                    p.kind(),
                    "class_declaration" | "class" | "abstract_class_declaration"
                )
            })?;
            let cname = class.child_by_field_name("name").map(|n| text(n, self.src));
            if cname.is_none_or(|c| self.has_subclass(c)) {
                return None;
            }
        }
        let body = producer.child_by_field_name("body")?;
        let stmts = named_kids(body);
        let ret = *stmts.last()?;
        if ret.kind() != "return_statement" {
            return None;
        }
        let returned = unwrap_expr(ret.named_child(0)?);
        if returned.kind() != "identifier" {
            return None;
        }
        // The parameters are the caller's values.
        let params: Vec<Node<'t>> = named_kids(producer.child_by_field_name("parameters")?);
        let v = self.eval_with_param_holes(&params, returned)?;
        let Value::Object(props) = v else {
            return None;
        };
        let mut members: Vec<(String, Tpl)> = Vec::new();
        for (k, e) in props {
            let Value::Str(t) = e.value else {
                return None;
            };
            members.push((k, detach(&t, module)));
        }
        shape(name, module, members)
    }

    /// Whether the function of the parameter `p` (named `name`) sets a property of
    /// it (`name.x = …`, `name[k] = …`) anywhere in its body.
    pub(super) fn param_mutated(&mut self, p: Node<'t>, name: &str) -> bool {
        if let Some(&m) = self.mutated_params.get(&p.id()) {
            return m;
        }
        let func = self
            .ancestry(p)
            .map(|(_, a)| a)
            .find(|a| is_function(a.kind()));
        let mutated = match func.and_then(|f| f.child_by_field_name("body")) {
            None => true,
            Some(body) => {
                let mut found = false;
                let mut stack = vec![body];
                let mut c = body.walk();
                while let Some(n) = stack.pop() {
                    if matches!(
                        n.kind(),
                        "assignment_expression" | "augmented_assignment_expression"
                    ) {
                        let target = n.child_by_field_name("left").map(unwrap_expr);
                        let obj = target
                            .filter(|t| {
                                matches!(t.kind(), "member_expression" | "subscript_expression")
                            })
                            .and_then(|t| t.child_by_field_name("object"))
                            .map(unwrap_expr);
                        if let Some(o) = obj {
                            if o.kind() == "identifier"
                                && text(o, self.src) == name
                                && matches!(self.lookup(name, o), Decl::Param(q) if q == p)
                            {
                                found = true;
                                break;
                            }
                        }
                    }
                    stack.extend(n.named_children(&mut c));
                }
                found
            }
        };
        self.mutated_params.insert(p.id(), mutated);
        mutated
    }

    /// The one function or method of this module whose declared return type is
    /// `name` (`getKeys(name: string): KeysMap`).
    fn only_producer(&self, name: &str) -> Option<Node<'t>> {
        let mut found = None;
        let mut seen = 0;
        let mut stack = vec![self.root];
        let mut c = self.root.walk();
        while let Some(n) = stack.pop() {
            if is_function(n.kind()) {
                seen += 1;
                if seen > MAX_FUNCS {
                    return None;
                }
                let ty = n
                    .child_by_field_name("return_type")
                    .map(|t| text(t, self.src).trim_start_matches(':').trim().to_string());
                if ty.as_deref() == Some(name) {
                    if found.is_some() {
                        return None;
                    }
                    found = Some(n);
                }
            }
            stack.extend(n.named_children(&mut c));
        }
        found
    }
}

/// The members as one head followed by each member's own name: `None` unless every
/// member is the same head (holding a value the code does not show) and its name,
/// and there are two members or more. The head up to its last hole becomes one hole,
/// a prefix every member shares (bound to the type and its module).
fn shape(ty: &str, module: &str, members: Vec<(String, Tpl)>) -> Option<Fact> {
    if members.len() < 2 {
        return None;
    }
    let mut head: Option<Tpl> = None;
    for (k, t) in &members {
        let h = strip_name(t, k.as_bytes())?;
        match &head {
            None => head = Some(h),
            Some(x) if *x == h => {}
            Some(_) => return None,
        }
    }
    let head = head?;
    // A hash tag written in the head or a name is left to the keys as they are.
    let braces = |b: &[u8]| b.iter().any(|c| matches!(c, b'{' | b'}'));
    let tagged = head
        .parts
        .iter()
        .any(|p| matches!(p, TPart::Lit { bytes, .. } if braces(bytes)))
        || members.iter().any(|(k, _)| braces(k.as_bytes()));
    if tagged {
        return None;
    }
    let last_hole = head
        .parts
        .iter()
        .rposition(|p| matches!(p, TPart::Hole(_)))?;
    // The head's holes must all be values the code does not show: a parameter of
    // the producer or a property of its object.
    let mut label = String::new();
    for p in &head.parts[..=last_hole] {
        match p {
            TPart::Lit { bytes, .. } => label.push_str(&String::from_utf8_lossy(bytes)),
            TPart::Hole(h) => {
                label.push_str("${");
                label.push_str(&h.label);
                label.push('}');
            }
        }
    }
    let tail: Vec<u8> = head.parts[last_hole + 1..]
        .iter()
        .flat_map(|p| match p {
            TPart::Lit { bytes, .. } => bytes.clone(),
            TPart::Hole(_) => Vec::new(),
        })
        .collect();
    let hole = HoleInfo {
        label,
        binding: format!("{PREFIX}keys:{ty}@{module}"),
        span: None,
        keylike: true,
    };
    let out = members
        .into_iter()
        .map(|(k, _)| {
            let mut t = Tpl::hole(hole.clone());
            let mut rest = tail.clone();
            rest.extend_from_slice(k.as_bytes());
            t.push(Tpl::text(&rest));
            (k, Fact::Str(t))
        })
        .collect();
    Some(Fact::Shape(out))
}

/// `t` without the literal `name` at its end.
fn strip_name(t: &Tpl, name: &[u8]) -> Option<Tpl> {
    let mut parts = t.parts.clone();
    let mut left = name.len();
    while left > 0 {
        match parts.pop()? {
            TPart::Lit {
                mut bytes,
                mut offs,
            } => {
                if bytes.len() <= left {
                    if !name[..left].ends_with(&bytes) {
                        return None;
                    }
                    left -= bytes.len();
                } else {
                    if !bytes.ends_with(&name[..left]) {
                        return None;
                    }
                    let keep = bytes.len() - left;
                    bytes.truncate(keep);
                    offs.truncate(keep);
                    parts.push(TPart::Lit { bytes, offs });
                    left = 0;
                }
            }
            TPart::Hole(_) => return None,
        }
    }
    // Adjacent empty literals aside, the heads compare by their parts.
    parts.retain(|p| !matches!(p, TPart::Lit { bytes, .. } if bytes.is_empty()));
    Some(Tpl { parts })
}
