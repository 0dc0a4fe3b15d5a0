//! The Skills panel's view (issue 21 item 5) over real skill folders and a
//! real SQLite store: which skills a project's sessions load (a project
//! skill only once trusted, replacing a user skill of the same name), each
//! skill's last use from the stored Skill calls of this project only, and
//! the folders that could not be read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::skills::{SkillOrigin, SkillView};
use gatehouse_session::skills::skills_view;
use gatehouse_store::{NewSession, Store};
use serde_json::json;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill(root: &Path, name: &str, description: &str) {
    write(
        &root.join(format!(".claude/skills/{name}/SKILL.md")),
        &format!(
            "---\nname: {name}\ndescription: {description}\nallowed-tools: Read\n---\nBody.\n"
        ),
    );
}

/// Stores a session of `project` whose calls use the skills `names`, the
/// n-th at `1_000 + n` ms.
fn used(store: &mut Store, project: &Path, session: &str, names: &[&str]) {
    store
        .create_session(&NewSession {
            id: session.into(),
            project_path: project.display().to_string(),
            provider: "replay".into(),
            model: "m".into(),
            mode: "default".into(),
        })
        .unwrap();
    for (n, name) in names.iter().enumerate() {
        store
            .append_event(&Event {
                session_id: session.into(),
                ts_ms: 1_000 + u64::try_from(n).unwrap(),
                body: EventBody::ToolQueued {
                    tool_use_id: format!("s{n}"),
                    name: "Skill".into(),
                    input: json!({"skill": name}),
                    read_only: true,
                },
            })
            .unwrap();
    }
}

fn row<'a>(skills: &'a [SkillView], name: &str, origin: SkillOrigin) -> &'a SkillView {
    skills
        .iter()
        .find(|s| s.name == name && s.origin == origin)
        .unwrap_or_else(|| panic!("{name} ({origin:?}) in {skills:?}"))
}

#[test]
fn trust_decides_which_skills_load_and_uses_come_from_this_project() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let (home, dir, other) = (root.join("home"), root.join("proj"), root.join("other"));
    std::fs::create_dir_all(&other).unwrap();
    skill(&home, "report", "The user's report");
    skill(&home, "review", "The user's review");
    skill(&dir, "review", "The project's review");
    skill(&dir, "deploy", "Deploys the project");
    write(
        &dir.join(".claude/skills/broken/SKILL.md"),
        "no front matter\n",
    );

    let mut store = Store::open(&root.join("data")).unwrap();
    used(&mut store, &dir, "a", &["report", "review", " report "]);
    used(&mut store, &other, "b", &["review", "review"]);
    let project = store.add_project(&dir).unwrap();

    // Untrusted: only the user's skills load; the project's are listed as
    // not loaded, and its broken folder is named.
    let view = skills_view(&store, &project, &home).unwrap();
    assert!(!view.trusted);
    let active: Vec<(&str, SkillOrigin)> = view
        .skills
        .iter()
        .filter(|s| s.active)
        .map(|s| (s.name.as_str(), s.origin))
        .collect();
    assert_eq!(
        active,
        [("report", SkillOrigin::User), ("review", SkillOrigin::User)]
    );
    assert!(!row(&view.skills, "deploy", SkillOrigin::Project).active);
    assert!(!row(&view.skills, "review", SkillOrigin::Project).active);
    let report = row(&view.skills, "report", SkillOrigin::User);
    assert_eq!(
        (report.uses, report.last_used_ms),
        (2, Some(1_002)),
        "trimmed names count"
    );
    assert_eq!(report.allowed_tools, ["Read"]);
    // Uses in another project do not count here.
    let review = row(&view.skills, "review", SkillOrigin::User);
    assert_eq!((review.uses, review.last_used_ms), (1, Some(1_001)));
    let never = row(&view.skills, "deploy", SkillOrigin::Project);
    assert_eq!((never.uses, never.last_used_ms), (0, None));
    assert_eq!(view.problems.len(), 1, "{:?}", view.problems);
    assert!(
        view.problems[0].file.ends_with("broken/SKILL.md"),
        "{:?}",
        view.problems
    );

    // Trusted: the project's skills load and its `review` replaces the
    // user's, which is listed as not loaded.
    let project = store.set_project_trust(project.id, true).unwrap();
    let view = skills_view(&store, &project, &home).unwrap();
    assert!(view.trusted);
    assert!(row(&view.skills, "deploy", SkillOrigin::Project).active);
    assert!(row(&view.skills, "review", SkillOrigin::Project).active);
    assert!(!row(&view.skills, "review", SkillOrigin::User).active);
    assert!(row(&view.skills, "report", SkillOrigin::User).active);
    assert_eq!(
        row(&view.skills, "review", SkillOrigin::Project).description,
        "The project's review"
    );
}
