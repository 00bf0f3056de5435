//! Cheap access to the syntax tree.
//!
//! tree-sitter answers some questions slowly: `Node::kind` measures a C string and
//! checks it is UTF-8, `Node::child_by_field_name` looks the field up by name, and
//! `Node::parent` walks down from the root every time. This module answers them from
//! tables made once per process (kind names and field ids of the Python grammar) and
//! from a [`Nav`] built once per file (every node's parent and children).
//!
//! Every answer is the one tree-sitter gives: only how it is found changes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;
use tree_sitter::Node;

/// Fields of the Python grammar that the frontend reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Alias,
    Arguments,
    Attribute,
    Body,
    Condition,
    Consequence,
    Definition,
    Expression,
    FormatSpecifier,
    Function,
    Key,
    Left,
    ModuleName,
    Name,
    Object,
    Operator,
    Parameters,
    ReturnType,
    Right,
    Superclasses,
    Type,
    TypeConversion,
    Value,
}

/// The grammar's name of each [`Field`], in declaration order.
const FIELD_NAMES: [&str; 23] = [
    "alias",
    "arguments",
    "attribute",
    "body",
    "condition",
    "consequence",
    "definition",
    "expression",
    "format_specifier",
    "function",
    "key",
    "left",
    "module_name",
    "name",
    "object",
    "operator",
    "parameters",
    "return_type",
    "right",
    "superclasses",
    "type",
    "type_conversion",
    "value",
];

/// Kind classes, as bits of [`Tables::flags`].
const CALL: u8 = 1;
/// `function_definition` or `lambda`.
const FUNC: u8 = 2;
/// A kind that opens a scope (see [`crate::index::is_scope`]).
const SCOPE: u8 = 4;

struct Tables {
    /// The name of each kind id (the name `Node::kind` gives).
    kinds: Vec<Option<&'static str>>,
    /// Kind classes of each kind id.
    flags: Vec<u8>,
    /// The id of each [`Field`] (0: the grammar has no such field).
    fields: [u16; FIELD_NAMES.len()],
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        let count = lang.node_kind_count().min(usize::from(u16::MAX));
        let kinds: Vec<Option<&'static str>> = (0..count)
            .map(|id| lang.node_kind_for_id(id as u16))
            .collect();
        let flags = kinds
            .iter()
            .map(|k| match k {
                Some("call") => CALL,
                Some("function_definition" | "lambda") => FUNC | SCOPE,
                Some(k) if crate::index::is_scope(k) => SCOPE,
                _ => 0,
            })
            .collect();
        let mut fields = [0u16; FIELD_NAMES.len()];
        for (slot, name) in fields.iter_mut().zip(FIELD_NAMES) {
            *slot = lang.field_id_for_name(name).map_or(0, |f| f.get());
        }
        Tables {
            kinds,
            flags,
            fields,
        }
    })
}

fn flags_of(kind_id: u16) -> u8 {
    tables()
        .flags
        .get(usize::from(kind_id))
        .copied()
        .unwrap_or(0)
}

/// Fast forms of `Node` methods.
/// What `n` awaits when it is an `await` expression, else `n` itself; `None` for an
/// `await` with nothing after it (a broken tree).
pub(crate) fn unawaited(n: Node<'_>) -> Option<Node<'_>> {
    if n.kind_name() == "await" {
        n.named_child(0)
    } else {
        Some(n)
    }
}

pub(crate) trait NodeExt<'t> {
    /// `Node::kind`, from a table.
    fn kind_name(&self) -> &'static str;
    /// `Node::child_by_field_name`, by field id.
    fn field(&self, f: Field) -> Option<Node<'t>>;
    /// `function_definition` or `lambda`.
    fn is_func_kind(&self) -> bool;
    /// A kind that opens a scope ([`crate::index::is_scope`]).
    fn is_scope_kind(&self) -> bool;
}

impl<'t> NodeExt<'t> for Node<'t> {
    #[inline]
    fn kind_name(&self) -> &'static str {
        match tables().kinds.get(usize::from(self.kind_id())) {
            Some(Some(k)) => k,
            _ => self.kind(),
        }
    }

    #[inline]
    fn field(&self, f: Field) -> Option<Node<'t>> {
        match tables().fields[f as usize] {
            0 => None,
            id => self.child_by_field_id(id),
        }
    }

    #[inline]
    fn is_func_kind(&self) -> bool {
        flags_of(self.kind_id()) & FUNC != 0
    }

    #[inline]
    fn is_scope_kind(&self) -> bool {
        flags_of(self.kind_id()) & SCOPE != 0
    }
}

/// A fast hasher for keys made of node ids (addresses) and other small integers,
/// which no input can choose. (Maps keyed by names keep the default hasher.)
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl IdHasher {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;

    #[inline]
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(Self::K);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // The multiplication leaves the low bits weak (addresses end in zero bits):
        // fold the high bits in.
        self.0 ^ (self.0 >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(buf));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// A hash map keyed by node ids (or other small integers).
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;
/// A hash set of node ids (or other small integers).
pub(crate) type IdSet<K> = std::collections::HashSet<K, BuildHasherDefault<IdHasher>>;

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Entry<'t> {
    node: Node<'t>,
    parent: u32,
    first_child: u32,
    next_sibling: u32,
    kind: u16,
    named: bool,
    /// Zero bytes long.
    empty: bool,
}

/// Every node of one tree with its parent and children, in preorder.
#[derive(Debug)]
pub(crate) struct Nav<'t> {
    entries: Vec<Entry<'t>>,
    index: IdMap<usize, u32>,
    /// Call nodes, in postorder.
    calls: Vec<u32>,
}

impl<'t> Nav<'t> {
    /// Walks the tree under `root` once (without recursion).
    pub fn build(root: Node<'t>) -> Nav<'t> {
        // Python source has about 0.4 nodes per byte.
        let expect = root.end_byte() / 2 + 16;
        let mut nav = Nav {
            entries: Vec::with_capacity(expect),
            index: IdMap::with_capacity_and_hasher(expect, Default::default()),
            calls: Vec::new(),
        };
        let mut cursor = root.walk();
        let mut cur = nav.push(root, NONE);
        loop {
            if cursor.goto_first_child() {
                let child = nav.push(cursor.node(), cur);
                nav.entries[cur as usize].first_child = child;
                cur = child;
                continue;
            }
            // `cur` and everything under it is done: go on with the next sibling of
            // it or of its nearest ancestor that has one.
            loop {
                if flags_of(nav.entries[cur as usize].kind) & CALL != 0 {
                    nav.calls.push(cur);
                }
                let parent = nav.entries[cur as usize].parent;
                if parent == NONE {
                    return nav;
                }
                if cursor.goto_next_sibling() {
                    let sib = nav.push(cursor.node(), parent);
                    nav.entries[cur as usize].next_sibling = sib;
                    cur = sib;
                    break;
                }
                if !cursor.goto_parent() {
                    return nav;
                }
                cur = parent;
            }
        }
    }

    fn push(&mut self, node: Node<'t>, parent: u32) -> u32 {
        let i = u32::try_from(self.entries.len()).expect("fewer than 2^32 nodes");
        let named = node.is_named();
        // Anonymous nodes (punctuation, keywords) are only ever reached as children:
        // they need no entry in the index.
        if named || parent == NONE {
            self.index.insert(node.id(), i);
        }
        self.entries.push(Entry {
            node,
            parent,
            first_child: NONE,
            next_sibling: NONE,
            kind: node.kind_id(),
            named,
            empty: node.start_byte() == node.end_byte(),
        });
        i
    }

    /// The root of the tree.
    pub fn root(&self) -> Node<'t> {
        self.entries[0].node
    }

    #[inline]
    fn find(&self, n: Node<'t>) -> Option<&Entry<'t>> {
        self.index.get(&n.id()).map(|&i| &self.entries[i as usize])
    }

    /// `Node::parent`.
    pub fn parent(&self, n: Node<'t>) -> Option<Node<'t>> {
        match self.find(n) {
            // tree-sitter finds a parent by position: for an empty node, whose
            // position several nodes may share, ask it.
            Some(e) if !e.empty => (e.parent != NONE).then(|| self.entries[e.parent as usize].node),
            _ => n.parent(),
        }
    }

    fn iter_from(&self, n: Node<'t>, named: bool) -> Children<'_, 't> {
        match self.find(n) {
            Some(e) => Children {
                nav: self,
                next: e.first_child,
                named,
                fallback: None,
            },
            // Not indexed: an anonymous node (most have no children).
            None if n.child_count() == 0 => Children {
                nav: self,
                next: NONE,
                named,
                fallback: None,
            },
            None => {
                let mut c = n.walk();
                let all: Vec<Node<'t>> = if named {
                    n.named_children(&mut c).collect()
                } else {
                    n.children(&mut c).collect()
                };
                Children {
                    nav: self,
                    next: NONE,
                    named,
                    fallback: Some(all.into_iter()),
                }
            }
        }
    }

    /// `Node::children`.
    pub fn children(&self, n: Node<'t>) -> Children<'_, 't> {
        self.iter_from(n, false)
    }

    /// `Node::named_children`.
    pub fn named_children(&self, n: Node<'t>) -> Children<'_, 't> {
        self.iter_from(n, true)
    }

    /// The statements of a block that do something: its named children without
    /// comments and without bare string expressions (docstrings).
    pub fn statements(&self, block: Node<'t>) -> Vec<Node<'t>> {
        self.named_children(block)
            .filter(|s| s.kind_name() != "comment")
            .filter(|s| {
                !(s.kind_name() == "expression_statement"
                    && s.named_child(0).is_some_and(|e| e.kind_name() == "string"))
            })
            .collect()
    }

    /// A comprehension's (or generator's) body and its one clause, when that clause
    /// is a `for … in …` (no second `for`, no `if`).
    pub(crate) fn sole_for_clause(&self, comp: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
        let body = comp.field(Field::Body)?;
        let mut clauses = self
            .named_children(comp)
            .filter(|c| c.kind_name() != "comment" && *c != body);
        match (clauses.next(), clauses.next()) {
            (Some(c), None) if c.kind_name() == "for_in_clause" => Some((body, c)),
            _ => None,
        }
    }

    /// Every call in the tree with the innermost enclosing function that `func`
    /// knows (`func` is asked of `function_definition` and `lambda` nodes), in the
    /// order of a depth-first walk that visits the last child first.
    pub fn calls<F: Copy>(
        &self,
        func: impl Fn(Node<'t>) -> Option<F>,
    ) -> Vec<(Node<'t>, Option<F>)> {
        // The entry of the nearest function around each node that `func` knows
        // (preorder: a parent's entry comes before its children's).
        let mut near: Vec<u32> = Vec::with_capacity(self.entries.len());
        for (i, e) in self.entries.iter().enumerate() {
            let outer = match e.parent {
                NONE => NONE,
                p => near[p as usize],
            };
            let known = flags_of(e.kind) & FUNC != 0 && func(e.node).is_some();
            near.push(if known { i as u32 } else { outer });
        }
        let enclosing = |i: u32| match near[i as usize] {
            NONE => None,
            f => func(self.entries[f as usize].node),
        };
        // The reverse of a postorder walk is a preorder walk that takes the last
        // child first.
        self.calls
            .iter()
            .rev()
            .map(|&i| (self.entries[i as usize].node, enclosing(i)))
            .collect()
    }
}

/// Children of a node, from a [`Nav`].
#[derive(Debug)]
pub(crate) struct Children<'a, 't> {
    nav: &'a Nav<'t>,
    next: u32,
    named: bool,
    fallback: Option<std::vec::IntoIter<Node<'t>>>,
}

impl<'t> Iterator for Children<'_, 't> {
    type Item = Node<'t>;

    #[inline]
    fn next(&mut self) -> Option<Node<'t>> {
        if let Some(f) = &mut self.fallback {
            return f.next();
        }
        while self.next != NONE {
            let e = &self.nav.entries[self.next as usize];
            self.next = e.next_sibling;
            if e.named || !self.named {
                return Some(e.node);
            }
        }
        None
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A Python tree, for tests.
    pub(crate) fn parse(src: &str) -> tree_sitter::Tree {
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_python::LANGUAGE.into())
            .unwrap();
        p.parse(src, None).unwrap()
    }

    /// Every answer of the tables and of `Nav` is tree-sitter's own, on every node.
    fn same_as_tree_sitter(src: &str) {
        let tree = parse(src);
        let nav = Nav::build(tree.root_node());
        let mut stack = vec![tree.root_node()];
        let mut seen = 0;
        while let Some(n) = stack.pop() {
            seen += 1;
            assert_eq!(n.kind_name(), n.kind());
            assert_eq!(nav.parent(n), n.parent(), "parent of {n:?}");
            let mut c = n.walk();
            let kids: Vec<Node<'_>> = n.children(&mut c).collect();
            assert_eq!(nav.children(n).collect::<Vec<_>>(), kids);
            let named: Vec<Node<'_>> = n.named_children(&mut c).collect();
            assert_eq!(nav.named_children(n).collect::<Vec<_>>(), named);
            for (i, name) in FIELD_NAMES.iter().enumerate() {
                let f = ALL_FIELDS[i];
                assert_eq!(n.field(f), n.child_by_field_name(name), "{name}");
            }
            assert_eq!(
                n.is_func_kind(),
                matches!(n.kind(), "function_definition" | "lambda")
            );
            assert_eq!(n.is_scope_kind(), crate::index::is_scope(n.kind()));
            stack.extend(kids);
        }
        assert_eq!(seen, nav.entries.len());
        // Calls: the order of a stack walk that pushes children in order.
        let mut calls = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            if n.kind() == "call" {
                calls.push(n);
            }
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
        let ours: Vec<Node<'_>> = nav.calls(|_| None::<()>).into_iter().map(|c| c.0).collect();
        assert_eq!(ours, calls);
    }

    const ALL_FIELDS: [Field; FIELD_NAMES.len()] = [
        Field::Alias,
        Field::Arguments,
        Field::Attribute,
        Field::Body,
        Field::Condition,
        Field::Consequence,
        Field::Definition,
        Field::Expression,
        Field::FormatSpecifier,
        Field::Function,
        Field::Key,
        Field::Left,
        Field::ModuleName,
        Field::Name,
        Field::Object,
        Field::Operator,
        Field::Parameters,
        Field::ReturnType,
        Field::Right,
        Field::Superclasses,
        Field::Type,
        Field::TypeConversion,
        Field::Value,
    ];

    #[test]
    fn fixtures_and_broken_code() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/python");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "py") {
                same_as_tree_sitter(&std::fs::read_to_string(&p).unwrap());
                n += 1;
            }
        }
        assert!(n > 0);
        same_as_tree_sitter(include_str!(
            "../tests/fuzz-inputs/add-func-recursion.input"
        ));
        for src in [
            "",
            "x = (",
            "def f(:\n  return",
            "if x:\nelse:\n  y = lambda",
            "f(a, b=)\nclass C(:\n",
            "x = f'{a!r:>{w}}' + b'\\x00' 'y'\nwith (a as b, c): pass\n",
            "match x:\n  case [a, *b] if a: f()\n  case _: g()(h)\n",
            "try:\n  r.get(k)\nexcept* (A, B) as e:\n  raise\nelse:\n  pass\n",
            "x = [y for y in z if (w := y)]\nasync def f():\n  await g()\n",
            "print 'x'\nexec code\n",
        ] {
            same_as_tree_sitter(src);
        }
    }
}
