//! Issue 23 item 5: light and dark everywhere. Settings → Appearance pins
//! Light or Dark; every screen (home, settings, session browser, rules,
//! MCP, a live session) is then drawn with that theme's colours — checked
//! from the computed background and text colours of the screen's page, and
//! photographed as `theme-<screen>-<theme>` — and the choice is still in
//! force after the app is started again.

use gatehouse_e2e::{App, screenshot_dir, setup};
use serde_json::json;

/// The relative luminance (0 black – 1 white) of the computed `property`
/// of the first element matching `css`, by the WCAG formula.
async fn luminance(window: &App, css: &str, property: &str) -> anyhow::Result<f64> {
    window.wait_for(css).await?;
    let value = window
        .client
        .execute(
            "const el = document.querySelector(arguments[0]);
             let node = el, colour = '';
             // The first ancestor that paints a background (transparent
             // ones show their parent's).
             while (node) {
               colour = getComputedStyle(node)[arguments[1]];
               if (arguments[1] !== 'backgroundColor' || !/rgba\\(.*, 0\\)$|transparent/.test(colour)) break;
               node = node.parentElement;
             }
             const m = colour.match(/[\\d.]+/g);
             if (!m) return -1;
             const [r, g, b] = m.slice(0, 3).map(Number).map((c) => {
               c /= 255;
               return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
             });
             return 0.2126 * r + 0.7152 * g + 0.0722 * b;",
            vec![json!(css), json!(property)],
        )
        .await?
        .as_f64()
        .unwrap_or(-1.0);
    anyhow::ensure!(value >= 0.0, "no colour for {property} of `{css}`");
    Ok(value)
}

/// Fails unless the page matching `css` is drawn in `theme`: a light
/// ground with dark text, or the reverse.
async fn assert_theme(window: &App, screen: &str, css: &str, theme: &str) -> anyhow::Result<()> {
    let ground = luminance(window, css, "backgroundColor").await?;
    let text = luminance(window, css, "color").await?;
    let ok = match theme {
        "light" => ground > 0.7 && text < 0.2,
        _ => ground < 0.1 && text > 0.5,
    };
    window
        .screenshot(&format!("theme-{screen}-{theme}"))
        .await?;
    anyhow::ensure!(
        ok,
        "{screen} is not drawn {theme}: background luminance {ground:.2}, text {text:.2}"
    );
    Ok(())
}

async fn choose(window: &App, theme: &str) -> anyhow::Result<()> {
    window.click("[data-testid=open-settings]").await?;
    window
        .click(&format!("[data-testid=theme-{theme}]"))
        .await?;
    let applied = window
        .client
        .execute(
            "return document.documentElement.dataset.theme ?? null;",
            vec![],
        )
        .await?;
    anyhow::ensure!(
        applied == json!(theme),
        "data-theme is {applied}, not {theme}"
    );
    Ok(())
}

#[tokio::test]
async fn every_screen_follows_the_chosen_theme_and_the_choice_is_remembered() -> anyhow::Result<()>
{
    let Some((app, driver)) = setup() else {
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let folders = tempfile::tempdir()?;
    let project = folders.path().join("themes");
    std::fs::create_dir(&project)?;
    let project = project.canonicalize()?;
    let script = folders.path().join("script.json");
    std::fs::write(
        &script,
        serde_json::to_vec(&json!({"turns": [{"content": [{"type": "text", "text": "Hello."}]}]}))?,
    )?;
    println!("e2e: screenshots go to {}", screenshot_dir().display());
    let project_text = project.display().to_string();
    let env = [("GATEHOUSE_TEST_PICK_FOLDER", project_text.as_str())];
    let window = App::launch(&app, &driver, data.path(), &env).await?;
    for theme in ["light", "dark"] {
        choose(&window, theme).await?;
        assert_theme(&window, "settings", "[data-testid=settings]", theme).await?;
        window.click("[data-testid=open-sessions]").await?;
        assert_theme(&window, "sessions", "[data-testid=browser-screen]", theme).await?;
        window.click("[data-testid=open-rules]").await?;
        assert_theme(&window, "rules", "[data-testid=rules-screen]", theme).await?;
        window.click("[data-testid=open-mcp]").await?;
        assert_theme(&window, "mcp", "[data-testid=mcp]", theme).await?;
        window.click(".app-header h1").await?;
        assert_theme(&window, "home", "[data-testid=home]", theme).await?;
        window.open_replay_session(&script).await?;
        assert_theme(&window, "session", "[data-testid=session-screen]", theme).await?;
    }
    // Back home: a project still open at quit is reopened at the next start.
    window.click("[data-testid=back-home]").await?;
    window.wait_for("[data-testid=home]").await?;
    window.quit().await?;

    // Started again: still dark, before anything is clicked.
    let window = App::launch(&app, &driver, data.path(), &env).await?;
    assert_theme(&window, "home-restarted", "[data-testid=home]", "dark").await?;
    // The choice lives in the webview's storage, which outlives this test's
    // data directory: back to System, so later tests start as before.
    window.click("[data-testid=open-settings]").await?;
    window.click("[data-testid=theme-system]").await?;
    window.quit().await
}
