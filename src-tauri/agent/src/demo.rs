//! The offline demo: a sample project and a replay script that exercises
//! Glob, Read, Grep, Edit and Bash on it (tool inputs follow Claude Code's
//! shapes, paths relative to the project).

use std::path::Path;

use crate::provider::replay::Script;

/// The demo script's JSON.
pub const SCRIPT_JSON: &str = include_str!("../demo/demo-script.json");

/// The sample project's files: (relative path, contents).
pub const SAMPLE_FILES: &[(&str, &str)] = &[
    (
        "README.md",
        include_str!("../demo/sample-project/README.md"),
    ),
    (
        "src/__init__.py",
        include_str!("../demo/sample-project/src/__init__.py"),
    ),
    (
        "src/greeter.py",
        include_str!("../demo/sample-project/src/greeter.py"),
    ),
    (
        "tests/test_greeter.py",
        include_str!("../demo/sample-project/tests/test_greeter.py"),
    ),
];

/// The demo script.
pub fn script() -> Result<Script, String> {
    Script::parse(SCRIPT_JSON)
}

/// Writes the sample project into `dir` (created when missing). Existing
/// files of the same names are overwritten; nothing else is touched.
pub fn create_sample_project(dir: &Path) -> std::io::Result<()> {
    for (rel, contents) in SAMPLE_FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, contents)?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::provider::replay::ScriptBlock;

    #[test]
    fn the_demo_script_parses_and_uses_the_five_tools() {
        let script = script().unwrap();
        let mut names: Vec<String> = script
            .turns
            .iter()
            .flat_map(|t| t.content.iter())
            .filter_map(|b| match b {
                ScriptBlock::ToolUse { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect();
        names.sort();
        names.dedup();
        assert_eq!(names, ["Bash", "Edit", "Glob", "Grep", "Read"]);
        let dir = tempfile::tempdir().unwrap();
        create_sample_project(dir.path()).unwrap();
        let greeter = std::fs::read_to_string(dir.path().join("src/greeter.py")).unwrap();
        // The Edit's old_string matches the sample exactly once.
        let edit_old = script.turns[2]
            .content
            .iter()
            .find_map(|b| match b {
                ScriptBlock::ToolUse { input, .. } => {
                    input["old_string"].as_str().map(str::to_owned)
                }
                _ => None,
            })
            .unwrap();
        assert_eq!(greeter.matches(&edit_old).count(), 1);
    }
}
