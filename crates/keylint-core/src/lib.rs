//! keylint-core
