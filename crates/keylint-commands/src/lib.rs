//! keylint-commands
