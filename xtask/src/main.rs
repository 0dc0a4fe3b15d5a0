//! Project commands. See `cargo xtask help`.
fn main() {}
