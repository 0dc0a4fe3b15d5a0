//! Any text given to the rule parser: an error or a rule, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = gatehouse_permissions::rule::parse_rule(text);
});
