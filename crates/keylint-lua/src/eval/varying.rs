//! Which values take another value in each pass of the loops being walked.
//!
//! A table a loop fills with keys stands for many keys only when the key appended
//! changes from pass to pass. A value changes with the loop when it depends, directly
//! or through locals, helper parameters and calls, on a loop's control variables (the
//! names of a `for`, a local the loop reassigns from its own previous value) or on a
//! Redis reply read inside the loop. A value computed in every pass from the same
//! inputs (`cjson.decode(ARGV[2]).id`, `KEYS[1] .. ':x'`, a helper called with
//! arguments that do not depend on the loop) is the same value in every pass.
//!
//! Holes get their identity (binding) when they are created; a binding created inside
//! a loop from a node that varies is remembered in [`Eval::varies`], and a binding
//! made from another one (a local named after the value it holds) inherits it.

use super::{Builtin, Eval, Val};
use crate::ast::{Node, K};
use crate::scope::{child_of_kind, DeclId};
use keylint_core::Span;

/// Deepest chain of locals, parameters and expressions followed to decide.
const MAX_FOLLOW: usize = 48;

/// Most expressions looked at to decide for one value (locals built from several
/// others can branch without end).
const MAX_STEPS: usize = 4_000;

/// What one decision has followed so far.
#[derive(Default)]
struct Follow {
    /// The reassigned locals and loop variables being followed.
    decls: Vec<DeclId>,
    /// Expressions looked at.
    steps: usize,
}

/// A loop being walked.
pub(super) struct LoopCtx<'t> {
    /// The loop statement.
    pub range: Span,
    /// The first frame id that a call inside it gets.
    pub first_frame: usize,
    /// Every `name = expr` inside the loop that reassigns a local: (the local, expr).
    pub assigns: Vec<(DeclId, Node<'t>)>,
}

impl<'t> Eval<'t, '_> {
    /// The loop statement `node`, with the reassignments of locals inside it.
    pub(super) fn loop_ctx(&self, node: Node<'t>) -> LoopCtx<'t> {
        let mut assigns = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == K::AssignmentStatement {
                let targets = child_of_kind(n, K::VariableList);
                let exprs: Vec<Node<'t>> = child_of_kind(n, K::ExpressionList)
                    .into_iter()
                    .flat_map(Node::named_children)
                    .filter(|e| e.kind() != K::Comment)
                    .collect();
                for (i, t) in targets
                    .into_iter()
                    .flat_map(Node::named_children)
                    .enumerate()
                {
                    let (Some(&d), Some(&e)) = (
                        self.scopes.uses.get(&t.start_byte()),
                        exprs.get(i).or(exprs.last()),
                    ) else {
                        continue;
                    };
                    assigns.push((d, e));
                }
            }
            stack.extend(n.named_children());
        }
        LoopCtx {
            range: node.byte_range(),
            first_frame: self.next_frame,
            assigns,
        }
    }

    /// Remembers that `binding`, a hole made for the value of `node` here, changes
    /// from pass to pass of a loop being walked.
    pub(super) fn mark_varying(&mut self, binding: &str, node: Node<'t>) {
        if self.loops.is_empty() || self.varies.contains(binding) {
            return;
        }
        let top = self.frames.len().saturating_sub(1);
        if self.node_varies(node, top, &mut Follow::default(), 0) {
            self.varies.insert(binding.to_string());
        }
    }

    /// Remembers that `value` is appended to the table `table` names.
    pub(super) fn note_append(&mut self, table: Node<'t>, value: Node<'t>) {
        if table.kind() != K::Identifier {
            return;
        }
        let Some(&d) = self.scopes.uses.get(&table.start_byte()) else {
            return;
        };
        let list = self.appends.entry(d).or_default();
        if !list.iter().any(|n| n.start_byte() == value.start_byte()) {
            list.push(value);
        }
    }

    /// `binding` is made from `from` (the same value under another name).
    pub(super) fn inherit_varying(&mut self, binding: &str, from: &str) {
        if self.varies.contains(from) {
            self.varies.insert(binding.to_string());
        }
    }

    /// Whether code at `node`, run in frame `frame`, runs in each pass of a loop being
    /// walked (inside one in the text, or in a call made from one).
    fn in_loop(&self, node: Node<'_>, frame: usize) -> bool {
        let id = self.frames.get(frame).map_or(0, |f| f.id);
        self.loops
            .iter()
            .any(|l| id >= l.first_frame || l.range.contains(&node.start_byte()))
    }

    /// True when the value of expression `node`, evaluated in frame `frame`, changes
    /// from pass to pass of a loop being walked. `seen`: the reassigned locals being
    /// followed (one met again feeds a pass's value into the next one).
    fn node_varies(&self, node: Node<'t>, frame: usize, seen: &mut Follow, depth: usize) -> bool {
        seen.steps += 1;
        if depth > MAX_FOLLOW || seen.steps > MAX_STEPS {
            return false;
        }
        match node.kind() {
            K::Identifier => self.local_varies(node, frame, seen, depth),
            K::FunctionDefinition | K::String | K::Number | K::Nil | K::True | K::False => false,
            K::VarargExpression => {
                let Some((_, nodes)) = self.frames.get(frame).and_then(|f| f.varargs.as_ref())
                else {
                    return false;
                };
                let caller = frame.saturating_sub(1);
                nodes
                    .iter()
                    .any(|&n| self.node_varies(n, caller, seen, depth + 1))
            }
            K::FunctionCall => {
                // A Redis reply read in each pass (`LPOP`, `HGET` of the pass's id).
                if node
                    .field(crate::ast::F::Name)
                    .is_some_and(|c| self.is_redis_call(c, frame))
                    && self.in_loop(node, frame)
                {
                    return true;
                }
                node.named_children()
                    .any(|c| self.node_varies(c, frame, seen, depth + 1))
            }
            _ => node
                .named_children()
                .any(|c| self.node_varies(c, frame, seen, depth + 1)),
        }
    }

    /// `redis.call`, `redis.pcall` or a local alias of them.
    fn is_redis_call(&self, callee: Node<'_>, frame: usize) -> bool {
        match callee.kind() {
            K::DotIndexExpression => matches!(self.text(callee), "redis.call" | "redis.pcall"),
            K::Identifier => {
                let Some(d) = self.scopes.uses.get(&callee.start_byte()) else {
                    return false;
                };
                self.frames[..=frame.min(self.frames.len().saturating_sub(1))]
                    .iter()
                    .rev()
                    .find_map(|f| f.env.get(d))
                    .is_some_and(|v| matches!(v, Val::Builtin(Builtin::Call)))
            }
            _ => false,
        }
    }

    /// [`Eval::node_varies`] of a name.
    fn local_varies(&self, node: Node<'t>, frame: usize, seen: &mut Follow, depth: usize) -> bool {
        // A global (`KEYS`, `ARGV`, a library table) is the same in every pass.
        let Some(&d) = self.scopes.uses.get(&node.start_byte()) else {
            return false;
        };
        if seen.decls.contains(&d) {
            return true;
        }
        let top = frame.min(self.frames.len().saturating_sub(1));
        let home = (0..=top)
            .rev()
            .find(|&i| self.frames[i].env.contains_key(&d))
            .unwrap_or(top);
        if let Some(iterated) = self.loop_vars.get(&d) {
            // The variable of a loop being walked; of a loop run to its end in this
            // pass, it varies when what that loop iterates over does.
            if self.loops.iter().any(|l| l.range.contains(&d)) {
                return true;
            }
            seen.decls.push(d);
            let out = iterated
                .iter()
                .any(|&e| self.node_varies(e, home, seen, depth + 1));
            seen.decls.pop();
            return out;
        }
        // A parameter: the caller's argument, in the caller's frame.
        if let Some(i) = (0..=top)
            .rev()
            .find(|&i| self.frames[i].param_nodes.contains_key(&d))
        {
            let arg = self.frames[i].param_nodes[&d];
            return self.node_varies(arg, i.saturating_sub(1), seen, depth + 1);
        }
        seen.decls.push(d);
        let mut out = false;
        if self.scopes.mutated.contains(&d) {
            // Reassigned in a loop being walked: what it is assigned there.
            for l in &self.loops {
                for &(_, e) in l.assigns.iter().filter(|(a, _)| *a == d) {
                    if self.node_varies(e, top, seen, depth + 1) {
                        out = true;
                        break;
                    }
                }
            }
        }
        // A local declared inside a loop: what it is initialised to in each pass.
        if !out {
            if let Some(&init) = self.inits.get(&d) {
                out = self.in_loop(init, home) && self.node_varies(init, home, seen, depth + 1);
            }
        }
        // A table: what is appended to it.
        if !out {
            if let Some(values) = self.appends.get(&d) {
                out = values
                    .iter()
                    .any(|&v| self.node_varies(v, home, seen, depth + 1));
            }
        }
        seen.decls.pop();
        out
    }
}
