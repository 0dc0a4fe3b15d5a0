//! Gatehouse's tool runtime: the tool contract, the registry, the dispatch
//! pipeline and the scheduler. It knows nothing of Tauri or any front end.

pub mod permission;
