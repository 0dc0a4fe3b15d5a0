//! The Gatehouse desktop app's entry point.

// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    match gatehouse_app::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gatehouse: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
