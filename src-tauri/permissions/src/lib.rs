//! Gatehouse's permission engine: rules, sources, modes, shell analysis and
//! explained decisions. It knows nothing of Tauri or any front end.
