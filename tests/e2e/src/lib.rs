//! Support for end-to-end tests: launch the real Gatehouse binary through
//! `tauri-driver` (which drives Debian's `WebKitWebDriver`) and talk to its
//! window over WebDriver.
//!
//! `cargo xtask test e2e` builds the app and sets `GATEHOUSE_E2E_APP` and
//! `GATEHOUSE_E2E_TAURI_DRIVER`; it also provides a virtual display when
//! there is none. Each [`App`] gets its own driver process, so the
//! environment (data directory, test hooks) is per launch.

use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};

pub mod keyring;

/// Where the app binary and the driver are, or `None` (with the reason
/// printed) when the suite is not run through `cargo xtask test e2e`.
pub fn setup() -> Option<(PathBuf, PathBuf)> {
    let app = std::env::var_os("GATEHOUSE_E2E_APP").map(PathBuf::from);
    let driver = std::env::var_os("GATEHOUSE_E2E_TAURI_DRIVER").map(PathBuf::from);
    match (app, driver) {
        (Some(app), Some(driver)) => Some((app, driver)),
        _ => {
            // Counted; a failure under `cargo xtask test` (GATEHOUSE_REQUIRE_ALL).
            gatehouse_test_support::missing(
                "GATEHOUSE_E2E_APP / GATEHOUSE_E2E_TAURI_DRIVER are not set; \
                 run the end-to-end tests with `cargo xtask test e2e`",
            );
            None
        }
    }
}

/// Where screenshots go: `$GATEHOUSE_E2E_SCREENSHOTS`, else
/// `target/e2e-screenshots` in the workspace.
pub fn screenshot_dir() -> PathBuf {
    std::env::var_os("GATEHOUSE_E2E_SCREENSHOTS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/e2e-screenshots"),
        PathBuf::from,
    )
}

/// The window sizes [`App::layout_at_sizes`] checks: wide, laptop, small.
pub const LAYOUT_SIZES: [(u32, u32); 3] = [(1400, 900), (900, 600), (720, 480)];

/// How long to wait for the driver, the window and elements.
const TIMEOUT: Duration = Duration::from_secs(30);

/// How many times to ask for a WebDriver session before giving up.
const SESSION_ATTEMPTS: u32 = 3;

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A running Gatehouse window under WebDriver.
pub struct App {
    /// The WebDriver session.
    pub client: Client,
    /// The driver, until it is stopped (so its pid is never signalled after
    /// it was reaped and possibly reused).
    driver: Option<Child>,
}

/// Marks first run as done in `data_dir`'s app settings, as a returning
/// user's are (`gatehouse_session::app_settings`), with the offline demo as
/// the configured provider when none is (so a project's start form offers
/// replay scripts first, as these tests use). Other settings are kept.
pub fn mark_onboarded(data_dir: &Path) -> anyhow::Result<()> {
    use gatehouse_session::app_settings;
    let mut settings = app_settings::read(data_dir).map_err(anyhow::Error::msg)?;
    if settings.onboarding_done {
        return Ok(());
    }
    settings.onboarding_done = true;
    if settings.provider.is_none() {
        settings.provider = Some(gatehouse_protocol::onboarding::ProviderSetting::Demo);
    }
    app_settings::save(data_dir, &settings).map_err(anyhow::Error::msg)?;
    Ok(())
}

impl App {
    /// Launches the app with `GATEHOUSE_DATA_DIR=data_dir` and extra env, as
    /// a returning user: first run is marked done first ([`mark_onboarded`]),
    /// so the window opens on the home screen (or the project to reopen).
    pub async fn launch(
        app: &Path,
        driver: &Path,
        data_dir: &Path,
        env: &[(&str, &str)],
    ) -> anyhow::Result<Self> {
        mark_onboarded(data_dir)?;
        Self::launch_first_run(app, driver, data_dir, env).await
    }

    /// Launches the app with `GATEHOUSE_DATA_DIR=data_dir` and extra env,
    /// leaving the data directory as it is: on a fresh one, first run.
    pub async fn launch_first_run(
        app: &Path,
        driver: &Path,
        data_dir: &Path,
        env: &[(&str, &str)],
    ) -> anyhow::Result<Self> {
        let port = free_port()?;
        let native_port = free_port()?;
        // The driver's log goes to a file in the data directory, not to our
        // stderr: WebKitWebDriver and the app are its children, and a pipe
        // they inherit would keep the test runner's output open.
        let log = std::fs::File::create(data_dir.join("tauri-driver.log"))
            .context("creating the tauri-driver log file")?;
        let mut cmd = Command::new(driver);
        cmd.args([
            "--port",
            &port.to_string(),
            "--native-port",
            &native_port.to_string(),
        ])
        .env("GATEHOUSE_DATA_DIR", data_dir)
        .env_remove("GATEHOUSE_SMOKE")
        .stdout(Stdio::null())
        .stderr(log)
        // Its own process group, so stopping it also stops WebKitWebDriver
        // and the app it launched.
        .process_group(0);
        for (key, value) in env {
            cmd.env(key, value);
        }
        let mut driver = cmd
            .spawn()
            .with_context(|| format!("starting {}", driver.display()))?;
        // tauri-driver starts WebKitWebDriver on the native port at once;
        // a session request before both listen fails.
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err()
            || TcpStream::connect(("127.0.0.1", native_port)).is_err()
        {
            if let Some(status) = driver.try_wait()? {
                bail!("tauri-driver exited early: {status}");
            }
            if started.elapsed() > TIMEOUT {
                stop_group(&mut driver);
                bail!(
                    "tauri-driver (127.0.0.1:{port}) or WebKitWebDriver (127.0.0.1:{native_port}) \
                     did not listen within {TIMEOUT:?}"
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut caps = serde_json::Map::new();
        caps.insert(
            "tauri:options".into(),
            serde_json::json!({ "application": app }),
        );
        // On a loaded machine the first request can still be refused while
        // the drivers settle: try a few times before failing the test.
        let mut attempt = 0;
        let client = loop {
            attempt += 1;
            match ClientBuilder::native()
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await
            {
                Ok(client) => break client,
                Err(err) if attempt < SESSION_ATTEMPTS => {
                    eprintln!("e2e: opening a WebDriver session failed ({err}); retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(err) => {
                    stop_group(&mut driver);
                    return Err(err).with_context(|| {
                        format!("opening a WebDriver session on the app ({attempt} attempts)")
                    });
                }
            }
        };
        Ok(Self {
            client,
            driver: Some(driver),
        })
    }

    /// Replaces the text of the input matching `css`, typing it as a user
    /// does. WebKitWebDriver's `clear` does not always reach React (the old
    /// text then stays and the typed text is appended): when the field does
    /// not hold exactly `text` afterwards, it is set from script the way
    /// React sees typing (the native value setter, then an `input` event),
    /// and that fallback is printed.
    pub async fn type_into(&self, css: &str, text: &str) -> anyhow::Result<()> {
        let input = self.wait_for(css).await?;
        input.clear().await?;
        input.send_keys(text).await?;
        if input.prop("value").await?.as_deref() == Some(text) {
            return Ok(());
        }
        eprintln!(
            "e2e: typing into `{css}` did not leave exactly the text; setting it from script"
        );
        let element = serde_json::to_value(&input)?;
        self.client
            .execute(
                "const [el, value] = arguments; \
                 const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype; \
                 Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value); \
                 el.dispatchEvent(new Event('input', { bubbles: true }));",
                vec![element, serde_json::Value::from(text)],
            )
            .await
            .with_context(|| format!("setting `{css}` from script"))?;
        Ok(())
    }

    /// Waits for the element matching `css` to appear. One that the page
    /// replaces while the driver makes its handle ("stale element") is
    /// looked for again, as one not there yet is.
    pub async fn wait_for(&self, css: &str) -> anyhow::Result<Element> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let found = self
                .client
                .wait()
                .at_most(deadline.saturating_duration_since(Instant::now()))
                .for_element(Locator::Css(css))
                .await;
            match found {
                Ok(element) => return Ok(element),
                Err(e) if e.is_stale_element_reference() && Instant::now() < deadline => {}
                Err(e) => return Err(e).with_context(|| format!("waiting for `{css}`")),
            }
        }
    }

    /// Clicks the element matching `css` (waiting for it). WebKitWebDriver
    /// answers some native clicks on buttons inside the virtualised
    /// transcript with an error that has no message; the element is then
    /// clicked from script (`element.click()`, which runs the same React
    /// handler) and the fallback is printed so it stays visible.
    pub async fn click(&self, css: &str) -> anyhow::Result<()> {
        let element = self.wait_for(css).await?;
        if let Err(native) = element.clone().click().await {
            eprintln!("e2e: native click on `{css}` failed ({native}); clicking from script");
            let arg = serde_json::to_value(&element)
                .with_context(|| format!("passing `{css}` to a script"))?;
            self.client
                .execute("arguments[0].click();", vec![arg])
                .await
                .with_context(|| format!("clicking `{css}` from script"))?;
        }
        Ok(())
    }

    /// Starts a session with the replay provider from the session view's
    /// form (new session or resume): the script's path, then Start.
    pub async fn start_replay(&self, script: &Path) -> anyhow::Result<()> {
        self.wait_for("[data-testid=replay-script]")
            .await?
            .send_keys(&script.display().to_string())
            .await?;
        self.click("[data-testid=start-session]").await
    }

    /// Types `text` into the prompt box and sends it with Enter, as a user
    /// does (WebKitWebDriver's click on the Send button returned an empty
    /// error while the button re-rendered).
    pub async fn send_prompt(&self, text: &str) -> anyhow::Result<()> {
        let input = self.wait_for("[data-testid=prompt-input]").await?;
        input.send_keys(text).await?;
        input.send_keys("\u{E007}").await?;
        Ok(())
    }

    /// Text of every element matching `css` (WebDriver's rendered text),
    /// waiting for at least one.
    pub async fn texts(&self, css: &str) -> anyhow::Result<Vec<String>> {
        self.wait_for(css).await?;
        self.read_all(css, |element| async move { element.text().await })
            .await
    }

    /// Values of attribute `name` of every element matching `css`.
    pub async fn attrs(&self, css: &str, name: &str) -> anyhow::Result<Vec<String>> {
        self.wait_for(css).await?;
        self.read_all(css, |element| async move {
            Ok(element.attr(name).await?.unwrap_or_default())
        })
        .await
    }

    /// `read` of every element matching `css`, in one pass. A live view
    /// (the transcript while a session runs) may replace an element
    /// between the query and the read, which WebKitWebDriver answers with
    /// "stale element" or, once the node is freed, "no such element" (a
    /// handle `find_all` just returned can only be missing for that
    /// reason): the whole pass is then taken again, from a fresh query,
    /// until one completes or [`TIMEOUT`] has passed (a view that has not
    /// settled by then is a failure).
    async fn read_all<F, Fut>(&self, css: &str, read: F) -> anyhow::Result<Vec<String>>
    where
        F: Fn(Element) -> Fut,
        Fut: std::future::Future<Output = Result<String, fantoccini::error::CmdError>>,
    {
        let deadline = Instant::now() + TIMEOUT;
        let mut attempt = 1;
        loop {
            let pass = async {
                let mut values = Vec::new();
                for element in self.client.find_all(Locator::Css(css)).await? {
                    values.push(read(element).await?);
                }
                Ok::<_, fantoccini::error::CmdError>(values)
            };
            match pass.await {
                Ok(values) => return Ok(values),
                Err(e)
                    if (e.is_stale_element_reference() || e.is_no_such_element())
                        && Instant::now() < deadline =>
                {
                    attempt += 1;
                }
                Err(e) => {
                    return Err(e).with_context(|| format!("reading `{css}` (pass {attempt})"));
                }
            }
        }
    }

    /// Waits for the permission modal of a guarded Claude Code's Edit in
    /// `project` and checks it: the origin line, the edit's diff holding
    /// `new_text`, and its own styles loaded over whatever screen is open
    /// (the home screen never loads the session screen's).
    pub async fn expect_claude_code_edit_ask(
        &self,
        project: &Path,
        new_text: &str,
    ) -> anyhow::Result<()> {
        let modal = self.wait_for("[data-testid=permission-modal]").await?;
        let origin = self.texts("[data-testid=permission-origin]").await?;
        anyhow::ensure!(
            origin == [format!("Claude Code asks, in {}", project.display())],
            "the modal's origin line: {origin:?}"
        );
        let diff = self.texts("[data-testid=diff]").await?;
        anyhow::ensure!(
            diff.iter().any(|d| d.contains(new_text)),
            "the modal shows the edit's diff: {diff:?}"
        );
        anyhow::ensure!(modal.text().await?.contains("Edit"));
        let radius = self
            .computed_style("[data-testid=permission-modal]", "border-radius")
            .await?;
        anyhow::ensure!(
            radius == "12px",
            "the modal is unstyled (border-radius {radius:?})"
        );
        Ok(())
    }

    /// The computed value of CSS `property` of the first element matching
    /// `css` (waiting for it): a check that a screen's styles are loaded.
    pub async fn computed_style(&self, css: &str, property: &str) -> anyhow::Result<String> {
        self.wait_for(css).await?;
        let value = self
            .client
            .execute(
                "return getComputedStyle(document.querySelector(arguments[0])).getPropertyValue(arguments[1]);",
                vec![serde_json::Value::from(css), serde_json::Value::from(property)],
            )
            .await?;
        Ok(value.as_str().unwrap_or_default().to_owned())
    }

    /// Whether an element matching `css` is present now (no waiting).
    pub async fn exists(&self, css: &str) -> anyhow::Result<bool> {
        // Asked of the page in one step: `find_all` hands back element
        // handles, and one removed meanwhile (a loading placeholder going
        // away) fails the whole query with "stale element".
        let found = self
            .client
            .execute(
                "return document.querySelector(arguments[0]) !== null;",
                vec![serde_json::Value::from(css)],
            )
            .await
            .with_context(|| format!("looking for `{css}`"))?;
        Ok(found.as_bool() == Some(true))
    }

    /// Presses a key chord (xdotool's syntax, e.g. `shift+Tab`) as real X
    /// key events: the app's window gets the X input focus and the keys go
    /// through the X server (XTEST), as a user's would. WebKitWebDriver
    /// delivers neither `send_keys` nor the W3C actions API's modifier
    /// chords to the page's `keydown` listeners. Returns `Ok(false)`, after
    /// printing why, when `xdotool` is not installed (`cargo xtask test`
    /// installs it), so the caller can fall back and say so.
    pub async fn press_x_keys(&self, chord: &str) -> anyhow::Result<bool> {
        let installed = Command::new("xdotool")
            .arg("version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !installed {
            eprintln!("e2e: xdotool is not installed; cannot press {chord} as real X key events");
            return Ok(false);
        }
        // The window the driver opened: the visible one titled Gatehouse.
        let found = Command::new("xdotool")
            .args(["search", "--onlyvisible", "--name", "^Gatehouse$"])
            .output()
            .context("running xdotool search")?;
        let window = String::from_utf8_lossy(&found.stdout)
            .lines()
            .next()
            .map(str::to_owned)
            .with_context(|| {
                format!(
                    "xdotool found no visible window titled Gatehouse on DISPLAY={:?}",
                    std::env::var_os("DISPLAY")
                )
            })?;
        let status = Command::new("xdotool")
            .args([
                "windowfocus",
                "--sync",
                &window,
                "key",
                "--clearmodifiers",
                chord,
            ])
            .status()
            .context("running xdotool key")?;
        if !status.success() {
            bail!("xdotool could not press {chord} in window {window} ({status})");
        }
        Ok(true)
    }

    /// Scrolls the first element matching `css` to the top of its
    /// scrolling container (for a screenshot of a section further down).
    pub async fn scroll_into_view(&self, css: &str) -> anyhow::Result<()> {
        let element = self.wait_for(css).await?;
        let arg = serde_json::to_value(&element)
            .with_context(|| format!("passing `{css}` to a script"))?;
        self.client
            .execute("arguments[0].scrollIntoView({block: 'start'});", vec![arg])
            .await
            .with_context(|| format!("scrolling `{css}` into view"))?;
        Ok(())
    }

    /// Saves a PNG screenshot of the window as `<name>.png` in
    /// [`screenshot_dir`] and prints its path.
    pub async fn screenshot(&self, name: &str) -> anyhow::Result<PathBuf> {
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("creating the screenshot folder {}", dir.display()))?;
        let png = self
            .client
            .screenshot()
            .await
            .with_context(|| format!("taking screenshot {name}"))?;
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("e2e: screenshot {}", path.display());
        Ok(path)
    }

    /// Sets the window's size (the inner viewport is what the layout
    /// checks measure) and waits until the page has seen it.
    pub async fn set_size(&self, width: u32, height: u32) -> anyhow::Result<()> {
        self.client
            .set_window_size(width, height)
            .await
            .with_context(|| format!("resizing the window to {width}x{height}"))?;
        // The outer size includes no decorations under the test's X server;
        // wait until the page has laid out at the new width.
        until(&format!("the page at {width}x{height}"), 10, || async {
            let w = self
                .client
                .execute("return window.innerWidth;", vec![])
                .await?;
            Ok((w.as_u64() == Some(u64::from(width))).then_some(()))
        })
        .await?;
        // The page has the new size before WebKit has painted at it: a
        // screenshot taken now shows the old frame, cropped. Two animation
        // frames later the new one is on screen.
        self.client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
                vec![],
            )
            .await
            .context("waiting for the page to paint at its new size")?;
        Ok(())
    }

    /// What is wrong with the layout inside `css` (the whole page when it
    /// matches nothing), computed from the DOM's boxes: visible interactive
    /// elements (buttons, fields, links, focusable bars) that reach outside
    /// the window without a scrolling container to reach them in, and pairs
    /// of them whose visible boxes overlap. Empty when the layout is sound.
    pub async fn layout_problems(&self, css: &str) -> anyhow::Result<Vec<String>> {
        let found = self
            .client
            .execute(LAYOUT_CHECK, vec![serde_json::Value::from(css)])
            .await
            .with_context(|| format!("checking the layout of `{css}`"))?;
        Ok(found
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Opens the picked folder (`GATEHOUSE_TEST_PICK_FOLDER`) from the
    /// home screen, trusts the project when the trust prompt asks, and
    /// starts a replay session with `script`; returns once the session
    /// screen is up.
    pub async fn open_replay_session(&self, script: &Path) -> anyhow::Result<()> {
        self.click("[data-testid=open-folder]").await?;
        self.wait_for("[data-testid=session-view]").await?;
        let trust = until("the trust prompt or the new-session form", 30, || async {
            if self.exists("[data-testid=trust-prompt]").await? {
                return Ok(Some(true));
            }
            Ok(self
                .exists("[data-testid=replay-script]")
                .await?
                .then_some(false))
        })
        .await?;
        if trust {
            self.click("[data-testid=trust-project]").await?;
        }
        self.start_replay(script).await?;
        self.wait_for("[data-testid=session-screen]").await?;
        Ok(())
    }

    /// At every size of [`LAYOUT_SIZES`]: a screenshot `<name>-<w>x<h>`
    /// and the [`App::layout_problems`] of `css`, each added to `problems`
    /// prefixed with `name` and the size. The window is 1400x900 again
    /// afterwards.
    pub async fn layout_at_sizes(
        &self,
        name: &str,
        css: &str,
        problems: &mut Vec<String>,
    ) -> anyhow::Result<()> {
        for (w, h) in LAYOUT_SIZES {
            self.set_size(w, h).await?;
            self.screenshot(&format!("{name}-{w}x{h}")).await?;
            for p in self.layout_problems(css).await? {
                problems.push(format!("{name} at {w}x{h}: {p}"));
            }
        }
        self.set_size(1400, 900).await
    }

    /// Ends the session (closing the app) and stops the driver.
    pub async fn quit(mut self) -> anyhow::Result<()> {
        let closed = self.client.clone().close().await;
        if let Some(mut driver) = self.driver.take() {
            stop_group(&mut driver);
        }
        closed.context("closing the WebDriver session")
    }
}

impl Drop for App {
    fn drop(&mut self) {
        // A failed test must not leave the driver (and the app) running.
        if let Some(mut driver) = self.driver.take() {
            stop_group(&mut driver);
        }
    }
}

/// Kills the driver's whole process group (driver, WebKitWebDriver, app)
/// and reaps the driver.
fn stop_group(driver: &mut Child) {
    if let Some(pid) = i32::try_from(driver.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = driver.kill();
    let _ = driver.wait();
}

/// Polls `check` (every 100 ms) until it returns `Some`, failing with
/// `what` after `secs` seconds.
pub async fn until<T, F, Fut>(what: &str, secs: u64, mut check: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<Option<T>>>,
{
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = check().await? {
            return Ok(v);
        }
        if Instant::now() > deadline {
            bail!("timed out after {secs} s waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The script of [`App::layout_problems`]: boxes clipped to their
/// scrolling ancestors (a row scrolled out of view is not overlapping the
/// one scrolled into view), then overflow and overlap between them.
const LAYOUT_CHECK: &str = r#"
const root = document.querySelector(arguments[0]) || document.body;
const vw = window.innerWidth, vh = window.innerHeight;
const label = (el) => {
  const id = el.getAttribute('data-testid');
  const text = (el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30);
  return el.tagName.toLowerCase() + (id ? '[data-testid=' + id + ']' : '') + (text ? ' "' + text + '"' : '');
};
const overflow = (el) => {
  const s = getComputedStyle(el);
  const v = s.overflowX + ' ' + s.overflowY;
  return /(auto|scroll)/.test(v) ? 'scrolls' : /(hidden|clip)/.test(v) ? 'clips' : null;
};
const rect = (r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });
const outside = (box, c) => box.r > c.r + 2 || box.l < c.l - 2 || box.b > c.b + 2 || box.t < c.t - 2;
const items = [];
const problems = [];
for (const el of root.querySelectorAll('button, input, select, textarea, a[href], [role=button], [tabindex="0"]')) {
  const s = getComputedStyle(el);
  if (s.visibility === 'hidden' || s.display === 'none' || el.closest('[hidden], details:not([open]) > :not(summary)')) continue;
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1) continue;
  const own = rect(r);
  let box = own;
  let scrolled = false;
  // Sticking out of the box it sits in (a grid cell, a panel) draws it over
  // its neighbours even when no other control is under it.
  const parent = el.parentElement;
  if (parent && overflow(parent) === null && getComputedStyle(parent).display !== 'inline'
      && outside({ l: own.l, t: own.t, r: own.r, b: own.t + 1 }, rect(parent.getBoundingClientRect()))) {
    problems.push('sticks out of its container: ' + label(el));
  }
  for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    const kind = overflow(a);
    if (kind === null) continue;
    const c = rect(a.getBoundingClientRect());
    // A container that clips without scrolling hides what reaches past it:
    // the user cannot get to it.
    if (kind === 'clips' && !scrolled && outside(box, c) && !(box.r <= c.l || box.l >= c.r || box.b <= c.t || box.t >= c.b)) {
      problems.push('cut off (overflow hidden, no scrolling): ' + label(el));
    }
    if (kind === 'scrolls') scrolled = true;
    box = { l: Math.max(box.l, c.l), t: Math.max(box.t, c.t), r: Math.min(box.r, c.r), b: Math.min(box.b, c.b) };
  }
  if (box.r - box.l < 1 || box.b - box.t < 1) continue;
  if (!scrolled && (box.r > vw + 1 || box.b > vh + 1 || box.l < -1 || box.t < -1)) {
    problems.push('overflows the ' + vw + 'x' + vh + ' window: ' + label(el) + ' at ' + [box.l, box.t, box.r, box.b].map(Math.round).join(','));
  }
  items.push({ el, box });
}
for (let i = 0; i < items.length; i++) {
  for (let j = i + 1; j < items.length; j++) {
    const a = items[i], b = items[j];
    if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
    const w = Math.min(a.box.r, b.box.r) - Math.max(a.box.l, b.box.l);
    const h = Math.min(a.box.b, b.box.b) - Math.max(a.box.t, b.box.t);
    if (w > 2 && h > 2) problems.push('overlap: ' + label(a.el) + ' and ' + label(b.el));
  }
}
return problems;
"#;
