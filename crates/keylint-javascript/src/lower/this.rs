//! What `this` is: the object a class method or a prototype method runs on, its key
//! builder methods (`this.toKey('wait')`), and the prefixes its keys begin with.

use super::*;

/// The object `this` stands for where a node is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owner<'t> {
    /// An instance of this class.
    Class(Node<'t>),
    /// An instance made by the constructor function whose name is here: `this` in
    /// `function Queue(…) {…}` and in `Queue.prototype.m = function (…) {…}`.
    Proto(&'t str),
}

impl<'t> Analyzer<'t> {
    /// Whether `n` is `this.<name>` (the left side of an assignment to a field).
    pub(super) fn is_this_member(&self, n: Option<Node<'t>>, name: &str) -> bool {
        n.is_some_and(|l| {
            l.kind() == "member_expression"
                && l.child_by_field_name("object")
                    .is_some_and(|o| o.kind() == "this")
                && l.child_by_field_name("property")
                    .is_some_and(|p| text(p, self.src) == name)
        })
    }

    /// Who `this` is at `n`, when the code shows it: arrow functions see the `this`
    /// of their scope; a plain function is a method only as a constructor written
    /// with a capital (`function Queue`) or as `X.prototype.m = function`.
    pub(super) fn this_owner(&self, n: Node<'t>) -> Option<Owner<'t>> {
        for (_, p) in self.ancestry(n) {
            match p.kind() {
                "class_declaration" | "class" | "abstract_class_declaration" => {
                    return Some(Owner::Class(p))
                }
                "function_declaration" => {
                    let name = text(p.child_by_field_name("name")?, self.src);
                    return name
                        .starts_with(|c: char| c.is_ascii_uppercase())
                        .then_some(Owner::Proto(name));
                }
                "function_expression" | "function" => {
                    let mut up = self.parent(p)?;
                    while up.kind() == "parenthesized_expression" {
                        up = self.parent(up)?;
                    }
                    if up.kind() == "variable_declarator" {
                        // `const Queue = function Queue(…) {…}`: a constructor.
                        let name = text(up.child_by_field_name("name")?, self.src);
                        return name
                            .starts_with(|c: char| c.is_ascii_uppercase())
                            .then_some(Owner::Proto(name));
                    }
                    if up.kind() != "assignment_expression" {
                        return None;
                    }
                    let left = up.child_by_field_name("left")?;
                    return self.prototype_of(left).map(|(x, _)| Owner::Proto(x));
                }
                "generator_function_declaration" | "generator_function" => return None,
                _ => {}
            }
        }
        None
    }

    /// Whether a class of the file that extends `class` (by name) defines method `m`.
    pub(super) fn overridden_in_subclass(&self, class: &str, m: &str) -> bool {
        let mut stack = vec![self.root];
        let mut c = self.root.walk();
        while let Some(n) = stack.pop() {
            if matches!(
                n.kind(),
                "class_declaration" | "class" | "abstract_class_declaration"
            ) {
                let mut c2 = n.walk();
                let extends = n
                    .named_children(&mut c2)
                    .find(|h| h.kind() == "class_heritage")
                    .is_some_and(|h| {
                        text(h, self.src)
                            .split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$'))
                            .any(|w| w == class)
                    });
                if extends {
                    if let Some(body) = n.child_by_field_name("body") {
                        let mut c3 = body.walk();
                        let defines = body.named_children(&mut c3).any(|d| {
                            matches!(
                                d.kind(),
                                "method_definition"
                                    | "field_definition"
                                    | "public_field_definition"
                            ) && d
                                .child_by_field_name("name")
                                .or_else(|| d.child_by_field_name("property"))
                                .is_some_and(|x| text(x, self.src) == m)
                        });
                        if defines {
                            return true;
                        }
                    }
                }
            }
            stack.extend(n.named_children(&mut c));
        }
        false
    }

    /// `X.prototype.m`: `X` and `m`.
    fn prototype_of(&self, left: Node<'t>) -> Option<(&'t str, &'t str)> {
        let x = clients::prototype_target(left, self.src)?;
        let m = left.child_by_field_name("property")?;
        Some((text(x, self.src), text(m, self.src)))
    }

    /// A name for the owner, the same wherever its `this` is read.
    pub(super) fn owner_id(&self, o: Owner<'t>) -> String {
        match o {
            Owner::Class(c) => format!("class@{}", c.start_byte()),
            Owner::Proto(x) => format!("{x}.prototype"),
        }
    }

    /// The function of method `m` that `this.m(…)` calls at `at`: an instance method
    /// of the enclosing class (not a getter, setter or static one), or the function
    /// assigned to `X.prototype.m` at the top level of the file. `None` when the
    /// class extends another one and does not define it, or it is defined twice.
    pub(super) fn this_method(&self, at: Node<'t>, m: &str) -> Option<Node<'t>> {
        match self.this_owner(at)? {
            Owner::Class(class) => {
                let body = class.child_by_field_name("body")?;
                let mut c = body.walk();
                let mut found = None;
                for d in body.named_children(&mut c) {
                    if d.kind() != "method_definition" {
                        continue;
                    }
                    if d.child_by_field_name("name").map(|x| text(x, self.src)) != Some(m) {
                        continue;
                    }
                    let mut c2 = d.walk();
                    let plain = d
                        .children(&mut c2)
                        .all(|k| !matches!(k.kind(), "static" | "get" | "set" | "*" | "async"));
                    if !plain || found.is_some() {
                        return None;
                    }
                    found = Some(d);
                }
                // A subclass of the file that defines it too may be what `this` is.
                let name = class.child_by_field_name("name").map(|n| text(n, self.src));
                if name.is_some_and(|x| self.overridden_in_subclass(x, m)) {
                    return None;
                }
                found
            }
            Owner::Proto(x) => {
                let mut c = self.root.walk();
                let mut found = None;
                for s in self.root.named_children(&mut c) {
                    let Some((l, r)) = assignment_statement(s) else {
                        continue;
                    };
                    if self.prototype_of(l) != Some((x, m)) {
                        continue;
                    }
                    let r = unwrap_expr(r);
                    if found.is_some() || !matches!(r.kind(), "function_expression" | "function") {
                        return None;
                    }
                    found = Some(r);
                }
                found
            }
        }
    }
}

/// Whether a hole label names a prefix from options or kept on an object
/// (`this.keyPrefix`, `this.settings.keyPrefix`, `opts.prefix || 'bull'`,
/// `settings.prefix || defaults.prefix`): every alternative of a `||` (or `??`) is a
/// string literal or a name or property path whose last name ends with `prefix`, and
/// at least one is not a literal.
pub(crate) fn is_prefix_label(label: &str) -> bool {
    let mut named = false;
    for alt in label.split("||").flat_map(|a| a.split("??")) {
        let a = alt.trim();
        let quoted = a.len() >= 2
            && (a.starts_with('\'') && a.ends_with('\'') || a.starts_with('"') && a.ends_with('"'))
            && !a[1..a.len() - 1].contains(['\'', '"', '\\']);
        if quoted {
            continue;
        }
        let path = a.split('.').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
        });
        let last = a.rsplit('.').next().unwrap_or(a).to_ascii_lowercase();
        if !path || !last.ends_with("prefix") {
            return false;
        }
        named = true;
    }
    named
}
