//! Gatehouse's built-in tools, one module (file or folder) per tool, each
//! implementing `gatehouse_core`'s tool contract. Nothing here knows about
//! Tauri or any front end.

pub mod bash;
pub mod tasks;
