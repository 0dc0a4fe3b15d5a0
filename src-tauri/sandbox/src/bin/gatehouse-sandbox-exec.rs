//! `gatehouse-sandbox-exec`: what bwrap starts inside Gatehouse's Bash
//! sandbox before the shell (see `gatehouse_sandbox::helper`).

fn main() {
    let code = gatehouse_sandbox::helper::main_with(std::env::args_os().skip(1).collect());
    std::process::exit(code);
}
