//! Keys that are one of several keys: a builder with a `return` per arm (`if
//! self.is_tasks: return MESSAGES_KEY + q` / `return DATAM_KEY + q`) gives its callers
//! one template, the arms' common beginning and one opaque part for whichever end a
//! call takes (`eval.rs`, `join_shapes`). That part hides what each end is, so two
//! such keys (`self.mkey`, `self.vkey`) can never be compared. The ends are kept here,
//! by the part's binding, and a key use that holds such a part gets a key use per
//! combination of ends ([`keylint_core::model::KeyOptions`]): core judges the unit
//! over every combination and reports only what every one of them gives.

use crate::tpl::{TPart, Tpl};
use std::collections::HashMap;

/// Most options one key use gets; a key with more stays one template.
const MAX_OPTIONS: usize = 8;

/// The ends of each one-of part, by its binding.
#[derive(Debug, Default)]
pub(crate) struct Choices {
    ends: HashMap<String, Vec<Tpl>>,
}

impl Choices {
    /// Records the ends a one-of part stands for (the first record of a binding wins:
    /// the binding is made of the ends).
    pub(crate) fn record(&mut self, binding: &str, ends: Vec<Tpl>) {
        if ends.len() < 2 || ends.len() > MAX_OPTIONS {
            return;
        }
        self.ends.entry(binding.to_string()).or_insert(ends);
    }

    /// Every key `t` may be, one per combination of the ends of its one-of parts;
    /// `None` when it holds none, or when the combinations are too many.
    pub(crate) fn options(&self, t: &Tpl) -> Option<Vec<Tpl>> {
        if self.ends.is_empty() {
            return None;
        }
        let mut out: Vec<Tpl> = vec![Tpl::default()];
        let mut any = false;
        for p in &t.parts {
            let ends = match p {
                TPart::Hole(h) => self.ends.get(&h.binding),
                TPart::Lit { .. } => None,
            };
            match ends {
                Some(ends) => {
                    any = true;
                    if out.len() * ends.len() > MAX_OPTIONS {
                        return None;
                    }
                    let mut next = Vec::with_capacity(out.len() * ends.len());
                    for o in &out {
                        for e in ends {
                            let mut n = o.clone();
                            n.push(e.clone());
                            next.push(n);
                        }
                    }
                    out = next;
                }
                None => {
                    for o in &mut out {
                        o.push(Tpl {
                            parts: vec![p.clone()],
                        });
                    }
                }
            }
        }
        any.then_some(out)
    }
}
