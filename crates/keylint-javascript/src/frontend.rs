//! The JavaScript and TypeScript frontend as the engine sees it: eight extensions
//! (the grammar follows the file's), `//` comments, keys printed as template
//! literals, and the lower phase.

use crate::{Dialect, FileLoader, Options, Project, STACK_SIZE};
use keylint_core::frontend::{self, Comments, Frontend, Input, Lang, Lowered, Piece};
use keylint_core::frontend::{Index, ModuleLoader};
use keylint_core::template::escape;
use std::sync::Arc;

/// The JavaScript frontend.
#[derive(Debug)]
pub struct JavaScript;

/// The JavaScript frontend, for the registry.
pub static FRONTEND: JavaScript = JavaScript;

/// The JavaScript language: the handle of [`FRONTEND`].
pub const LANG: Lang = Lang::new(&FRONTEND);

impl Frontend for JavaScript {
    fn name(&self) -> &'static str {
        "javascript"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx"]
    }

    fn shebangs(&self) -> &'static [&'static str] {
        &["node"]
    }

    fn comments(&self) -> Comments {
        Comments::Trailing("//")
    }

    /// `"user:1"` without holes, `` `user:${uid}` `` with them.
    fn print_key(&self, pieces: &[Piece<'_>]) -> String {
        let has_hole = pieces.iter().any(|p| matches!(p, Piece::Hole(_)));
        let quote = if has_hole { '`' } else { '"' };
        let mut out = String::new();
        out.push(quote);
        for p in pieces {
            match p {
                Piece::Bytes(b) => {
                    let s = escape(b, quote);
                    if has_hole {
                        out.push_str(&s.replace("${", "\\${"));
                    } else {
                        out.push_str(&s);
                    }
                }
                Piece::Hole(l) => {
                    out.push_str("${");
                    out.push_str(l);
                    out.push('}');
                }
            }
        }
        out.push(quote);
        out
    }

    /// A module reaches Redis only through a client library it imports by name
    /// (`ioredis`, `redis`, `@redis/client`).
    fn may_use_redis(&self, source: &[u8], _options: &frontend::Options) -> bool {
        keylint_core::prefilter::mentions_redis(source)
    }

    fn reads_files(&self) -> bool {
        true
    }

    fn stack_size(&self) -> usize {
        STACK_SIZE
    }

    fn reads_modules(&self) -> bool {
        true
    }

    fn index(
        &self,
        modules: Arc<dyn ModuleLoader>,
        _options: &frontend::Options,
    ) -> Option<Arc<dyn Index>> {
        Some(Arc::new(Project::new(modules)))
    }

    fn lower(&self, input: &Input<'_>) -> Lowered {
        let dialect = input
            .file_name
            .and_then(|n| n.rsplit('.').next())
            .and_then(Dialect::of_extension)
            .unwrap_or(Dialect::TypeScript);
        // One walk up to the nearest package.json that names a client, for both.
        let clients = input.loader.and_then(crate::package::nearest_clients);
        let options = Options {
            node_redis_major: input.loader.and_then(crate::package::node_redis_major),
            library: clients.and_then(crate::package::library_of),
            ioredis_named: clients.is_some_and(|(io, _)| io),
        };
        let loader: Option<&dyn FileLoader> = input.loader;
        let project = input
            .index
            .and_then(|i| i.as_any().downcast_ref::<Project>())
            .zip(input.module);
        frontend::with_stack(
            input.big_stack,
            "keylint-javascript",
            STACK_SIZE,
            || match project {
                Some((p, module)) => {
                    crate::lower_in_project(input.source, dialect, &options, loader, p, module)
                }
                None => crate::lower_on_this_thread(input.source, dialect, &options, loader).into(),
            },
        )
    }
}
