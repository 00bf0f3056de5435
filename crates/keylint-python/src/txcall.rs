//! Transactions made by a function over keys from its parameters, judged at its calls.
//!
//! ```python
//! def move(src, dst):
//!     p = r.pipeline()
//!     p.rpush(dst, p_val)
//!     p.lrem(src, 0, p_val)
//!     p.execute()
//!
//! move(f"q:{uid}:ready", f"q:{uid}:done")
//! ```
//!
//! Inside `move` the keys are parameters, whose slots nobody can know; at each call of
//! `move` in this file they are the arguments that call passes. Such a function (one
//! `pipeline()` made in its body, commands queued with keys that its parameters give)
//! is lowered again for each call, its parameters bound to the call's arguments, with a
//! pipeline of its own for that call: the transaction is judged with the keys the call
//! passes and reported at the call, with a note naming the function. The function's
//! own transaction is judged as before. A call that gives none of the keys anything
//! (every key the same as in the function's own transaction) adds nothing.
//!
//! Left out: a call inside a followed helper or a bound builder (one level only), a call
//! that splats its arguments, `__init__`, functions with other decorators than
//! `staticmethod`/`classmethod`, and functions that make more than four pipelines
//! (each of a few, `read_pipe` then `write_pipe`, is judged with the call's keys).

use crate::eval::{Ctx, Elem, PipeId, Value};
use crate::index::{text, ClassId, DefKind, FuncId};
use crate::syntax::{Field, NodeExt};
use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;
use tree_sitter::Node;

/// A transaction made by a function and followed from one of its calls.
#[derive(Debug)]
pub(crate) struct Via {
    /// The function, as the note names it.
    pub name: String,
    /// The line of its `pipeline()`.
    pub line: usize,
    /// The span of `pipeline` there.
    pub made: Range<usize>,
    /// The callee at the call, to point at.
    pub anchor: Range<usize>,
    /// The line of the call.
    pub site_line: usize,
    /// The key uses made while the function was followed.
    pub keys: Range<usize>,
    /// The names of the function whose values come from its parameters.
    pub derived: Vec<String>,
}

impl<'t> crate::lower::Analyzer<'t> {
    /// Follows function `id` (bound to `bound`) from `call`, which passes it no
    /// pipeline, when it makes a transaction of its own over keys from its parameters.
    pub(crate) fn follow_tx_maker(
        &mut self,
        id: FuncId,
        bound: Option<ClassId>,
        call: Node<'t>,
        (pos, kw): (&[Elem<'t>], &[(String, Elem<'t>)]),
        ctx: &Ctx<'t>,
    ) {
        if self.inline.is_some() || ctx.env.is_some() || ctx.func == Some(id) {
            return;
        }
        let info = self.ix.funcs[id].clone();
        if info.name == "__init__" || info.is_lambda || !info.plainly_called() {
            return;
        }
        let derived = self.param_derived(id);
        if derived.is_empty() {
            return;
        }
        let calls = self.calls_in.get(&id).cloned().unwrap_or_default();
        let made: Vec<Node<'t>> = calls
            .iter()
            .copied()
            .filter(|c| {
                c.field(Field::Function).is_some_and(|f| {
                    f.kind_name() == "attribute"
                        && f.field(Field::Attribute)
                            .is_some_and(|a| text(a, self.src()) == "pipeline")
                })
            })
            .collect();
        // One transaction or a few (`read_pipe` then `write_pipe`), each made once.
        const MAX_MADE: usize = 4;
        if made.is_empty() || made.len() > MAX_MADE {
            return;
        }
        let mut owns = Vec::with_capacity(made.len());
        for &m in &made {
            let Value::Pipe(own) = self.eval(m, &Ctx::at(Some(id))) else {
                return;
            };
            if self.pipes[own].created != Some(m.byte_range()) || owns.contains(&own) {
                return;
            }
            owns.push(own);
        }
        let self_name = info.self_name().is_some();
        let Some(params) = self.helper_params(&info, bound, self_name, (pos, kw), ctx) else {
            return;
        };
        // The call gives a value to some parameter the keys come from.
        if !params
            .iter()
            .any(|(n, v)| derived.contains(n) && !matches!(v, Value::Unknown))
        {
            return;
        }
        let mut fresh = Vec::with_capacity(owns.len());
        let mut saved = Vec::with_capacity(owns.len());
        for (&m, &own) in made.iter().zip(&owns) {
            let f: PipeId = self.pipes.len();
            let mut pi = self.pipes[own].clone();
            pi.created = None;
            pi.anchor = None;
            self.pipes.push(pi);
            saved.push(self.pipe_by_node.insert(m.id(), f));
            fresh.push(f);
        }
        let before = self.model.keys.len();
        self.follow_body(id, call, fresh.clone(), params, None, ctx);
        for (&m, s) in made.iter().zip(saved) {
            match s {
                Some(s) => self.pipe_by_node.insert(m.id(), s),
                None => self.pipe_by_node.remove(&m.id()),
            };
        }
        let src = self.src();
        let line = |at: usize| src[..at].matches('\n').count() + 1;
        let callee = call.field(Field::Function).unwrap_or(call);
        let anchor = callee
            .field(Field::Attribute)
            .unwrap_or(callee)
            .byte_range();
        let derived: Vec<String> = derived.into_iter().collect();
        let keys = before..self.model.keys.len();
        for (&m, f) in made.iter().zip(fresh) {
            let made_at = m
                .field(Field::Function)
                .and_then(|x| x.field(Field::Attribute))
                .unwrap_or(m)
                .byte_range();
            let via = Via {
                name: info.name.clone(),
                line: line(m.start_byte()),
                made: made_at,
                anchor: anchor.clone(),
                site_line: line(call.start_byte()),
                keys: keys.clone(),
                derived: derived.clone(),
            };
            self.pipes[f].via = Some(Rc::new(via));
        }
    }

    /// The names of function `f` whose values come from its parameters: the
    /// parameters (not `self`/`cls`), the variables of loops over them, and the
    /// locals assigned from expressions that name them.
    fn param_derived(&self, f: FuncId) -> HashSet<String> {
        let info = &self.ix.funcs[f];
        let skip = usize::from(info.self_name().is_some());
        let mut out: HashSet<String> = info
            .params
            .iter()
            .skip(skip)
            .map(|p| p.name.clone())
            .collect();
        if out.is_empty() {
            return out;
        }
        // A few passes: locals from locals.
        for _ in 0..3 {
            let mut grew = false;
            for (name, defs) in &info.defs {
                if out.contains(name) {
                    continue;
                }
                let from_params = defs.iter().any(|d| {
                    let e = match d.kind {
                        DefKind::Expr(e) | DefKind::WithAs(e) => Some(e),
                        // `for key in keys:`
                        DefKind::Other if d.stmt.kind_name() == "for_statement" => {
                            d.stmt.field(Field::Right)
                        }
                        _ => None,
                    };
                    e.is_some_and(|e| self.names_any(e, &out))
                });
                if from_params {
                    out.insert(name.clone());
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        out
    }

    /// Whether expression `e` names one of `names` (an identifier, not an attribute).
    fn names_any(&self, e: Node<'t>, names: &HashSet<String>) -> bool {
        let src = self.src();
        let mut stack = vec![e];
        let mut budget = 512;
        while let Some(n) = stack.pop() {
            budget -= 1;
            if budget == 0 {
                return false;
            }
            if n.kind_name() == "identifier" {
                let is_attr_name = self.ix.nav.parent(n).is_some_and(|p| {
                    p.kind_name() == "attribute" && p.field(Field::Attribute) == Some(n)
                });
                if !is_attr_name && names.contains(text(n, src)) {
                    return true;
                }
                continue;
            }
            stack.extend(self.ix.nav.named_children(n));
        }
        false
    }

    /// Whether the transaction of a followed call ([`Via`]) has a key that only the
    /// call gives: written with a name from the function's parameters, and in the
    /// function's own transaction either no key at all (a loop over a parameter) or
    /// the caller's value as a whole (a parameter passed on as the key), which
    /// nothing can be told of there. Keys built around a parameter are judged in the
    /// function already (as a family, or under `untagged-values`): judging them again
    /// at every call would repeat the finding.
    pub(crate) fn via_contributes(&self, via: &Via, keys: &[usize]) -> bool {
        let others: Vec<Range<usize>> = self
            .pipes
            .iter()
            .filter_map(|p| p.via.as_ref().map(|v| v.keys.clone()))
            .collect();
        let names: HashSet<String> = via.derived.iter().cloned().collect();
        let src = self.src();
        let bare = |t: &keylint_core::template::KeyTemplate| {
            matches!(t.parts.as_slice(), [keylint_core::template::Part::Hole(_)])
        };
        keys.iter().any(|&k| {
            if !via.keys.contains(&k) {
                return false;
            }
            let key = &self.model.keys[k];
            if bare(&key.template) {
                return false;
            }
            let written = src.get(key.span.clone()).unwrap_or("");
            let mentions = written
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| names.contains(w));
            if !mentions {
                return false;
            }
            // The function's own key there: none, or the caller's value as a whole.
            self.model
                .keys
                .iter()
                .enumerate()
                .filter(|(j, o)| !others.iter().any(|r| r.contains(j)) && o.span == key.span)
                .all(|(_, o)| bare(&o.template))
        })
    }

    /// The label and note of a transaction unit followed from a call ([`Via`]).
    pub(crate) fn via_notes(&mut self, unit: usize, info: &crate::eval::PipeInfo) {
        let Some(via) = &info.via else { return };
        self.model.unit_labels.push(keylint_core::model::UnitLabel {
            unit,
            span: via.anchor.clone(),
            label: "called here with these keys".to_string(),
        });
        self.model.unit_labels.push(keylint_core::model::UnitLabel {
            unit,
            span: via.made.clone(),
            label: format!("`{}` makes this transaction", via.name),
        });
        self.model.unit_notes.push(keylint_core::model::UnitNote {
            unit,
            note: format!(
                "`{}` queues these commands in one transaction (its `pipeline()`, line {}): \
                 judged here with the keys that this call (line {}) passes",
                via.name, via.line, via.site_line
            ),
        });
    }
}
