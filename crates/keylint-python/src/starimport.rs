//! `from M import *` of a module of the project: `from server.keys import *` at the
//! top of a model, then `pipe.sadd(REDIS_ALLOWED_SET, sid)` with the constant defined
//! in `server/keys.py`.
//!
//! What a star import binds is known only from the other module: its public names (the
//! ones its `__all__` quotes, when it has one) that it has facts of. Each becomes a
//! definition of the name at the import statement, read as an import of `M.name`
//! (see `eval_bound_name`). Python binds them when the statement runs, so:
//! - a name this module also binds itself keeps its own definitions when they all come
//!   after every star import that binds it (`from .base import *` then `PREFIX =
//!   "app:"`); otherwise both reach, and the name is one of them or unknown;
//! - a name two star imports bind (`try: from .local import *` / `except ImportError:
//!   from .defaults import *`) has both definitions;
//! - a star import of something outside the project after the one that binds a name
//!   may rebind it: it counts as one more definition, of nothing known.

use crate::index::{import_path, Def, DefKind};
use std::collections::HashMap;
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// Binds the names of this module's star imports of project modules (see the
    /// module documentation). Run once, before anything is evaluated.
    pub(crate) fn bind_star_imports(&mut self) {
        if self.ix.star_imports.is_empty() {
            return;
        }
        let Some(scope) = self.project else {
            return;
        };
        let stars = self.ix.star_imports.clone();
        // Per star import, the names it binds (`None`: not known).
        let bound: Vec<(Node<'t>, &str, Option<Vec<String>>)> = stars
            .iter()
            .map(|(stmt, m)| (*stmt, m.as_str(), scope.star_names(m)))
            .collect();
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, (_, _, names)) in bound.iter().enumerate() {
            for n in names.iter().flatten() {
                by_name.entry(n.as_str()).or_default().push(i);
            }
        }
        for (name, mut at) in by_name {
            let first = bound[at[0]].0.start_byte();
            // Star imports of what is not known, after the first one that binds the
            // name, may rebind it.
            at.extend(
                bound
                    .iter()
                    .enumerate()
                    .filter(|(_, (stmt, _, names))| names.is_none() && stmt.start_byte() > first)
                    .map(|(i, _)| i),
            );
            at.sort_unstable();
            at.dedup();
            let own: Vec<usize> = self
                .ix
                .module_defs
                .get(name)
                .map(|ds| ds.iter().map(|d| d.pos).collect())
                .unwrap_or_default();
            let last_star = at
                .iter()
                .map(|&i| bound[i].0.start_byte())
                .max()
                .unwrap_or(0);
            // Its own definitions all come after every star import: they decide.
            if !own.is_empty() && own.iter().all(|&p| p > last_star) {
                continue;
            }
            if own.is_empty() && at.len() == 1 {
                let (_, module, _) = bound[at[0]];
                self.ix
                    .imports
                    .insert(name.to_string(), import_path(module, name));
            }
            let defs = self.ix.module_defs.entry(name.to_string()).or_default();
            for &i in &at {
                let stmt = bound[i].0;
                defs.push(Def {
                    pos: stmt.start_byte(),
                    stmt,
                    kind: DefKind::Other,
                    annotation: None,
                });
            }
            defs.sort_by_key(|d| d.pos);
        }
    }
}
