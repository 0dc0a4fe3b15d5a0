//! The Gatehouse desktop app's entry point.

// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    // The sandbox's network bridge (a hidden first argument), before
    // anything of the app starts.
    if let Some(code) = gatehouse_agent::sandbox::run_network_bridge_if_requested() {
        std::process::exit(code);
    }
    match gatehouse_app::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gatehouse: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
