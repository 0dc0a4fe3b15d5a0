//! Generates the UI's TypeScript declarations from this crate's types.
//!
//! We use ts-rs rather than a JSON Schema → TypeScript step because it reads
//! the same serde attributes that shape the wire format, needs no Node tool,
//! and lets us emit one self-contained file (see docs/ARCHITECTURE.md).

use std::collections::HashSet;

use ts_rs::{Config, TS, TypeVisitor};

use crate::command::{CommandError, commands_interface, visit_command_types};
use crate::diff::FileDiff;
use crate::event::Event;

/// The header of the generated file.
const HEADER: &str = "// Generated from src-tauri/protocol by `cargo xtask gen-types`. Do not edit by hand.\n// `cargo xtask test` fails when this file is stale.\n";

/// Collects declarations of every exportable type reached.
struct Collector<'a> {
    cfg: &'a Config,
    seen: HashSet<String>,
    /// `(type name, declaration)`; sorted by name before writing.
    decls: Vec<(String, String)>,
}

impl TypeVisitor for Collector<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Built-ins and wrappers (Vec, Option, …) have no file of their own:
        // declare what they contain instead.
        if T::output_path().is_none() {
            // (Only generics: a wrapper's `visit_dependencies` recurses
            // without the visitor and never ends on recursive types such as
            // `serde_json::Value`.)
            T::visit_generics(self);
            return;
        }
        let ident = T::ident(self.cfg);
        if !self.seen.insert(ident.clone()) {
            return;
        }
        T::visit_dependencies(self);
        let mut decl = String::new();
        if let Some(docs) = T::docs() {
            decl.push_str(&docs);
            if !docs.ends_with('\n') {
                decl.push('\n');
            }
        }
        decl.push_str("export ");
        decl.push_str(&T::decl(self.cfg));
        decl.push('\n');
        self.decls.push((ident, decl));
    }
}

/// The full text of `ui/src/generated/protocol.ts`.
pub fn bindings() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut collector = Collector {
        cfg: &cfg,
        seen: HashSet::new(),
        decls: Vec::new(),
    };
    collector.visit::<Event>();
    collector.visit::<CommandError>();
    // Also reached through `tool_progress` data and permission previews.
    collector.visit::<FileDiff>();
    // Emitted on `RULES_REPLAY_PROGRESS_CHANNEL` while a replay runs.
    collector.visit::<crate::rules::RulesReplayProgress>();
    // Emitted on `WINDOW_REQUEST_CHANNEL` (menu items, a second launch).
    collector.visit::<crate::window::WindowRequest>();
    // Emitted on `STORED_SESSIONS_CHANNEL`.
    collector.visit::<crate::browser::StoredSessionsChanged>();
    // Emitted on `CLAUDE_CODE_ASK_CHANNEL` (issue 25).
    collector.visit::<crate::claude_code::ClaudeCodeAskShown>();
    // Emitted on `CLAUDE_CODE_ASK_WITHDRAWN_CHANNEL`.
    collector.visit::<crate::claude_code::ClaudeCodeAskWithdrawn>();
    // Transcript types the CLI prints; most are also reached through the
    // session browser's commands (visiting twice declares once).
    collector.visit::<crate::session::SearchSessionsArgs>();
    collector.visit::<crate::session::SearchHit>();
    collector.visit::<crate::session::StorageUsage>();
    // Returned by `SessionHost::diagnostics`.
    collector.visit::<crate::session::SessionDiagnostics>();
    collector.visit::<crate::transcript::ClaudeTranscript>();
    collector.visit::<crate::transcript::ImportFileReport>();
    collector.visit::<crate::transcript::ImportProgress>();
    collector.visit::<crate::transcript::JsonlImportReport>();
    visit_command_types(&mut collector);
    // ts-rs visits dependencies in an order that differs between builds of
    // the same source, which made the committed file look stale in CI.
    // TypeScript type aliases need no declaration order, so sort by name.
    collector.decls.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::from(HEADER);
    for (_, decl) in &collector.decls {
        out.push('\n');
        out.push_str(decl);
    }
    out.push('\n');
    out.push_str(&commands_interface(&cfg));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_declare_events_and_commands() {
        let ts = bindings();
        assert!(ts.contains("export type Event = "), "{ts}");
        assert!(ts.contains("export type Project = "), "{ts}");
        assert!(
            ts.contains("add_project: { args: AddProjectArgs; result: Project };"),
            "{ts}"
        );
        assert!(
            ts.contains("list_projects: { args: NoArgs; result: Array<Project> };"),
            "{ts}"
        );
    }

    #[test]
    fn bindings_are_deterministic() {
        assert_eq!(bindings(), bindings());
    }

    /// Declarations come in name order, not in the (build-dependent) order
    /// ts-rs visits them, so every build writes the same file.
    #[test]
    fn declarations_are_sorted_by_name() {
        let names: Vec<String> = bindings()
            .lines()
            .filter_map(|l| l.strip_prefix("export type "))
            .map(|l| {
                l.split([' ', '<', '='])
                    .next()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert!(names.len() > 50, "{names:?}");
        assert_eq!(names, sorted);
    }
}
