//! The core of redis-keylint: the neutral model, key templates and their hash inputs,
//! co-location verdicts, the rule registry and the rules themselves.
//!
//! Frontends turn source files into a [`model::FileModel`]; [`rules::check`] turns a
//! model into [`diagnostic::Finding`]s. Nothing here reads files or prints: the binary
//! does that.
#![deny(missing_docs)]

pub mod diagnostic;
pub mod evidence;
pub mod expect;
pub mod frontend;
pub mod merge;
pub mod model;
pub mod prefilter;
pub mod rule;
pub mod rules;
pub mod script_link;
pub mod suggest;
pub mod suppress;
pub mod template;
pub mod template_builder;

/// A byte range in a source file.
pub type Span = std::ops::Range<usize>;

pub use diagnostic::{Edit, Finding, Fix, Label, Severity};
pub use model::{CrossSlotPolicy, FileModel, KeyOrigin, KeyUse, Unit, UnitKind};
pub use rule::Rule;
pub use template::{HashInput, KeyTemplate, Lang, Verdict};
