//! The Python frontend as the engine sees it: `.py` files, `#` comments, keys
//! printed as (f-)strings, the project index of a run and the lower phase.

use crate::{FileLoader, Project, STACK_SIZE};
use keylint_core::frontend::{
    Comments, Frontend, Index, Input, Lang, Lowered, ModuleLoader, Options, Piece,
};
use keylint_core::template::escape;
use std::sync::Arc;

/// The Python frontend.
#[derive(Debug)]
pub struct Python;

/// The Python frontend, for the registry.
pub static FRONTEND: Python = Python;

/// The Python language: the handle of [`FRONTEND`].
pub const LANG: Lang = Lang::new(&FRONTEND);

impl Index for Project {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The frontend's options under the run's settings.
pub fn options(options: &Options) -> crate::Options {
    let mut out = crate::Options::default();
    out.configured_receivers
        .extend(options.receivers.iter().cloned());
    out.default_client = options.default_client;
    out
}

impl Frontend for Python {
    fn name(&self) -> &'static str {
        "python"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["py"]
    }

    fn shebangs(&self) -> &'static [&'static str] {
        &["python", "python3", "python2"]
    }

    fn comments(&self) -> Comments {
        Comments::Trailing("#")
    }

    fn print_key(&self, pieces: &[Piece<'_>]) -> String {
        // A value passed through as the key is shown by its name.
        if let [Piece::Hole(l)] = pieces {
            return l.to_string();
        }
        let has_hole = pieces.iter().any(|p| matches!(p, Piece::Hole(_)));
        let mut out = String::from(if has_hole { "f\"" } else { "\"" });
        for p in pieces {
            match p {
                Piece::Bytes(b) => {
                    let s = escape(b, '"');
                    if has_hole {
                        out.push_str(&s.replace('{', "{{").replace('}', "}}"));
                    } else {
                        out.push_str(&s);
                    }
                }
                Piece::Hole(l) => {
                    out.push('{');
                    out.push_str(l);
                    out.push('}');
                }
            }
        }
        out.push('"');
        out
    }

    /// A module reaches Redis only through names the frontend recognises, all of
    /// which need the file to mention Redis, or a receiver name the user configured.
    fn may_use_redis(&self, source: &[u8], options: &Options) -> bool {
        keylint_core::prefilter::mentions_redis(source)
            || options
                .receivers
                .iter()
                .any(|r| memchr::memmem::find(source, r.as_bytes()).is_some())
    }

    fn reads_files(&self) -> bool {
        true
    }

    fn reads_modules(&self) -> bool {
        true
    }

    fn stack_size(&self) -> usize {
        STACK_SIZE
    }

    fn index(&self, modules: Arc<dyn ModuleLoader>, options: &Options) -> Option<Arc<dyn Index>> {
        Some(Arc::new(Project::new(modules, self::options(options))))
    }

    fn lower(&self, input: &Input<'_>) -> Lowered {
        let options = crate::Options {
            reached: input.reached,
            ..options(input.options)
        };
        let loader: Option<&dyn FileLoader> = input.loader;
        let project = input
            .index
            .and_then(|i| i.as_any().downcast_ref::<Project>())
            .zip(input.module);
        match project {
            // Modules are summarised on the same thread: it needs the big stack.
            Some((project, name)) if input.big_stack => {
                let (model, modules) =
                    crate::lower_in_project(input.source, &options, loader, project, name);
                Lowered { model, modules }
            }
            _ => keylint_core::frontend::with_stack(
                input.big_stack,
                "keylint-python",
                STACK_SIZE,
                || crate::lower_on_this_thread(input.source, &options, loader),
            )
            .into(),
        }
    }
}
