//! The app's own settings (issue 23): whether first run is over, the
//! provider and model new sessions start with, the default permission mode,
//! and the project to reopen — kept in `<data dir>/settings.json`, beside
//! the database whose projects it names (so `GATEHOUSE_DATA_DIR` gives a
//! separate app with its own first run). Sessions' own configuration
//! (`webSearch`, `smallFastModel`) stays in `~/.gatehouse/settings.json`,
//! which the CLI reads too.
//!
//! Also the sample project: the only folder the offline demo plays in
//! ([`check_replay_folder`]).

use std::path::{Path, PathBuf};

use gatehouse_core::bounded_read::{ReadTextError, read_text};
use gatehouse_protocol::onboarding::{AppSettings, DefaultModels, LastProject, ProviderSetting};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_store::Store;
use serde::Deserialize;

/// The settings file's name in the data directory.
pub const SETTINGS_FILE: &str = "settings.json";

/// The sample project's folder name in the data directory.
pub const SAMPLE_PROJECT_DIR: &str = "sample-project";

/// The Anthropic model new sessions start with until another is chosen.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";

/// Larger settings files are refused (they hold a handful of short fields).
pub(crate) const MAX_SETTINGS_BYTES: u64 = 64 * 1024;

/// The file's shape: every field optional, so a file written by an earlier
/// build (fewer fields) still reads; a field of the wrong type does not.
#[derive(Deserialize, Default)]
#[serde(default)]
struct FileSettings {
    onboarding_done: Option<bool>,
    provider: Option<ProviderSetting>,
    default_models: Option<FileModels>,
    default_mode: Option<PermissionMode>,
    last_project: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FileModels {
    anthropic: Option<String>,
    openai: Option<String>,
}

/// The settings of a first run: nothing chosen yet.
pub fn defaults() -> AppSettings {
    AppSettings {
        onboarding_done: false,
        provider: None,
        default_models: DefaultModels {
            anthropic: DEFAULT_ANTHROPIC_MODEL.into(),
            openai: String::new(),
        },
        default_mode: PermissionMode::Default,
        last_project: None,
    }
}

/// Where the settings file of `data_dir` is.
pub fn settings_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SETTINGS_FILE)
}

/// Reads the settings of `data_dir`: the defaults when there is no file.
pub fn read(data_dir: &Path) -> Result<AppSettings, String> {
    let path = settings_path(data_dir);
    let text = match read_text(&path, MAX_SETTINGS_BYTES) {
        Ok(None) => return Ok(defaults()),
        Ok(Some(text)) => text,
        Err(ReadTextError::TooLarge { size, .. }) => {
            return Err(format!(
                "{} is {size} bytes, larger than settings can be ({MAX_SETTINGS_BYTES})",
                path.display(),
            ));
        }
        Err(e) => return Err(format!("{} {e}", path.display())),
    };
    let file: FileSettings = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not valid settings: {e}", path.display()))?;
    let base = defaults();
    let models = file.default_models.unwrap_or_default();
    Ok(AppSettings {
        onboarding_done: file.onboarding_done.unwrap_or(false),
        provider: file.provider,
        default_models: DefaultModels {
            anthropic: models
                .anthropic
                .filter(|m| !m.trim().is_empty())
                .unwrap_or(base.default_models.anthropic),
            openai: models.openai.unwrap_or_default(),
        },
        default_mode: file.default_mode.unwrap_or(base.default_mode),
        last_project: file.last_project,
    })
}

/// The settings of `data_dir` for start-up: an unreadable file is set
/// aside (renamed with a timestamp, never deleted) so the app can save
/// again, and the reason is returned beside the defaults.
pub fn load(data_dir: &Path) -> (AppSettings, Option<String>) {
    match read(data_dir) {
        Ok(settings) => (settings, None),
        Err(reason) => {
            let kept = gatehouse_store::set_aside_file(&settings_path(data_dir));
            let note = match kept {
                Ok(Some(kept)) => format!("{reason}; it was kept as {}", kept.display()),
                Ok(None) => reason,
                Err(e) => format!("{reason}; it could not be set aside either: {e}"),
            };
            (defaults(), Some(note))
        }
    }
}

/// Checks `settings` and writes them atomically; returns them as saved
/// (models trimmed).
pub fn save(data_dir: &Path, settings: &AppSettings) -> Result<AppSettings, String> {
    let mut settings = settings.clone();
    match &mut settings.provider {
        Some(ProviderSetting::Anthropic { base_url }) => {
            *base_url = base_url
                .as_deref()
                .map(str::trim)
                .filter(|u| !u.is_empty())
                .map(str::to_owned);
            if let Some(url) = base_url {
                check_http_url("Anthropic API", url)?;
            }
        }
        Some(ProviderSetting::OpenAi { base_url }) => {
            *base_url = base_url.trim().to_owned();
            check_http_url("OpenAI-compatible server", base_url)?;
        }
        Some(ProviderSetting::Demo) | None => {}
    }
    settings.default_models.anthropic = settings.default_models.anthropic.trim().to_owned();
    settings.default_models.openai = settings.default_models.openai.trim().to_owned();
    if settings.default_models.anthropic.is_empty() {
        settings.default_models.anthropic = DEFAULT_ANTHROPIC_MODEL.into();
    }
    let path = settings_path(data_dir);
    let mut text = serde_json::to_string_pretty(&settings)
        .map_err(|e| format!("cannot encode {}: {e}", path.display()))?;
    text.push('\n');
    gatehouse_core::atomic_write::write_atomic(&path, text.as_bytes(), true)
        .map_err(|e| format!("cannot save {}: {e}", path.display()))?;
    Ok(settings)
}

/// Saves the choices of `settings` (first run, provider, models, mode) as
/// a front end sends them: the project to reopen is kept as the file has
/// it (it follows the projects opened, not a copy the window may hold from
/// before one was opened).
pub fn save_choices(data_dir: &Path, settings: &AppSettings) -> Result<AppSettings, String> {
    let mut settings = settings.clone();
    settings.last_project = read(data_dir).ok().and_then(|s| s.last_project);
    save(data_dir, &settings)
}

/// Records (or, with `None`, forgets) the project to reopen at start.
pub fn set_last_project(data_dir: &Path, folder: Option<&str>) -> Result<(), String> {
    let mut settings = read(data_dir)?;
    if settings.last_project.as_deref() == folder {
        return Ok(());
    }
    settings.last_project = folder.map(str::to_owned);
    save(data_dir, &settings).map(drop)
}

/// The project to reopen at start: none before first run is over or when
/// none was open; `Missing` when its folder is gone; else the project,
/// marked opened now.
pub fn last_project(settings: &AppSettings, store: &Store) -> Result<LastProject, String> {
    let Some(folder) = settings
        .last_project
        .as_deref()
        .filter(|_| settings.onboarding_done)
    else {
        return Ok(LastProject::None);
    };
    let Some(project) = store.project_by_path(folder).map_err(|e| e.to_string())? else {
        return Ok(LastProject::None);
    };
    if !Path::new(&project.path).is_dir() {
        return Ok(LastProject::Missing { project });
    }
    let project = store.open_project(project.id).map_err(|e| e.to_string())?;
    Ok(LastProject::Reopened { project })
}

/// Where the sample project of `data_dir` is (or would be).
pub fn sample_project_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SAMPLE_PROJECT_DIR)
}

/// The sample project's own settings: one allow rule for the demo's check
/// run, so trusting the project (first run's third step) visibly changes
/// something — the check runs unasked; the Edit still asks.
pub const SAMPLE_PROJECT_SETTINGS: &str =
    "{\n  \"permissions\": {\n    \"allow\": [\"Bash(python3 -c:*)\"]\n  }\n}\n";

/// Writes the sample project into `data_dir` (its files reset to the demo's
/// starting point, so the demo's edits apply again; with
/// [`SAMPLE_PROJECT_SETTINGS`] as `.claude/settings.json`) and returns its
/// folder.
pub fn create_sample_project(data_dir: &Path) -> Result<PathBuf, String> {
    let dir = sample_project_path(data_dir);
    let fail = |e: &dyn std::fmt::Display| {
        format!("cannot create the sample project in {}: {e}", dir.display())
    };
    gatehouse_agent::demo::create_sample_project(&dir).map_err(|e| fail(&e))?;
    let settings = dir.join(".claude").join("settings.json");
    gatehouse_core::atomic_write::write_atomic(&settings, SAMPLE_PROJECT_SETTINGS.as_bytes(), true)
        .map_err(|e| fail(&e))?;
    Ok(dir)
}

/// The built-in demo plays only in the sample project of `data_dir`: its
/// script narrates the sample's files and edits them, so anywhere else it
/// would describe what is not there and ask to apply edits that do not fit.
/// Paths are compared canonically.
pub fn check_replay_folder(project: &Path, data_dir: &Path) -> Result<(), String> {
    let sample = sample_project_path(data_dir);
    let same = match (project.canonicalize(), sample.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err(format!(
            "the offline demo plays only in its sample project ({}), not in {}: \
             create the sample project to try it, or choose Anthropic or an \
             OpenAI-compatible server for this folder (Settings → Provider)",
            sample.display(),
            project.display()
        ))
    }
}

fn check_http_url(what: &str, url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url)
        .map_err(|e| format!("the {what} URL `{url}` is not a valid URL: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(format!(
            "the {what} URL `{url}` must be an http or https address with a host"
        ));
    }
    Ok(())
}
