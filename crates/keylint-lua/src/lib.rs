//! keylint-lua
