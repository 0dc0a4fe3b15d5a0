//! Any settings file text: parsed or an error with a valid position.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    match gatehouse_permissions::settings::parse_settings(std::path::Path::new("s.json"), text) {
        Ok(parsed) => {
            for e in parsed.errors {
                assert!(e.line >= 1 && e.column >= 1);
            }
        }
        Err(e) => assert!(e.line >= 1 && e.column >= 1 && e.loses_restrictions),
    }
});
