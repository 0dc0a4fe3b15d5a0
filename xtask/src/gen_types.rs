//! `cargo xtask gen-types`: the UI's TypeScript types, generated from Rust.

use std::process::ExitCode;

use anyhow::Context;

/// Where the generated file lives, relative to the repository root.
pub(crate) const GENERATED: &str = "ui/src/generated/protocol.ts";

/// Whether the checked-in file equals what the protocol crate generates now.
pub(crate) fn is_fresh() -> anyhow::Result<bool> {
    let path = crate::root().join(GENERATED);
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    Ok(current == gatehouse_protocol::typescript::bindings())
}

pub(crate) fn gen_types(check: bool) -> anyhow::Result<ExitCode> {
    let path = crate::root().join(GENERATED);
    if check {
        if is_fresh()? {
            println!("{GENERATED} is up to date");
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("{GENERATED} is stale: run `cargo xtask gen-types` and commit the result");
        return Ok(ExitCode::FAILURE);
    }
    write()?;
    println!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// Writes the generated file when it differs (keeps mtimes stable otherwise).
pub(crate) fn write() -> anyhow::Result<()> {
    if is_fresh()? {
        return Ok(());
    }
    let path = crate::root().join(GENERATED);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&path, gatehouse_protocol::typescript::bindings())
        .with_context(|| format!("writing {}", path.display()))
}
