//! Issue 17 (items 6 and 12): the permission modal shows what is being
//! approved at every window size down to the minimum, its controls neither
//! overflow the window nor overlap (checked from the DOM's boxes), at
//! 1400×900, 900×600 and 720×480; every screen is photographed at those
//! sizes, and a screen whose controls overflow the window, stick out of
//! their container, are cut off by a clipping box or overlap one another
//! fails the test (the problems are also written to
//! `target/e2e-screenshots/layout-problems.txt`).

use gatehouse_e2e::{App, screenshot_dir, setup};
use serde_json::json;

const SIZES: [(u32, u32); 3] = [(1400, 900), (900, 600), (720, 480)];

#[tokio::test]
async fn the_permission_modal_fits_at_every_size_and_every_screen_is_photographed()
-> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("layout");
    std::fs::create_dir(&project)?;
    let original: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    std::fs::write(project.join("notes.txt"), &original)?;
    let project = project.canonicalize()?;
    let file = project.join("notes.txt").display().to_string();
    // Read first: an Edit of a file not read is refused before any ask.
    let script = json!({"turns": [
        {"content": [{"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": file}}]},
        {"content": [{"type": "tool_use", "id": "e1", "name": "Edit", "input": {
            "file_path": file,
            "old_string": "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n",
            "new_string": "LINE 1\nLINE 2\nLINE 3\nLINE 4\nLINE 5\nLINE 6\n"
        }}]},
        {"content": [{"type": "text", "text": "Edited."}]}
    ]});
    let script_path = folders.path().join("script.json");
    std::fs::write(&script_path, serde_json::to_vec(&script)?)?;
    println!("e2e: screenshots go to {}", screenshot_dir().display());
    let project_text = project.display().to_string();
    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[("GATEHOUSE_TEST_PICK_FOLDER", &project_text)],
    )
    .await?;
    window.click("[data-testid=open-folder]").await?;
    window.start_replay(&script_path).await?;
    window.send_prompt("edit the notes").await?;
    window.wait_for("[data-testid=permission-modal]").await?;

    let mut problems = Vec::new();
    for (w, h) in SIZES {
        window.set_size(w, h).await?;
        window.screenshot(&format!("modal-edit-{w}x{h}")).await?;
        for p in window
            .layout_problems("[data-testid=permission-modal]")
            .await?
        {
            problems.push(format!("permission modal at {w}x{h}: {p}"));
        }
        // The diff gets the space: at least five lines of it are in view
        // inside the modal's body, above the answers.
        let shown = window
            .client
            .execute(
                "const body = document.querySelector('.permission-modal .modal-body');
                 const answers = document.querySelector('.permission-modal .modal-answers');
                 const diff = body && body.querySelector('[data-testid=diff]');
                 if (!body || !diff || !answers) return -1;
                 const b = body.getBoundingClientRect(), a = answers.getBoundingClientRect();
                 if (b.bottom > a.top + 1) return -2;
                 return Math.min(b.bottom, diff.getBoundingClientRect().bottom) - Math.max(b.top, diff.getBoundingClientRect().top);",
                vec![],
            )
            .await?
            .as_f64()
            .unwrap_or(-3.0);
        if shown < 5.0 * 16.0 {
            problems.push(format!(
                "permission modal at {w}x{h}: only {shown} px of the diff are in view (code -1: no diff, -2: the body runs into the answers)"
            ));
        }
    }
    window.click("[data-testid=permission-allow-once]").await?;

    // Every screen, at every size.
    let screens = [
        ("session", None),
        ("home", Some("[data-testid=back-home]")),
        ("sessions", Some("[data-testid=open-sessions]")),
        ("rules", Some("[data-testid=open-rules]")),
        ("hooks", Some("[data-testid=rules-tab-hooks]")),
        ("mcp", Some("[data-testid=open-mcp]")),
        ("settings", Some("[data-testid=open-settings]")),
    ];
    let mut screen_problems = Vec::new();
    let mut lefts = Vec::new();
    for (name, open) in screens {
        if let Some(css) = open {
            window.set_size(1400, 900).await?;
            window.click(css).await?;
        }
        // Let a lazily loaded screen arrive.
        gatehouse_e2e::until(&format!("the {name} screen"), 30, || async {
            Ok((!window.exists("[data-testid=screen-loading]").await?).then_some(()))
        })
        .await?;
        for (w, h) in SIZES {
            window.set_size(w, h).await?;
            window.screenshot(&format!("screen-{name}-{w}x{h}")).await?;
            for p in window.layout_problems("body").await? {
                eprintln!("e2e: layout: {name} at {w}x{h}: {p}");
                screen_problems.push(format!("{name} at {w}x{h}: {p}"));
            }
            // One grid (issue 17 item 10): every page's content starts at
            // the same x at a given window size.
            let left = window
                .client
                .execute(
                    "const first = document.querySelector('main.page > :first-child');
                     return first ? first.getBoundingClientRect().left : null;",
                    vec![],
                )
                .await?
                .as_f64();
            match left {
                Some(left) => lefts.push(((w, h), name, left)),
                None => screen_problems.push(format!("{name} at {w}x{h}: no page container")),
            }
        }
    }
    for ((w, h), name, left) in &lefts {
        let (_, first_name, first_left) = lefts
            .iter()
            .find(|(size, _, _)| size == &(*w, *h))
            .expect("the entry itself matches");
        if (left - first_left).abs() > 1.0 {
            screen_problems.push(format!(
                "{name} at {w}x{h}: content starts at x={left}, {first_name} at x={first_left}"
            ));
        }
    }
    window.quit().await?;
    let report = screenshot_dir().join("layout-problems.txt");
    std::fs::write(&report, screen_problems.join("\n") + "\n")?;
    println!("e2e: layout problems of the screens: {}", report.display());
    problems.extend(screen_problems);
    assert!(
        problems.is_empty(),
        "layout problems:\n{}",
        problems.join("\n")
    );
    Ok(())
}
