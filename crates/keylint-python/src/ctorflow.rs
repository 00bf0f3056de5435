//! Objects whose class is known only from the project's call sites.
//!
//! `def __init__(self, driver): self.driver = driver` with no annotation says nothing
//! about `driver`. When every place of the project that constructs the class passes,
//! for that parameter, `self` of one class of the project (`QueueController(self)` in
//! a method of `DataDriver`), the attribute holds an instance of that class, and what
//! the class's facts say of it (`self.driver.connection`, a client) holds.
//!
//! The places that construct a class are found through the reverse index of the
//! project (the files whose text mentions the class's name, see
//! [`crate::ModuleLoader::mentions`]), then read in each file's syntax tree. Every
//! mention must be understood: an import, an annotation, `isinstance`, a class
//! attribute (`Job.fetch(…)`), a re-export under the same name, or a call whose
//! argument is known. Anything else (a subclass, the class passed as a value, an
//! import under another name, `*args`, an argument left to its default, an argument
//! that is not `self`) leaves the parameter unknown, and so does a class the file
//! itself builds with `cls(…)`, `type(self)(…)` or `self.__class__(…)`.

use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// Mentions of a class read in one file, at most: past it, the file is not
/// understood.
const MAX_MENTIONS: usize = 256;

/// How a constructor call passes the parameter followed.
pub(crate) struct Wanted<'a> {
    /// The class's name.
    pub class: &'a str,
    /// The parameter's position after `self`.
    pub index: usize,
    /// The parameter's name (for keyword arguments).
    pub param: &'a str,
    /// The file defines the class (its own definition is one of the mentions).
    pub own: bool,
}

/// The classes (module-level classes of this file, by name) whose `self` each
/// constructor call of `w.class` in this file passes for the parameter, one per
/// call; `None` when a mention of the class is not understood.
pub(crate) fn call_sites(src: &str, root: Node<'_>, w: &Wanted<'_>) -> Option<Vec<String>> {
    constructions(src, root, w.class, w.own)?
        .into_iter()
        .map(|call| site(call, src, w))
        .collect()
}

/// The constructor calls of `class` in this file (`Job(…)`, `jobs.Job(…)`); `None`
/// when a mention of the class is not understood. `own`: the file defines the
/// class.
pub(crate) fn constructions<'t>(
    src: &str,
    root: Node<'t>,
    class: &str,
    own: bool,
) -> Option<Vec<Node<'t>>> {
    let w = Wanted {
        class,
        index: 0,
        param: "",
        own,
    };
    let w = &w;
    let mut mentions = Vec::new();
    collect(root, src, w.class, &mut mentions)?;
    let mut out = Vec::new();
    let mut defined = 0usize;
    for id in mentions {
        let parent = id.parent()?;
        match parent.kind_name() {
            "class_definition" if parent.field(Field::Name) == Some(id) => {
                // The class's own definition, at module level, once; a `@dataclass`
                // gives back the class it decorates.
                if !w.own || !at_module_level(parent, src) {
                    return None;
                }
                defined += 1;
                if src[parent.byte_range()].contains("__class__")
                    || src[parent.byte_range()].contains("type(self)")
                    || has_cls_call(parent, src)
                {
                    return None;
                }
            }
            "call" if parent.field(Field::Function) == Some(id) => {
                out.push(parent);
            }
            "attribute" => {
                if parent.field(Field::Object) == Some(id) {
                    // `Job.fetch(…)`, `Job.PREFIX`: not a construction.
                    let attr = parent.field(Field::Attribute)?;
                    if matches!(&src[attr.byte_range()], "__init__" | "__new__" | "__call__") {
                        return None;
                    }
                    continue;
                }
                // `mod.Job(…)`.
                let gp = parent.parent()?;
                if gp.kind_name() == "call" && gp.field(Field::Function) == Some(parent) {
                    out.push(gp);
                } else if !reexport(gp, src, w.class) {
                    return None;
                }
            }
            "dotted_name" | "aliased_import" | "import_from_statement" | "import_statement" => {
                if !plain_import(parent, src, w.class) {
                    return None;
                }
            }
            // `Job = jobs.Job`: the name re-exported.
            "assignment" if parent.field(Field::Left) == Some(id) => {
                let right = parent.field(Field::Right)?;
                let same = match right.kind_name() {
                    "attribute" => right
                        .field(Field::Attribute)
                        .is_some_and(|a| &src[a.byte_range()] == w.class),
                    _ => false,
                };
                if !same || !reexport(parent, src, w.class) {
                    return None;
                }
            }
            "argument_list" => {
                let call = parent.parent()?;
                if call.kind_name() != "call" {
                    return None;
                }
                let f = call.field(Field::Function)?;
                if !matches!(&src[f.byte_range()], "isinstance" | "issubclass") {
                    return None;
                }
            }
            _ if in_annotation(id) => {}
            _ => return None,
        }
    }
    if w.own && defined != 1 {
        return None;
    }
    Some(out)
}

/// Whether class definition `class` is at module level, undecorated or decorated
/// only with `dataclass` (`@dataclass`, `@dataclasses.dataclass(frozen=True)`).
fn at_module_level(class: Node<'_>, src: &str) -> bool {
    let Some(p) = class.parent() else {
        return false;
    };
    match p.kind_name() {
        "module" => true,
        "decorated_definition" => {
            let mut cursor = p.walk();
            let dataclass_only = p
                .named_children(&mut cursor)
                .filter(|d| d.kind_name() == "decorator")
                .all(|d| {
                    let t = src[d.byte_range()].trim_start_matches('@').trim();
                    let head = t.split('(').next().unwrap_or(t).trim();
                    matches!(head, "dataclass" | "dataclasses.dataclass")
                });
            dataclass_only && p.parent().is_some_and(|g| g.kind_name() == "module")
        }
        _ => false,
    }
}

/// Every identifier `name` under `n`; `None` past [`MAX_MENTIONS`].
fn collect<'t>(n: Node<'t>, src: &str, name: &str, out: &mut Vec<Node<'t>>) -> Option<()> {
    let mut cursor = n.walk();
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if n.kind_name() == "identifier" {
            if &src[n.byte_range()] == name {
                out.push(n);
                if out.len() > MAX_MENTIONS {
                    return None;
                }
            }
            continue;
        }
        // Strings and comments hold no mention that matters.
        if matches!(n.kind_name(), "string" | "comment") {
            continue;
        }
        for c in n.children(&mut cursor) {
            stack.push(c);
        }
    }
    Some(())
}

/// Whether an identifier is inside a type annotation (`x: Job`, `-> Job`).
fn in_annotation(id: Node<'_>) -> bool {
    let mut n = id;
    while let Some(p) = n.parent() {
        if p.kind_name() == "type" {
            return true;
        }
        if p.kind_name().ends_with("statement") || p.is_func_kind() || p.kind_name() == "module" {
            return false;
        }
        n = p;
    }
    false
}

/// An import of the class under its own name (`from .job import Job`,
/// `import app.job`), not `from .job import Job as J` nor an import of something
/// else as `Job`.
fn plain_import(n: Node<'_>, src: &str, class: &str) -> bool {
    let mut p = Some(n);
    while let Some(x) = p {
        match x.kind_name() {
            "aliased_import" => {
                let name = x.field(Field::Name);
                let alias = x.field(Field::Alias);
                let last = name.map(|n| {
                    let t = &src[n.byte_range()];
                    t.rsplit('.').next().unwrap_or(t).to_string()
                });
                return alias.is_some_and(|a| &src[a.byte_range()] == class)
                    && last.as_deref() == Some(class);
            }
            "import_from_statement" | "import_statement" => return true,
            "dotted_name" => p = x.parent(),
            _ => return false,
        }
    }
    false
}

/// `Job = jobs.Job` at module level: a re-export under the same name, whose users
/// mention the name too.
fn reexport(assign: Node<'_>, src: &str, class: &str) -> bool {
    if assign.kind_name() != "assignment" {
        return false;
    }
    let at_module = assign
        .parent()
        .and_then(|s| s.parent())
        .is_some_and(|m| m.kind_name() == "module");
    at_module
        && assign
            .field(Field::Left)
            .is_some_and(|l| l.kind_name() == "identifier" && &src[l.byte_range()] == class)
}

/// Whether the class calls its first parameter in a classmethod (`cls(…)`).
fn has_cls_call(class: Node<'_>, src: &str) -> bool {
    let body = &src[class.byte_range()];
    body.contains("cls(")
}

/// The class whose `self` one constructor call passes for the parameter.
fn site(call: Node<'_>, src: &str, w: &Wanted<'_>) -> Option<String> {
    self_class(passed(call, src, w.index, w.param)??, src)
}

/// What constructor call `call` passes for the parameter at `index` after `self`
/// (named `param`): the argument, by position or keyword (the last one written), or
/// `Some(None)` when it leaves the parameter to its default; `None` when a splat may
/// pass it or the arguments are not an argument list.
fn passed<'t>(call: Node<'t>, src: &str, index: usize, param: &str) -> Option<Option<Node<'t>>> {
    let args = call.field(Field::Arguments)?;
    if args.kind_name() != "argument_list" {
        return None;
    }
    let mut cursor = args.walk();
    let mut pos = 0usize;
    let mut found = None;
    for a in args.named_children(&mut cursor) {
        match a.kind_name() {
            "list_splat" | "dictionary_splat" | "parenthesized_list_splat" => return None,
            "comment" => {}
            "keyword_argument" => {
                let name = a.field(Field::Name)?;
                if &src[name.byte_range()] == param {
                    found = Some(a.field(Field::Value)?);
                }
            }
            _ => {
                if pos == index {
                    found = Some(a);
                }
                pos += 1;
            }
        }
    }
    Some(found)
}

/// The class whose instance `arg` is when it is `self` of an instance method of a
/// module-level class.
fn self_class(arg: Node<'_>, src: &str) -> Option<String> {
    if arg.kind_name() != "identifier" {
        return None;
    }
    let mut n = arg;
    let func = loop {
        let p = n.parent()?;
        match p.kind_name() {
            "function_definition" => break p,
            "lambda" | "class_definition" | "module" => return None,
            _ => n = p,
        }
    };
    let mut holder = func.parent()?;
    let mut decorators = Vec::new();
    if holder.kind_name() == "decorated_definition" {
        let mut cursor = holder.walk();
        for d in holder.named_children(&mut cursor) {
            if d.kind_name() == "decorator" {
                decorators.push(src[d.byte_range()].to_string());
            }
        }
        holder = holder.parent()?;
    }
    if decorators
        .iter()
        .any(|d| d.contains("staticmethod") || d.contains("classmethod"))
    {
        return None;
    }
    let class = holder.parent()?;
    if holder.kind_name() != "block"
        || class.kind_name() != "class_definition"
        || class.parent()?.kind_name() != "module"
    {
        return None;
    }
    let params = func.field(Field::Parameters)?;
    let mut cursor = params.walk();
    let first = params.named_children(&mut cursor).next()?;
    if first.kind_name() != "identifier" || src[first.byte_range()] != src[arg.byte_range()] {
        return None;
    }
    // `self` rebound in the method is not followed.
    let body = &src[func.byte_range()];
    let me = &src[arg.byte_range()];
    if body.contains(&format!("{me} = ")) {
        return None;
    }
    let name = class.field(Field::Name)?;
    Some(src[name.byte_range()].to_string())
}

/// Whether constructor call `call` leaves the parameter at `index` after `self`
/// (named `param`) to its default: no argument at its place, no keyword of that
/// name, and no splat that may pass it.
pub(crate) fn keeps_default(call: Node<'_>, src: &str, index: usize, param: &str) -> bool {
    matches!(passed(call, src, index, param), Some(None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sites(src: &str, own: bool) -> Option<Vec<String>> {
        let tree = crate::parse(src).unwrap();
        let w = Wanted {
            class: "Ctl",
            index: 0,
            param: "driver",
            own,
        };
        call_sites(src, tree.root_node(), &w)
    }

    #[test]
    fn constructions_pass_self_of_a_class() {
        let src = "from .ctl import Ctl\nfrom . import ctl\n\n\
class D:\n    def a(self):\n        return Ctl(self)\n\n    def b(self):\n        return ctl.Ctl(driver=self)\n\n\
def check(x: Ctl) -> 'Ctl':\n    return isinstance(x, Ctl) and Ctl.PREFIX\n";
        assert_eq!(sites(src, false), Some(vec!["D".into(), "D".into()]));
        // The defining file: its own definition once, at module level.
        let own = "class Ctl:\n    def __init__(self, driver):\n        self.driver = driver\n";
        assert_eq!(sites(own, true), Some(vec![]));
        assert_eq!(sites(own, false), None);
        // A re-export under the same name.
        assert_eq!(
            sites("from . import ctl\nCtl = ctl.Ctl\n", false),
            Some(vec![])
        );
    }

    #[test]
    fn anything_else_is_not_understood() {
        for src in [
            // An argument that is not `self`, a default, a splat.
            "def f(d):\n    return Ctl(d)\n",
            "class D:\n    def a(self):\n        return Ctl()\n",
            "class D:\n    def a(self):\n        return Ctl(*[self])\n",
            // `self` of a static method, of a nested class, rebound.
            "class D:\n    @staticmethod\n    def a(self):\n        return Ctl(self)\n",
            "def g():\n    class D:\n        def a(self):\n            return Ctl(self)\n",
            "class D:\n    def a(self):\n        self = 1\n        return Ctl(self)\n",
            // A subclass, the class as a value, an import under another name.
            "class Sub(Ctl):\n    pass\n",
            "FACTORY = Ctl\n",
            "from .ctl import Ctl as C\n",
            "from .other import Thing as Ctl\n",
            // `Ctl.__init__(…)` called by hand.
            "class D:\n    def a(self):\n        Ctl.__init__(self, self)\n",
        ] {
            assert_eq!(sites(src, false), None, "{src}");
        }
        // The class builds itself with `cls(…)` or `type(self)(…)`.
        for own in [
            "class Ctl:\n    @classmethod\n    def make(cls, d):\n        return cls(d)\n",
            "class Ctl:\n    def copy(self):\n        return type(self)(self.driver)\n",
        ] {
            assert_eq!(sites(own, true), None, "{own}");
        }
    }

    #[test]
    fn defaults_kept_by_every_construction() {
        let kept = |src: &str, own: bool| -> Option<bool> {
            let tree = crate::parse(src).unwrap();
            let calls = constructions(src, tree.root_node(), "Cfg", own)?;
            Some(calls.iter().all(|c| keeps_default(*c, src, 1, "pattern")))
        };
        // The field's own definition, decorated with `dataclass`, and constructions
        // that pass other parameters only.
        let own = "from dataclasses import dataclass\n\n@dataclass(frozen=True)\nclass Cfg:\n    \
ttl: int = 5\n    pattern: str = 'q:{name}'\n\nA = Cfg()\nB = Cfg(7)\nC = Cfg(ttl=9)\n";
        assert_eq!(kept(own, true), Some(true));
        // A construction passes the parameter, by position, by name, or maybe by a
        // splat.
        for src in [
            "X = Cfg(1, 'p:{x}')\n",
            "X = Cfg(pattern='p')\n",
            "X = Cfg(**opts)\n",
            "X = Cfg(*a)\n",
        ] {
            assert_eq!(kept(src, false), Some(false), "{src}");
        }
        // Another decorator may give back another object.
        let other = "@register\n@dataclass\nclass Cfg:\n    pattern: str = 'q:{name}'\n";
        assert_eq!(kept(other, true), None);
    }
}
