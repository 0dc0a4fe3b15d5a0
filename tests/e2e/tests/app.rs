//! The real Gatehouse window, driven through WebDriver.

use gatehouse_e2e::{App, setup};

#[tokio::test]
async fn the_app_starts_and_shows_the_home_screen() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let window = App::launch(&app, &driver, data.path(), &[]).await?;
    window.wait_for("[data-testid=home]").await?;
    assert_eq!(window.client.title().await?, "Gatehouse");
    let empty = window.texts("[data-testid=no-projects]").await?;
    assert_eq!(empty, ["No projects yet. Open a folder to start."]);
    // The round trip: the version shown came from the backend.
    let version = window.texts(".version").await?;
    assert_eq!(version, [format!("v{}", env!("CARGO_PKG_VERSION"))]);
    window.quit().await
}

#[tokio::test]
async fn an_opened_folder_is_listed_and_still_listed_after_a_restart() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("widget-factory");
    std::fs::create_dir(&project)?;
    let project_path = project.canonicalize()?.display().to_string();

    let window = App::launch(
        &app,
        &driver,
        data.path(),
        &[("GATEHOUSE_TEST_PICK_FOLDER", &project_path)],
    )
    .await?;
    window
        .wait_for("[data-testid=open-folder]")
        .await?
        .click()
        .await?;
    let name = window.texts("[data-testid=session-project-name]").await?;
    assert_eq!(name, ["widget-factory"]);
    window
        .wait_for("[data-testid=back-home]")
        .await?
        .click()
        .await?;
    assert_eq!(
        window.attrs("[data-testid=project]", "data-path").await?,
        std::slice::from_ref(&project_path)
    );
    window.quit().await?;

    // Same data directory, no test hook: the project comes from SQLite.
    let window = App::launch(&app, &driver, data.path(), &[]).await?;
    assert_eq!(
        window.attrs("[data-testid=project]", "data-path").await?,
        [project_path]
    );
    let text = window.texts("[data-testid=project]").await?;
    assert!(text[0].contains("widget-factory"), "{text:?}");
    window.quit().await
}

#[tokio::test]
async fn a_damaged_database_is_reported_and_left_alone() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let db = data.path().join("gatehouse.sqlite3");
    let garbage = b"not sqlite at all\n".repeat(500);
    std::fs::write(&db, &garbage)?;
    let window = App::launch(&app, &driver, data.path(), &[]).await?;
    let banner = window.texts("[data-testid=error-banner]").await?;
    assert!(banner[0].contains("not a database"), "{banner:?}");
    assert!(banner[0].contains("gatehouse.sqlite3"), "{banner:?}");
    window.quit().await?;
    assert_eq!(std::fs::read(&db)?, garbage);
    Ok(())
}

/// The harness's reads of a live view: a list that the page replaces every
/// 10 ms, 300 times (as the transcript re-renders while a session runs,
/// only faster), is read whole on every try while it changes, never failing
/// with WebDriver's "stale element" when an element goes between the query
/// and the read (the onboarding demo test failed so once, session 14).
#[tokio::test]
async fn texts_and_attrs_read_a_list_the_page_keeps_replacing() -> anyhow::Result<()> {
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let window = App::launch(&app, &driver, data.path(), &[]).await?;
    window.wait_for("[data-testid=home]").await?;
    window
        .client
        .execute(
            "const box = document.createElement('div');
             box.style.cssText = 'position: fixed; top: 0; left: 0; z-index: 9999';
             document.body.appendChild(box);
             let left = 300;
             const fill = () => box.replaceChildren(...[0, 1, 2].map((n) => {
               const item = document.createElement('span');
               item.dataset.testid = 'churn-item';
               item.dataset.n = String(n);
               item.textContent = `item ${n}`;
               return item;
             }));
             fill();
             const timer = setInterval(() => {
               fill();
               left -= 1;
               if (left === 0) {
                 clearInterval(timer);
                 window.churnDone = true;
               }
             }, 10);",
            Vec::new(),
        )
        .await?;
    let mut reads_while_changing = 0;
    loop {
        let done = window
            .client
            .execute("return window.churnDone === true;", Vec::new())
            .await?
            .as_bool()
            == Some(true);
        assert_eq!(
            window.texts("[data-testid=churn-item]").await?,
            ["item 0", "item 1", "item 2"]
        );
        assert_eq!(
            window.attrs("[data-testid=churn-item]", "data-n").await?,
            ["0", "1", "2"]
        );
        if done {
            break;
        }
        reads_while_changing += 1;
    }
    assert!(
        reads_while_changing > 0,
        "the list was read while it changed"
    );
    window.quit().await
}
