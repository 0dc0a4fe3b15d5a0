//! Agent definitions read from real files in a project and a home folder:
//! precedence, trust, one malformed file listed with its line, unknown tool
//! names reported with file and line.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use gatehouse_agent::subagent::{AgentDefinitions, DefinitionDirs, DefinitionSource, Isolation};
use gatehouse_protocol::permission::PermissionMode;

const KNOWN: &[&str] = &[
    "Bash",
    "Edit",
    "Glob",
    "Grep",
    "Read",
    "Write",
    "mcp__gh__issue",
];

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir.join(".claude/agents")).unwrap();
    std::fs::write(dir.join(".claude/agents").join(name), text).unwrap();
}

fn fixture() -> (tempfile::TempDir, tempfile::TempDir) {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        project.path(),
        "reviewer.md",
        "---\nname: reviewer\ndescription: Reviews diffs for bugs\ntools: Read, Grep, Glob, Frobnicate\nmodel: haiku\npermissionMode: plan\n---\nYou review code.\n",
    );
    write(
        project.path(),
        "broken.md",
        "---\nname: broken\ndescription: A broken one\npermissionMode: yolo\n---\nbody\n",
    );
    write(
        project.path(),
        "nothing.md",
        "---\nname: nothing\ndescription: names no real tool\ntools:\n  - Frob\n  - Nicate\n---\nbody\n",
    );
    write(project.path(), "notes.txt", "not a definition");
    write(
        home.path(),
        "reviewer.md",
        "---\nname: reviewer\ndescription: the user's reviewer\n---\nuser body\n",
    );
    write(
        home.path(),
        "builder.md",
        "---\nname: builder\ndescription: \"Builds: things\"\ndisallowedTools: [Write]\nisolation: worktree\n---\nYou build.\n",
    );
    (project, home)
}

#[test]
fn definitions_load_from_real_files_with_errors_listed() {
    let (project, home) = fixture();
    let defs = AgentDefinitions::load(
        &DefinitionDirs {
            project: project.path().to_path_buf(),
            project_trusted: true,
            home: home.path().to_path_buf(),
        },
        KNOWN,
    );
    assert_eq!(
        defs.names(),
        ["Explore", "Plan", "builder", "general-purpose", "reviewer"]
    );
    // The project's file wins over the user's of the same name.
    let reviewer = defs.get("reviewer").unwrap();
    assert!(matches!(reviewer.source, DefinitionSource::Project(_)));
    assert_eq!(reviewer.model.as_deref(), Some("haiku"));
    assert_eq!(reviewer.permission_mode, Some(PermissionMode::Plan));
    assert_eq!(reviewer.system_prompt, "You review code.");
    assert!(
        !reviewer.is_read_only(),
        "Frobnicate is not a known read-only tool"
    );
    let builder = defs.get("builder").unwrap();
    assert_eq!(builder.description, "Builds: things");
    assert_eq!(builder.isolation, Some(Isolation::Worktree));
    assert!(!builder.allows_tool("Write"));
    assert!(builder.allows_tool("Edit"));

    // Two malformed files, each with file, line and cause.
    let mut malformed: Vec<_> = defs
        .malformed
        .iter()
        .map(|e| {
            (
                e.file.file_name().unwrap().to_string_lossy().into_owned(),
                e.line,
                e.message.clone(),
            )
        })
        .collect();
    malformed.sort();
    assert_eq!(malformed.len(), 2, "{malformed:?}");
    assert_eq!(malformed[0].0, "broken.md");
    assert_eq!(malformed[0].1, 4);
    assert!(malformed[0].2.contains("\"yolo\""), "{}", malformed[0].2);
    assert_eq!(malformed[1].0, "nothing.md");
    assert_eq!(malformed[1].1, 4);
    assert!(
        malformed[1].2.contains("names no tool"),
        "{}",
        malformed[1].2
    );
    // Asking for a malformed type says why it is unavailable.
    let msg = defs.unknown_type_message("broken");
    assert!(msg.contains("broken.md:4"), "{msg}");
    let msg = defs.unknown_type_message("nope");
    assert!(
        msg.contains("Explore, Plan, builder, general-purpose, reviewer"),
        "{msg}"
    );

    // The unknown tool of a usable definition is a warning at its line.
    assert_eq!(defs.warnings.len(), 1, "{:?}", defs.warnings);
    let w = &defs.warnings[0];
    assert!(w.file.ends_with("reviewer.md"));
    assert_eq!(w.line, 4);
    assert!(w.message.contains("`Frobnicate`"), "{}", w.message);
}

#[test]
fn an_untrusted_project_contributes_no_definitions() {
    let (project, home) = fixture();
    let defs = AgentDefinitions::load(
        &DefinitionDirs {
            project: project.path().to_path_buf(),
            project_trusted: false,
            home: home.path().to_path_buf(),
        },
        KNOWN,
    );
    assert_eq!(
        defs.names(),
        ["Explore", "Plan", "builder", "general-purpose", "reviewer"]
    );
    assert!(matches!(
        defs.get("reviewer").unwrap().source,
        DefinitionSource::User(_)
    ));
    assert!(defs.malformed.is_empty(), "{:?}", defs.malformed);
}
