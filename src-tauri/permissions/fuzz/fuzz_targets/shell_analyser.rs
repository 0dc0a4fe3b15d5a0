//! Any command line: analysed without panicking; a denied command appended
//! on its own line is never allowed.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|command: &str| {
    let _ = gatehouse_permissions::shell::analyse(command, Path::new("/w"), Path::new("/h"));
    let _ = gatehouse_permissions::shell::is_read_only(command);
    let appended = format!("{command}\nrm -rf x");
    let analysis = gatehouse_permissions::shell::analyse(&appended, Path::new("/w"), Path::new("/h"));
    assert!(
        !analysis.is_transparent() || analysis.commands.iter().any(|c| c.core_text().starts_with("rm")),
        "the appended rm was lost: {appended:?}"
    );
});
