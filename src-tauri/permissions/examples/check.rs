//! `cargo run -p gatehouse-permissions --example check -- PROJECT HOME TOOL INPUT_JSON [MODE]`:
//! prints the decision JSON, as `gatehouse-cli check` will.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use gatehouse_permissions::{CheckRequest, check};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        eprintln!("usage: check PROJECT HOME TOOL INPUT_JSON [MODE]");
        std::process::exit(2);
    }
    let input = serde_json::from_str(&args[4]).expect("INPUT_JSON must be JSON");
    let mut request = CheckRequest::new(&args[1], &args[2], &args[3], input);
    request.trust_project = true;
    if let Some(mode) = args.get(5) {
        request.mode =
            Some(serde_json::from_value(serde_json::Value::String(mode.clone())).expect("mode"));
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&check(&request)).unwrap()
    );
}
