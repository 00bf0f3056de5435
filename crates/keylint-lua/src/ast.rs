//! A compact copy of the syntax tree, built once per file.
//!
//! The resolver and the evaluator visit every node several times and ask for children,
//! fields and kinds over and over. Asking tree-sitter each time costs a fresh cursor, a
//! field-name lookup, a kind-name comparison and a `Vec` per visit. This module walks
//! the tree once with a single cursor and stores every visible node in preorder with
//! what the walkers need: its kind and field (as small enums), its byte range, its
//! flags and its next sibling. Children are then a linked list in one `Vec`, kinds
//! and fields compare as integers, and nothing is allocated while walking.
//!
//! The copy mirrors tree-sitter's view: the children of a node are the ones
//! `Node::children` yields, named children the ones `Node::named_children` yields, and
//! a node's field is the one a cursor reports for it, which is how
//! `Node::children_by_field_name` finds children. `Node::child_by_field_name` agrees
//! except for fields a node inherits from a hidden rule that the grammar aliases to a
//! visible node (the names of `local a = 1` are a `name` of both the
//! `variable_declaration` and its `assignment_statement` for it); the walkers never
//! ask for those, and the tests pin the difference down.

use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

/// No node (an absent sibling).
const NONE: u32 = u32::MAX;

/// The node kinds the walkers tell apart; any other kind is [`K::Other`]. A kind is
/// identified by its name, as `Node::kind` reports it (named and anonymous nodes of
/// one name are one kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum K {
    Other,
    VariableDeclaration,
    FunctionDeclaration,
    AssignmentStatement,
    FunctionCall,
    DoStatement,
    WhileStatement,
    RepeatStatement,
    IfStatement,
    ForStatement,
    ReturnStatement,
    HashBangLine,
    Comment,
    EmptyStatement,
    BreakStatement,
    GotoStatement,
    LabelStatement,
    VariableList,
    ExpressionList,
    ForNumericClause,
    ForGenericClause,
    Local,
    Identifier,
    BracketIndexExpression,
    DotIndexExpression,
    MethodIndexExpression,
    FunctionDefinition,
    TableConstructor,
    Field,
    LBracket,
    String,
    Number,
    Nil,
    True,
    False,
    VarargExpression,
    ParenthesizedExpression,
    BinaryExpression,
    UnaryExpression,
    Arguments,
}

impl K {
    fn from_name(name: &str) -> K {
        match name {
            "variable_declaration" => K::VariableDeclaration,
            "function_declaration" => K::FunctionDeclaration,
            "assignment_statement" => K::AssignmentStatement,
            "function_call" => K::FunctionCall,
            "do_statement" => K::DoStatement,
            "while_statement" => K::WhileStatement,
            "repeat_statement" => K::RepeatStatement,
            "if_statement" => K::IfStatement,
            "for_statement" => K::ForStatement,
            "return_statement" => K::ReturnStatement,
            "hash_bang_line" => K::HashBangLine,
            "comment" => K::Comment,
            "empty_statement" => K::EmptyStatement,
            "break_statement" => K::BreakStatement,
            "goto_statement" => K::GotoStatement,
            "label_statement" => K::LabelStatement,
            "variable_list" => K::VariableList,
            "expression_list" => K::ExpressionList,
            "for_numeric_clause" => K::ForNumericClause,
            "for_generic_clause" => K::ForGenericClause,
            "local" => K::Local,
            "identifier" => K::Identifier,
            "bracket_index_expression" => K::BracketIndexExpression,
            "dot_index_expression" => K::DotIndexExpression,
            "method_index_expression" => K::MethodIndexExpression,
            "function_definition" => K::FunctionDefinition,
            "table_constructor" => K::TableConstructor,
            "field" => K::Field,
            "[" => K::LBracket,
            "string" => K::String,
            "number" => K::Number,
            "nil" => K::Nil,
            "true" => K::True,
            "false" => K::False,
            "vararg_expression" => K::VarargExpression,
            "parenthesized_expression" => K::ParenthesizedExpression,
            "binary_expression" => K::BinaryExpression,
            "unary_expression" => K::UnaryExpression,
            "arguments" => K::Arguments,
            _ => K::Other,
        }
    }
}

/// The fields the walkers read; any other field (or none) is [`F::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum F {
    Other,
    Name,
    Parameters,
    Body,
    Condition,
    Consequence,
    Alternative,
    Clause,
    Start,
    End,
    Step,
    Table,
    Field,
    Method,
    Value,
    Operand,
    Left,
    Right,
    Operator,
    Arguments,
}

impl F {
    fn from_name(name: &str) -> F {
        match name {
            "name" => F::Name,
            "parameters" => F::Parameters,
            "body" => F::Body,
            "condition" => F::Condition,
            "consequence" => F::Consequence,
            "alternative" => F::Alternative,
            "clause" => F::Clause,
            "start" => F::Start,
            "end" => F::End,
            "step" => F::Step,
            "table" => F::Table,
            "field" => F::Field,
            "method" => F::Method,
            "value" => F::Value,
            "operand" => F::Operand,
            "left" => F::Left,
            "right" => F::Right,
            "operator" => F::Operator,
            "arguments" => F::Arguments,
            _ => F::Other,
        }
    }
}

/// Kind and field of every tree-sitter id of the grammar, looked up once.
struct Tables {
    kinds: Vec<K>,
    fields: Vec<F>,
}

fn tables(language: &tree_sitter::Language) -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let kinds = (0..language.node_kind_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| language.node_kind_for_id(id))
                    .map_or(K::Other, K::from_name)
            })
            .collect();
        // Field ids start at 1.
        let fields = (0..=language.field_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| language.field_name_for_id(id))
                    .map_or(F::Other, F::from_name)
            })
            .collect();
        Tables { kinds, fields }
    })
}

const NAMED: u8 = 1;
const ERROR: u8 = 2;
const MISSING: u8 = 4;
const HAS_ERROR: u8 = 8;
const HAS_CHILDREN: u8 = 16;

#[derive(Clone, Copy)]
struct Raw {
    start: u32,
    end: u32,
    /// Next sibling, or [`NONE`]. The first child is the next node in preorder.
    next: u32,
    kind: K,
    field: F,
    flags: u8,
}

/// Every visible node of a tree, in preorder.
pub(crate) struct Ast {
    nodes: Vec<Raw>,
    /// How many nodes are identifiers.
    identifiers: usize,
}

fn offset(b: usize) -> u32 {
    // tree-sitter counts bytes in `u32`.
    u32::try_from(b).unwrap_or(u32::MAX)
}

impl Ast {
    /// Copies the tree rooted at `root`, with one cursor, without recursion.
    pub(crate) fn new(root: tree_sitter::Node<'_>) -> Ast {
        let t = tables(&root.language());
        let mut nodes: Vec<Raw> = Vec::with_capacity(root.descendant_count());
        let raw = |n: tree_sitter::Node<'_>, field: Option<std::num::NonZeroU16>| {
            let mut flags = 0;
            if n.is_named() {
                flags |= NAMED;
            }
            let kind_id = n.kind_id();
            // `Node::is_error`: the built-in `ERROR` symbol.
            if kind_id == u16::MAX {
                flags |= ERROR;
            }
            if n.is_missing() {
                flags |= MISSING;
            }
            if n.has_error() {
                flags |= HAS_ERROR;
            }
            Raw {
                start: offset(n.start_byte()),
                end: offset(n.end_byte()),
                next: NONE,
                kind: t
                    .kinds
                    .get(usize::from(kind_id))
                    .copied()
                    .unwrap_or(K::Other),
                field: field
                    .and_then(|f| t.fields.get(usize::from(f.get())).copied())
                    .unwrap_or(F::Other),
                flags,
            }
        };
        let mut cursor = root.walk();
        nodes.push(raw(root, None));
        // Ancestors of the current node, innermost last.
        let mut parents: Vec<u32> = Vec::new();
        let mut cur: u32 = 0;
        loop {
            if cursor.goto_first_child() {
                nodes[cur as usize].flags |= HAS_CHILDREN;
                parents.push(cur);
                cur = offset(nodes.len());
                nodes.push(raw(cursor.node(), cursor.field_id()));
                continue;
            }
            loop {
                if parents.is_empty() {
                    let identifiers = nodes.iter().filter(|n| n.kind == K::Identifier).count();
                    return Ast { nodes, identifiers };
                }
                if cursor.goto_next_sibling() {
                    let n = offset(nodes.len());
                    nodes.push(raw(cursor.node(), cursor.field_id()));
                    nodes[cur as usize].next = n;
                    cur = n;
                    break;
                }
                cursor.goto_parent();
                cur = parents.pop().unwrap_or(0);
            }
        }
    }

    /// The root node.
    pub(crate) fn root(&self) -> Node<'_> {
        Node { ast: self, id: 0 }
    }

    /// How many identifiers the tree holds.
    pub(crate) fn identifiers(&self) -> usize {
        self.identifiers
    }
}

/// A node of an [`Ast`]: a copyable handle, like `tree_sitter::Node`.
#[derive(Clone, Copy)]
pub(crate) struct Node<'a> {
    ast: &'a Ast,
    id: u32,
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} {:?}", self.kind(), self.byte_range())
    }
}

impl<'a> Node<'a> {
    #[inline]
    fn raw(self) -> &'a Raw {
        &self.ast.nodes[self.id as usize]
    }

    fn at(self, id: u32) -> Option<Node<'a>> {
        (id != NONE).then_some(Node { ast: self.ast, id })
    }

    /// The node's kind.
    #[inline]
    pub(crate) fn kind(self) -> K {
        self.raw().kind
    }

    /// The field this node fills in its parent.
    #[inline]
    pub(crate) fn field_of(self) -> F {
        self.raw().field
    }

    #[inline]
    pub(crate) fn start_byte(self) -> usize {
        self.raw().start as usize
    }

    #[inline]
    pub(crate) fn end_byte(self) -> usize {
        self.raw().end as usize
    }

    #[inline]
    pub(crate) fn byte_range(self) -> Range<usize> {
        let r = self.raw();
        r.start as usize..r.end as usize
    }

    #[inline]
    pub(crate) fn is_named(self) -> bool {
        self.raw().flags & NAMED != 0
    }

    /// An `ERROR` node.
    #[inline]
    pub(crate) fn is_error(self) -> bool {
        self.raw().flags & ERROR != 0
    }

    #[inline]
    pub(crate) fn is_missing(self) -> bool {
        self.raw().flags & MISSING != 0
    }

    /// The node is or contains an error.
    #[inline]
    pub(crate) fn has_error(self) -> bool {
        self.raw().flags & HAS_ERROR != 0
    }

    /// The first child.
    #[inline]
    pub(crate) fn first_child(self) -> Option<Node<'a>> {
        (self.raw().flags & HAS_CHILDREN != 0).then_some(Node {
            ast: self.ast,
            id: self.id + 1,
        })
    }

    /// Every child, in order.
    #[inline]
    pub(crate) fn children(self) -> Children<'a> {
        Children {
            next: self.first_child(),
        }
    }

    /// The named children, in order.
    #[inline]
    pub(crate) fn named_children(self) -> impl Iterator<Item = Node<'a>> + 'a {
        self.children().filter(|c| c.is_named())
    }

    /// The first child in this field.
    #[inline]
    pub(crate) fn field(self, f: F) -> Option<Node<'a>> {
        self.children().find(|c| c.field_of() == f)
    }

    /// The children in this field.
    #[inline]
    pub(crate) fn children_by_field(self, f: F) -> impl Iterator<Item = Node<'a>> + 'a {
        self.children().filter(move |c| c.field_of() == f)
    }

    /// The first named child of a kind.
    #[inline]
    pub(crate) fn child_of_kind(self, k: K) -> Option<Node<'a>> {
        self.named_children().find(|c| c.kind() == k)
    }

    /// The number of named children.
    pub(crate) fn named_child_count(self) -> usize {
        self.named_children().count()
    }
}

/// The children of a node.
pub(crate) struct Children<'a> {
    next: Option<Node<'a>>,
}

impl<'a> Iterator for Children<'a> {
    type Item = Node<'a>;

    #[inline]
    fn next(&mut self) -> Option<Node<'a>> {
        let n = self.next?;
        self.next = n.at(n.raw().next);
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[&str] = &[
        "name",
        "parameters",
        "body",
        "condition",
        "consequence",
        "alternative",
        "clause",
        "start",
        "end",
        "step",
        "table",
        "field",
        "method",
        "value",
        "operand",
        "left",
        "right",
        "operator",
        "arguments",
    ];

    /// Compares the copy of every node with tree-sitter's answers.
    fn check_against_tree_sitter(source: &str) {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_lua::LANGUAGE.into())
            .unwrap();
        let tree = parser.parse(source, None).unwrap();
        let ast = Ast::new(tree.root_node());
        let mut stack = vec![(tree.root_node(), ast.root())];
        let mut seen = 0;
        while let Some((t, a)) = stack.pop() {
            seen += 1;
            assert_eq!(t.byte_range(), a.byte_range());
            assert_eq!(K::from_name(t.kind()), a.kind(), "{}", t.kind());
            assert_eq!(t.is_named(), a.is_named());
            assert_eq!(t.is_error(), a.is_error());
            assert_eq!(t.is_missing(), a.is_missing());
            assert_eq!(t.has_error(), a.has_error());
            assert_eq!(
                t.child(0).map(|c| c.byte_range()),
                a.first_child().map(|c| c.byte_range())
            );
            let mut c = t.walk();
            let named: Vec<_> = t.named_children(&mut c).map(|n| n.byte_range()).collect();
            let a_named: Vec<_> = a.named_children().map(|n| n.byte_range()).collect();
            assert_eq!(named, a_named);
            for name in FIELDS {
                let f = F::from_name(name);
                let tf = t
                    .child_by_field_name(name)
                    .map(|n| (n.byte_range(), n.kind()));
                let af = a.field(f).map(|n| n.byte_range());
                // `child_by_field_name` also looks through fields a node inherits from
                // a hidden rule aliased to a visible node (the `name` of the names in
                // `local a = 1`); the walkers never ask for those.
                let through_alias = matches!(
                    (t.kind(), *name),
                    ("assignment_statement", "name" | "value")
                        | ("variable_declaration", "name" | "operator")
                        | ("for_generic_clause", "name")
                );
                if !through_alias {
                    assert_eq!(
                        tf.as_ref().map(|x| x.0.clone()),
                        af,
                        "field {name} of {}",
                        t.kind()
                    );
                }
                if let (Some(tn), Some(an)) = (t.child_by_field_name(name), a.field(f)) {
                    assert_eq!(K::from_name(tn.kind()), an.kind());
                }
                let mut c = t.walk();
                let tl: Vec<_> = t
                    .children_by_field_name(name, &mut c)
                    .map(|n| n.byte_range())
                    .collect();
                let al: Vec<_> = a.children_by_field(f).map(|n| n.byte_range()).collect();
                assert_eq!(tl, al, "children in {name} of {}", t.kind());
            }
            let mut c = t.walk();
            let tc: Vec<_> = t.children(&mut c).collect();
            let ac: Vec<_> = a.children().collect();
            assert_eq!(tc.len(), ac.len());
            stack.extend(tc.into_iter().zip(ac));
        }
        assert_eq!(seen, ast.nodes.len());
    }

    /// Every form of the grammar.
    const FORMS: &str = r#"function a.b.c:d(x, y) return x end
function a.b(x) end
function a:b() end
function f(...) end
local function g(a) end
local x <const>, y <close> = 1, 2
local p, q
global function h() end
global r, s = 1, 2
global t
global <const> *
a.b.c = 1
a[b], c.d = 1, 2
x = function(a, b) return a .. b end
for i = 1, 2 do end
for i = 1, 2, 3 do end
for k, v in pairs(t) do end
for k in next, t do end
if a then elseif b then else end
while a do end
repeat local z = 1 until z
do end
local s = "a" .. 'b' .. [[c]] .. [==[d]==]
t = { a = 1, [b] = 2, 3; 4 }
f { 1 }
f "x"
o:m "x"
o:m { }
o.p:m(1)
return not a, -b, #c, ~d, a and b or c, (a)
goto l ::l::
"#;

    #[test]
    fn the_copy_answers_like_tree_sitter() {
        for src in [
            "local k = KEYS[1] .. ':x'\nredis.call('GET', k)\n",
            "if a then b() elseif c then d() else e() end\nfor i = 1, 10, 2 do x[i] = i end",
            "for k, v in ipairs(KEYS) do redis.call('DEL', v) end -- c\nreturn 1, 2",
            "local function f(a, b, ...) return a:upper() end\nlocal t = { [1] = 2, x = 3, 4 }",
            "x = = 1\nlocal = \nredis.call('GET' KEYS[1])\nfunction (",
            "#!lua flags=no-writes\nlocal s = [==[a]]b]==] .. \"\\65\" repeat until x\nwhile true do break end",
            "goto done ::done:: do local x <const> = 1 end",
            FORMS,
        ] {
            check_against_tree_sitter(src);
        }
    }
}
