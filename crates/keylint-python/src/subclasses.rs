//! Subclasses in other modules that define an attribute of their base their own way.
//!
//! In a method of `Plain`, `self.prefix` is `Plain.prefix` only if no subclass
//! defines `prefix` again: `class TaggedPlain(Plain): prefix = "{plain}:"` in another
//! module makes the base's keys tagged for its objects, so a verdict on the base's
//! value alone may be false. The files of the project that mention the base's name
//! (the reverse index, [`crate::ModuleLoader::mentions`]) are read for classes derived
//! from it (directly, or through a class of the same file derived from it) that
//! define the attribute: in their body (`prefix = …`, `def prefix(self)`) or on
//! `self` in one of their methods (`self.prefix = …`).

use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// Classes read in one file, at most: past it, the file is taken to override.
const MAX_CLASSES: usize = 512;

/// Whether a class of the file (`src`, `root`) derived from `class` defines `attr`;
/// `None` when the file has too many classes to tell.
pub(crate) fn subclass_defines(src: &str, root: Node<'_>, class: &str, attr: &str) -> Option<bool> {
    Some(
        derived_classes(src, root, class)?
            .into_iter()
            .any(|c| defines(c, src, attr)),
    )
}

/// The classes of the file (`src`, `root`) derived from `class` (directly, or
/// through a class of the file derived from it) that define method `m` in their
/// body, by name; `None` when the file has too many classes to tell.
pub(crate) fn derived_defining(
    src: &str,
    root: Node<'_>,
    class: &str,
    m: &str,
) -> Option<Vec<String>> {
    Some(
        derived_classes(src, root, class)?
            .into_iter()
            .filter(|&c| defines_method(c, src, m))
            .filter_map(|c| {
                c.field(Field::Name)
                    .map(|n| src[n.byte_range()].to_string())
            })
            .collect(),
    )
}

/// The classes of the file derived from `class`, directly or through a class of the
/// file derived from it; `None` when the file has too many classes to tell.
fn derived_classes<'t>(src: &str, root: Node<'t>, class: &str) -> Option<Vec<Node<'t>>> {
    let mut classes = Vec::new();
    collect_classes(root, &mut classes)?;
    let name_of = |c: Node<'_>| c.field(Field::Name).map(|n| &src[n.byte_range()]);
    let mut derived: Vec<&str> = vec![class];
    let mut done = vec![false; classes.len()];
    let mut out = Vec::new();
    // A subclass of a subclass of this file may come first: repeat until no class
    // joins (at most once a class).
    loop {
        let mut grew = false;
        for (i, &c) in classes.iter().enumerate() {
            if done[i] || !bases(c, src).iter().any(|b| derived.contains(b)) {
                continue;
            }
            done[i] = true;
            grew = true;
            out.push(c);
            if let Some(n) = name_of(c) {
                derived.push(n);
            }
        }
        if !grew {
            return Some(out);
        }
    }
}

/// Whether class `c` defines method `m` in its body (decorated or not).
fn defines_method(c: Node<'_>, src: &str, m: &str) -> bool {
    let Some(body) = c.field(Field::Body) else {
        return false;
    };
    let mut cursor = body.walk();
    let found = body.named_children(&mut cursor).any(|n| {
        let f = if n.kind_name() == "decorated_definition" {
            n.field(Field::Definition)
        } else {
            Some(n)
        };
        f.is_some_and(|f| {
            f.kind_name() == "function_definition"
                && f.field(Field::Name)
                    .is_some_and(|x| &src[x.byte_range()] == m)
        })
    });
    found
}

/// Whether a class header of `src` may name `class` among its bases: a line
/// `class X(…class…)`, or a header whose bases go on past its line. A cheap test
/// before a file is parsed.
pub(crate) fn may_derive(src: &str, class: &str) -> bool {
    src.lines().any(|line| {
        let Some(rest) = line.trim_start().strip_prefix("class ") else {
            return false;
        };
        let Some(open) = rest.find('(') else {
            return false;
        };
        let bases = &rest[open..];
        !bases.contains(')') || has_word(bases, class)
    })
}

/// Whether `word` is in `s` as a whole identifier.
fn has_word(s: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    s.match_indices(word).any(|(i, _)| {
        !s[..i].chars().next_back().is_some_and(ident)
            && !s[i + word.len()..].chars().next().is_some_and(ident)
    })
}

/// Every class definition of the tree, nested ones too.
fn collect_classes<'t>(n: Node<'t>, out: &mut Vec<Node<'t>>) -> Option<()> {
    let mut cursor = n.walk();
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if n.kind_name() == "class_definition" {
            if out.len() >= MAX_CLASSES {
                return None;
            }
            out.push(n);
        }
        stack.extend(n.named_children(&mut cursor));
    }
    Some(())
}

/// The names of a class's bases as written last (`Plain`, `base.Plain` -> `Plain`).
fn bases<'s>(c: Node<'_>, src: &'s str) -> Vec<&'s str> {
    let Some(args) = c.field(Field::Superclasses) else {
        return Vec::new();
    };
    let mut cursor = args.walk();
    args.named_children(&mut cursor)
        .filter_map(|b| {
            // `Base[str]`, a generic base: the class it subscripts.
            let b = match b.kind_name() {
                "subscript" => b.field(Field::Value)?,
                _ => b,
            };
            match b.kind_name() {
                "identifier" => Some(&src[b.byte_range()]),
                "attribute" => b.field(Field::Attribute).map(|a| &src[a.byte_range()]),
                _ => None,
            }
        })
        .collect()
}

/// Whether class `c` defines `attr`: assigned or defined in its body, or assigned
/// on `self` anywhere in it (nested classes excluded).
fn defines(c: Node<'_>, src: &str, attr: &str) -> bool {
    let Some(body) = c.field(Field::Body) else {
        return false;
    };
    let mut cursor = body.walk();
    let mut stack: Vec<(Node<'_>, bool)> = body
        .named_children(&mut cursor)
        .map(|n| (n, true))
        .collect();
    while let Some((n, top)) = stack.pop() {
        match n.kind_name() {
            "class_definition" => continue,
            "function_definition"
                if top
                    && n.field(Field::Name)
                        .is_some_and(|x| &src[x.byte_range()] == attr) =>
            {
                return true;
            }
            "assignment" | "augmented_assignment" => {
                if let Some(left) = n.field(Field::Left) {
                    if top && left.kind_name() == "identifier" && &src[left.byte_range()] == attr {
                        return true;
                    }
                    if assigns_self_attr(left, src, attr) {
                        return true;
                    }
                }
            }
            _ => {}
        }
        // A decorated method or an assignment statement stays at the body's level.
        let keeps = top
            && matches!(
                n.kind_name(),
                "decorated_definition" | "expression_statement"
            );
        stack.extend(n.named_children(&mut cursor).map(|k| (k, keeps)));
    }
    false
}

/// The texts that the classes of the file derived from `class` give `attr`, when
/// every one of them that defines it does so in its body with one plain string
/// literal (`_key_template: ClassVar[str] = ":jobs:{}"`): no prefix, no escape, no
/// concatenation. `None` when one defines it any other way (a method, an assignment
/// on `self`, an expression) or the file has too many classes to tell.
pub(crate) fn derived_literals(
    src: &str,
    root: Node<'_>,
    class: &str,
    attr: &str,
) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for c in derived_classes(src, root, class)? {
        if !defines(c, src, attr) {
            continue;
        }
        let body = c.field(Field::Body)?;
        let mut cursor = body.walk();
        let mut found: Option<String> = None;
        for n in body.named_children(&mut cursor) {
            let assign = match n.kind_name() {
                "expression_statement" => {
                    n.named_child(0).filter(|a| a.kind_name() == "assignment")
                }
                _ => None,
            };
            let Some(a) = assign else {
                continue;
            };
            let Some(left) = a.field(Field::Left) else {
                continue;
            };
            if left.kind_name() != "identifier" || &src[left.byte_range()] != attr {
                continue;
            }
            // Assigned twice in the body: not read.
            if found.is_some() {
                return None;
            }
            found = Some(plain_literal(a.field(Field::Right)?, src)?);
        }
        // Defined some other way (a method, on `self`).
        out.push(found?);
    }
    Some(out)
}

/// The text of a plain string literal: `"…"` or `'…'` with no prefix, no escape
/// and no implicit concatenation.
pub(crate) fn plain_literal(n: Node<'_>, src: &str) -> Option<String> {
    if n.kind_name() != "string" {
        return None;
    }
    let t = &src[n.byte_range()];
    let q = t.chars().next()?;
    if !matches!(q, '"' | '\'') || t.len() < 2 || !t.ends_with(q) || t.contains('\\') {
        return None;
    }
    let inner = &t[1..t.len() - 1];
    (!inner.contains(q) && !inner.contains('\n')).then(|| inner.to_string())
}

/// Whether an assignment's target (`self.attr`, also in a tuple of targets) is
/// `self.attr`.
fn assigns_self_attr(target: Node<'_>, src: &str, attr: &str) -> bool {
    match target.kind_name() {
        "attribute" => {
            target
                .field(Field::Object)
                .is_some_and(|o| &src[o.byte_range()] == "self")
                && target
                    .field(Field::Attribute)
                    .is_some_and(|a| &src[a.byte_range()] == attr)
        }
        "pattern_list" | "tuple_pattern" | "list_pattern" => {
            let mut cursor = target.walk();
            let kids: Vec<Node<'_>> = target.named_children(&mut cursor).collect();
            kids.into_iter().any(|k| assigns_self_attr(k, src, attr))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_overrides_are_read_and_any_other_definition_is_not() {
        let src = r#"
from typing import ClassVar
from models.base import Plain

class Job(Plain):
    key: ClassVar[str] = ":jobs:{}"
    other = 'x'

class Worker(Job):
    key = ":workers:{}"

class Computed(Plain):
    other = "a" + "b"

class Escaped(Plain):
    name = "a\x7b"

class Method(Plain):
    def name2(self):
        return "n"
"#;
        let tree = crate::syntax::tests::parse(src);
        let root = tree.root_node();
        assert_eq!(
            derived_literals(src, root, "Plain", "key"),
            Some(vec![":jobs:{}".to_string(), ":workers:{}".to_string()])
        );
        assert_eq!(derived_literals(src, root, "Plain", "other"), None);
        assert_eq!(derived_literals(src, root, "Plain", "name"), None);
        assert_eq!(derived_literals(src, root, "Plain", "name2"), None);
        assert_eq!(
            derived_literals(src, root, "Plain", "absent"),
            Some(Vec::new())
        );
    }

    fn check(src: &str, attr: &str) -> Option<bool> {
        let tree = crate::syntax::tests::parse(src);
        subclass_defines(src, tree.root_node(), "Plain", attr)
    }

    #[test]
    fn finds_overrides_in_body_on_self_and_through_a_subclass() {
        let src = r#"
from shop import base

class Tagged(base.Plain):
    prefix = "{plain}:"

class Later(Mid):
    def __init__(self):
        self.name, self.other = "a", "b"

class Mid(Plain):
    @property
    def key(self):
        return "k"

class Unrelated(object):
    items = "x"
"#;
        assert_eq!(check(src, "prefix"), Some(true));
        assert_eq!(check(src, "name"), Some(true));
        assert_eq!(check(src, "other"), Some(true));
        assert_eq!(check(src, "key"), Some(true));
        assert_eq!(check(src, "items"), Some(false));
        assert_eq!(check(src, "absent"), Some(false));
    }

    #[test]
    fn class_headers_that_may_name_the_base() {
        assert!(may_derive("class A(base.Plain):\n    pass\n", "Plain"));
        assert!(may_derive("  class A(\n    Plain,\n):\n", "Plain"));
        assert!(!may_derive("class A(Plainer):\n", "Plain"));
        assert!(!may_derive("class A:\n    x = Plain()\n", "Plain"));
    }

    #[test]
    fn a_local_or_another_objects_attribute_is_no_override() {
        let src = r#"
class Sub(Plain):
    def m(self, other):
        prefix = "x"
        other.prefix = "y"
        return prefix
"#;
        assert_eq!(check(src, "prefix"), Some(false));
    }
}
