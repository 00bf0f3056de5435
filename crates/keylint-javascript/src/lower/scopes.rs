//! Names resolved through their scopes: parameters, block declarations, loops.

use super::*;

impl<'t> Analyzer<'t> {
    /// What `name` is bound to at `at`.
    pub(super) fn lookup(&mut self, name: &str, at: Node<'t>) -> Decl<'t> {
        let mut cur = at;
        let mut steps = 0;
        while let Some(p) = self.parent(cur) {
            steps += 1;
            if steps > 400 {
                return Decl::Other;
            }
            if let Some(d) = self.declared_in(p, cur, name) {
                return d;
            }
            cur = p;
        }
        Decl::Free
    }

    /// A declaration of `name` made by scope node `scope` (reached from its child
    /// `from`).
    pub(super) fn declared_in(
        &mut self,
        scope: Node<'t>,
        from: Node<'t>,
        name: &str,
    ) -> Option<Decl<'t>> {
        let kind = scope.kind();
        if is_function(kind) {
            if let Some(params) = scope.child_by_field_name("parameters") {
                let mut c = params.walk();
                for p in params.named_children(&mut c) {
                    if let Some(d) = self.param_binds(p, name) {
                        return Some(d);
                    }
                }
            }
            if let Some(p) = scope.child_by_field_name("parameter") {
                if text(p, self.src) == name {
                    return Some(Decl::Param(p));
                }
            }
            if matches!(kind, "function_expression" | "function") {
                if let Some(n) = scope.child_by_field_name("name") {
                    if text(n, self.src) == name {
                        return Some(Decl::Other);
                    }
                }
            }
            return None;
        }
        match kind {
            "statement_block" | "program" | "class_static_block" | "switch_case"
            | "switch_default" => {
                let key = (scope.id(), name.to_string());
                if let Some(d) = self.decl_cache.get(&key) {
                    return *d;
                }
                let d = self.scan_block(scope, name);
                self.decl_cache.insert(key, d);
                d
            }
            // A loop that declares the name (`for (const x of xs)`, `for (let i = 0; …)`).
            "for_in_statement" => {
                let _ = from;
                let declares = scope.child_by_field_name("kind").is_some();
                let left = scope.child_by_field_name("left")?;
                (declares && self.pattern_mentions(left, name)).then_some(Decl::Other)
            }
            "for_statement" => {
                let init = scope.child_by_field_name("initializer")?;
                let declares =
                    matches!(init.kind(), "lexical_declaration" | "variable_declaration");
                (declares && self.pattern_mentions(init, name)).then_some(Decl::Other)
            }
            "catch_clause" => scope
                .child_by_field_name("parameter")
                .filter(|p| text(*p, self.src).contains(name))
                .map(|_| Decl::Other),
            "class_declaration" | "class" => None,
            _ => None,
        }
    }

    pub(super) fn param_binds(&self, p: Node<'t>, name: &str) -> Option<Decl<'t>> {
        match p.kind() {
            "identifier" => (text(p, self.src) == name).then_some(Decl::Param(p)),
            "required_parameter" | "optional_parameter" => {
                let pat = p
                    .child_by_field_name("pattern")
                    .or_else(|| p.child_by_field_name("name"))?;
                if pat.kind() == "identifier" {
                    if text(pat, self.src) == name {
                        return Some(Decl::Param(p));
                    }
                    return None;
                }
                self.pattern_mentions(pat, name).then_some(Decl::Other)
            }
            "assignment_pattern" => {
                let left = p.child_by_field_name("left")?;
                if left.kind() == "identifier" && text(left, self.src) == name {
                    return Some(Decl::Other);
                }
                self.pattern_mentions(left, name).then_some(Decl::Other)
            }
            _ => self.pattern_mentions(p, name).then_some(Decl::Other),
        }
    }

    pub(super) fn pattern_mentions(&self, p: Node<'t>, name: &str) -> bool {
        text(p, self.src)
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .any(|w| w == name)
    }

    /// The declaration of `name` among the statements of a block.
    pub(super) fn scan_block(&mut self, block: Node<'t>, name: &str) -> Option<Decl<'t>> {
        let mut c = block.walk();
        let mut found: Option<Decl<'t>> = None;
        for s in block.named_children(&mut c) {
            let s = if s.kind() == "export_statement" {
                match s.child_by_field_name("declaration") {
                    Some(d) => d,
                    None => continue,
                }
            } else {
                s
            };
            let d = match s.kind() {
                "lexical_declaration" | "variable_declaration" => {
                    let is_const = s.child(0).is_some_and(|k| text(k, self.src) == "const");
                    let mut c2 = s.walk();
                    let mut d = None;
                    for decl in s.named_children(&mut c2) {
                        if decl.kind() != "variable_declarator" {
                            continue;
                        }
                        let Some(n) = decl.child_by_field_name("name") else {
                            continue;
                        };
                        let value = decl.child_by_field_name("value");
                        if value.is_some_and(|v| {
                            self.required(v).is_some() || self.required_path(v).is_some()
                        }) && self.pattern_mentions(n, name)
                        {
                            // `const X = require('ioredis')`: an import.
                            d = Some(Decl::Free);
                            continue;
                        }
                        if n.kind() == "identifier" {
                            if text(n, self.src) != name {
                                continue;
                            }
                            d = Some(match value {
                                Some(v) if is_const || !self.assigned.contains(name) => {
                                    Decl::Value(v)
                                }
                                _ if !is_const => Decl::Assigned(n, value),
                                _ => Decl::Other,
                            });
                        } else if self.pattern_mentions(n, name) {
                            d = Some(Decl::Other);
                        }
                    }
                    d
                }
                "function_declaration" => s
                    .child_by_field_name("name")
                    .filter(|n| text(*n, self.src) == name)
                    .map(|_| Decl::Func(s)),
                "generator_function_declaration"
                | "class_declaration"
                | "abstract_class_declaration" => s
                    .child_by_field_name("name")
                    .filter(|n| text(*n, self.src) == name)
                    .map(|_| Decl::Other),
                // The names it binds, not its source (`'./keys'`).
                "import_statement" => {
                    let mut c2 = s.walk();
                    let binds = s
                        .named_children(&mut c2)
                        .filter(|x| x.kind() != "string")
                        .any(|x| self.pattern_mentions(x, name));
                    binds.then_some(Decl::Free)
                }
                _ => None,
            };
            if let Some(d) = d {
                if found.is_some() {
                    // Declared twice (`var`): not one value.
                    return Some(Decl::Other);
                }
                found = Some(d);
            }
        }
        found
    }
}
