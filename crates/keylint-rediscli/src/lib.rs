//! keylint-rediscli
