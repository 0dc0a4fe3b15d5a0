//! Any command line: analysed without panicking; a command appended after
//! an empty line is always seen (unless it is here-document data).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|command: &str| {
    let _ = gatehouse_permissions::shell::analyse(command, Path::new("/w"), Path::new("/h"));
    let _ = gatehouse_permissions::shell::is_read_only(command);
    // Two newlines: a trailing `\` can only swallow the first one.
    let appended = format!("{command}\n\nrm -rf x");
    let analysis = gatehouse_permissions::shell::analyse(&appended, Path::new("/w"), Path::new("/h"));
    assert!(
        !analysis.is_transparent()
            || command.contains("<<")
            || analysis.commands.iter().any(|c| c.core_text().starts_with("rm")),
        "the appended rm was lost: {appended:?}"
    );
});
