//! The sandbox's network bridge as a binary of its own, for this crate's
//! tests (the app and the CLI carry it as a hidden subcommand):
//! `gatehouse-net-bridge __gatehouse-sandbox-net-bridge <socket> <port> --
//! <program> <args…>`.

fn main() {
    let code = gatehouse_sandbox::bridge::run_if_requested().unwrap_or_else(|| {
        eprintln!(
            "usage: gatehouse-net-bridge {} <socket> <port> -- <program> <args…>",
            gatehouse_sandbox::bridge::BRIDGE_ARG
        );
        2
    });
    std::process::exit(code);
}
