//! Scripts through wrapper parameters: `def zpoppush(self, source, destination):
//! return self._zpoppush(keys=[source, destination])`. Inside the wrapper the keys are
//! parameters, whose slots nobody can know; at each call site of the wrapper in this
//! file they are the arguments that site passes. The script is judged once more per
//! call site, with that site's keys in the places of `KEYS[i]` (and linked to its
//! body with them), and reported at the call site, with a label on the script call
//! inside the wrapper. A `keys` parameter passed whole (`self._s(keys=keys)`) takes
//! the list the site passes.

use crate::eval::{Ctx, Elem, ScriptId, Value};
use crate::syntax::{Field, NodeExt};
use keylint_core::model::{CrossSlotPolicy, UnitKind, UnitLabel, UnitNote};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// A script call in a wrapper whose keys include the wrapper's parameters: one
    /// more script unit per call site of the wrapper in this file.
    pub(crate) fn script_wrapper_sites(
        &mut self,
        id: ScriptId,
        call: Node<'t>,
        (keys_arg, key_args): (Option<&Elem<'t>>, &[Elem<'t>]),
        client_arg: Option<&Elem<'t>>,
        ctx: &Ctx<'t>,
    ) {
        let Some(f) = ctx.func else { return };
        if ctx.env.is_some() || self.inline.is_some() {
            return;
        }
        let Some(keys_arg) = keys_arg else { return };
        // The keys as the wrapper writes them: a list of its parameters and other
        // values, or one parameter that brings the whole list.
        let pattern: Vec<Elem<'t>> = match self.wrapper_param(f, keys_arg.node) {
            Some(_) => vec![Elem {
                star: true,
                ..keys_arg.clone()
            }],
            None if keys_arg.node.kind_name() == "list" => {
                if !key_args
                    .iter()
                    .any(|e| self.wrapper_param(f, e.node).is_some())
                {
                    return;
                }
                key_args.to_vec()
            }
            None => return,
        };
        let Some((info, sites, skip_self)) = self.wrapper_sites(f) else {
            return;
        };
        let guard = (7u8, f, call.start_byte());
        if !self.in_progress.insert(guard) {
            return;
        }
        // A client or pipeline the site passes through a parameter
        // (`client=client`): what runs the script is the site's, not judged here.
        let client_param = client_arg
            .and_then(|c| self.wrapper_param(f, c.node))
            .map(|i| (i.checked_sub(skip_self), info.params[i].name.clone()));
        let wrapper = info.node.byte_range();
        let line = self.ix.src[..call.start_byte()].matches('\n').count() + 1;
        for (site, site_func) in sites {
            if site_func == Some(f) {
                continue;
            }
            let sctx = Ctx::at(site_func);
            let Some(callee) = site.field(Field::Function) else {
                continue;
            };
            // The site must call this very function, through an instance when it is a
            // method (`self.m(…)`, or `obj.m(…)` on an instance of its class the code
            // shows).
            match self.eval(callee, &sctx) {
                Value::Func { id: g, bound } if g == f => {
                    if skip_self == 1 && bound.is_none() {
                        continue;
                    }
                }
                Value::Opaque(_) | Value::Unknown | Value::Foreign if skip_self == 1 => {
                    match self.instance_method(callee, &sctx) {
                        Some((g, _)) if g == f => {}
                        _ => continue,
                    }
                }
                _ => continue,
            }
            let (spos, skw) = self.call_args(site.field(Field::Arguments), &sctx);
            if spos.iter().any(|e| e.star) || skw.iter().any(|(_, e)| e.star) {
                continue;
            }
            if let Some((at, name)) = &client_param {
                let given = at
                    .and_then(|i| spos.get(i))
                    .or_else(|| skw.iter().find(|(k, _)| k == name).map(|(_, e)| e));
                if given.is_some_and(|e| !matches!(e.value, Value::Null)) {
                    continue;
                }
            }
            let Some((npos, _)) =
                self.site_args(f, &info, skip_self, (&pattern, &[]), (&spos, &skw))
            else {
                continue;
            };
            // Only the keys the site writes are known here: a key the wrapper builds
            // itself would be evaluated in the site's scope, so it stays unknown.
            let from_site = |e: &Elem<'t>| {
                e.node.start_byte() < wrapper.start || e.node.end_byte() > wrapper.end
            };
            let aligned: Vec<Option<usize>> = npos
                .iter()
                .map(|e| {
                    if from_site(e) && !e.star {
                        self.key_use(e, "EVALSHA", &sctx)
                    } else {
                        None
                    }
                })
                .collect();
            let keys: Vec<usize> = aligned.iter().flatten().copied().collect();
            if keys.len() < 2 && !keys.iter().any(|k| self.has_family(*k)) {
                continue;
            }
            let anchor = callee
                .field(Field::Attribute)
                .unwrap_or(callee)
                .byte_range();
            let unit = self.push_unit(
                UnitKind::Script,
                "script",
                site.byte_range(),
                anchor.clone(),
                keys,
                CrossSlotPolicy::Refused,
            );
            self.label_script_site(unit, call, anchor, (&info.name, line), site);
            let (body, func) = (self.scripts[id].body, self.scripts[id].func);
            self.link(unit, body, func, &npos, aligned, None, None, site, None);
            if let Some(l) = self.script_links.last_mut() {
                l.ext = self.scripts[id].ext.clone();
            }
        }
        self.in_progress.remove(&guard);
    }

    /// Labels a call site's script unit at the script call inside the wrapper and at
    /// the site, with a note naming both lines.
    fn label_script_site(
        &mut self,
        unit: usize,
        call: Node<'t>,
        anchor: std::ops::Range<usize>,
        (name, line): (&str, usize),
        site: Node<'t>,
    ) {
        let site_line = self.ix.src[..site.start_byte()].matches('\n').count() + 1;
        self.model.unit_labels.push(UnitLabel {
            unit,
            span: call.byte_range(),
            label: "the script runs them here".to_string(),
        });
        self.model.unit_labels.push(UnitLabel {
            unit,
            span: anchor,
            label: "called here with these keys".to_string(),
        });
        self.model.unit_notes.push(UnitNote {
            unit,
            note: format!(
                "`{name}` runs a script over the keys it is given (line {line}): judged \
                 here with the keys that this call (line {site_line}) passes"
            ),
        });
    }
}
