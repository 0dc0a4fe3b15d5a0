//! The Gatehouse desktop app: a thin Tauri shell over the runtime crates.
//!
//! It maps the commands declared in `gatehouse_protocol::command` to the
//! runtime and forwards runtime events to the window. Anything worth testing
//! without a window belongs in a runtime crate, not here.

mod browser;
mod claude_code;
mod commands;
mod hooks;
mod launch;
mod mcp;
mod mcp_auth;
mod menu;
mod onboarding;
mod rules;
mod sandbox;
mod session_pages;
mod sessions;
mod skills;
mod smoke;
mod store_watch;
mod test_browser;
mod web_search;

use std::sync::{Arc, Mutex};

use anyhow::Context;
use gatehouse_protocol::project::AppInfo;
use gatehouse_session::{HostConfig, SessionHost};
use gatehouse_store::Store;
use tauri_plugin_window_state::StateFlags;

/// The window's remembered size and position, in the data directory.
const WINDOW_STATE_FILE: &str = "window-state.json";

/// What every command handler can reach.
pub(crate) struct AppState {
    /// The database, or why it could not be opened (shared by the handlers'
    /// blocking tasks; see `commands::with_store`).
    store: Result<Arc<Mutex<Store>>, String>,
    /// The open sessions, or why sessions cannot run.
    host: Result<Arc<SessionHost>, String>,
    /// The runtime sessions run on (kept for the life of the app).
    runtime: tokio::runtime::Runtime,
    /// Facts reported by `app_info`.
    info: AppInfo,
}

/// Environment variable that makes `pick_folder` return this path instead of
/// opening the native dialog, which WebDriver cannot drive (e2e tests only).
pub const TEST_PICK_FOLDER_ENV: &str = "GATEHOUSE_TEST_PICK_FOLDER";

/// Runs the one whole-file rewrite an old database needs if a compaction
/// put it off because sessions were open (`FullRewrite`): now, before the
/// window opens, no session is open, so no session's writes wait for it.
/// A failure is reported and the app starts anyway (the database is as it
/// was, and the next compaction tries again).
fn rewrite_if_pending(mut store: Store) -> Store {
    match store.full_rewrite_pending() {
        Ok(true) => {
            eprintln!("gatehouse: compacting the database once (its whole file is rewritten)");
            match store.vacuum(0) {
                Ok(done) => eprintln!("gatehouse: the database was compacted: {done:?}"),
                Err(err) => eprintln!("gatehouse: the database's full rewrite failed: {err}"),
            }
        }
        Ok(false) => {}
        Err(err) => eprintln!("gatehouse: {err}"),
    }
    store
}

/// A launch on a data directory another window holds. Building the app runs
/// the single-instance plugin, which hands over to that window and exits
/// this process; without a session bus to hand over on, the error says why
/// this launch does not open a window (and GTK is never started for it).
fn refuse_second_launch(
    builder: tauri::Builder<tauri::Wry>,
    mut context: tauri::Context<tauri::Wry>,
    err: gatehouse_store::AppLockError,
) -> anyhow::Error {
    if !launch::session_bus_answers() {
        return err.into();
    }
    // No window flashes up for a launch that will not stay.
    for window in &mut context.config_mut().app.windows {
        window.create = false;
    }
    // Stops before the event loop; the build's own error adds nothing.
    let _ = builder
        .setup(|_| Err("the data directory is in use".into()))
        .build(context);
    err.into()
}

/// Opens the store, builds the window and runs until it closes.
pub fn run() -> anyhow::Result<()> {
    let args = <launch::Args as clap::Parser>::parse();
    let data_dir = gatehouse_store::data_dir().context("finding the data directory")?;
    // Taken before the database is opened, held until the process ends. When
    // another window has it, this launch hands over to that window (the
    // single-instance plugin, below) or, without D-Bus, says why and exits.
    let lock = gatehouse_store::AppLock::acquire(&data_dir);
    let smoke = smoke::requested(args.smoke);
    let launch_folder = std::env::current_dir()
        .ok()
        .and_then(|cwd| args.folder_from(&cwd));
    let context = tauri::generate_context!();
    let instance_id = launch::instance_id(&context.config().identifier, &data_dir);
    let builder = tauri::Builder::default()
        // First: a second launch hands over before anything else starts.
        .plugin(
            tauri_plugin_single_instance::Builder::new()
                .dbus_id(instance_id)
                .callback(launch::on_second_launch)
                .build(),
        );
    let (_lock, lock_error) = match lock {
        Ok(lock) => (Some(lock), None),
        // A smoke run checks this launch, so it never hands over.
        Err(err @ gatehouse_store::AppLockError::Held { .. }) if smoke => return Err(err.into()),
        Err(err @ gatehouse_store::AppLockError::Held { .. }) => {
            return Err(refuse_second_launch(builder, context, err));
        }
        // The directory cannot hold a lock file (read-only, full): the
        // database cannot be written either; the window says so.
        Err(gatehouse_store::AppLockError::Store(err)) => (None, Some(err)),
    };
    // Kept until the window closes; dropping it flushes the log.
    let _log = gatehouse_session::logging::init(&data_dir, "gatehouse")
        .map_err(|e| eprintln!("gatehouse: note: running without a log file: {e}"))
        .ok();
    let database_path = data_dir.join(gatehouse_store::DATABASE_FILE);
    let store = lock_error
        .map_or_else(|| Store::open(&data_dir), Err)
        .map(rewrite_if_pending)
        .map(|s| Arc::new(Mutex::new(s)))
        .map_err(|err| {
            eprintln!("gatehouse: {err}");
            err.to_string()
        });
    let info = AppInfo {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        data_dir: data_dir.display().to_string(),
        database_path: database_path.display().to_string(),
        smoke,
        database_error: store.as_ref().err().cloned(),
        launch_folder,
    };
    if smoke {
        smoke::start_watchdog();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("gatehouse-session")
        .build()
        .context("starting the session runtime")?;
    let window_sink = Arc::new(sessions::WindowSink::default());
    let host = match &store {
        Err(e) => Err(e.clone()),
        Ok(_) => SessionHost::new(
            HostConfig::new(data_dir.clone()),
            window_sink.clone(),
            runtime.handle().clone(),
        )
        .map(Arc::new)
        .map_err(|e| e.to_string()),
    };
    let menu_data_dir = info.data_dir.clone();
    let runtime_handle = runtime.handle().clone();
    // Where Claude Code's settings files are ("always allow" writes there).
    let home = match &host {
        Ok(host) => host.home().to_path_buf(),
        Err(_) => gatehouse_session::mcp_panel::home_dir(),
    };
    let claude_code_asks = claude_code::ClaudeCodeAsks::default();
    let bridge_data_dir = data_dir.clone();
    let database_ok = store.is_ok();
    builder
        .plugin(tauri_plugin_dialog::init())
        .plugin(
            tauri_plugin_window_state::Builder::new()
                // In the data directory, not the platform config directory:
                // each data directory (a test, a scratch profile) is its own app.
                .with_filename(data_dir.join(WINDOW_STATE_FILE).display().to_string())
                .with_state_flags(StateFlags::SIZE | StateFlags::POSITION | StateFlags::MAXIMIZED)
                .build(),
        )
        .menu(move |app| menu::build(app, &menu_data_dir))
        .on_menu_event(|app, event| menu::handle(app, &event))
        .setup(move |app| {
            // Events reach the window from now on.
            let _ = window_sink.app.set(app.handle().clone());
            runtime_handle.spawn(launch::quit_on_termination(app.handle().clone()));
            // A guarded Claude Code's asks reach this window from now on.
            use tauri::Manager as _;
            claude_code::serve(
                app.handle(),
                &app.state::<claude_code::ClaudeCodeAsks>(),
                bridge_data_dir.clone(),
                home,
                &runtime_handle,
            );
            // Sessions other processes write show live in the browser.
            if database_ok {
                store_watch::start(app.handle().clone(), bridge_data_dir);
            }
            Ok(())
        })
        .manage(claude_code_asks)
        .manage(rules::RulesState::default())
        .manage(AppState {
            store,
            host,
            runtime,
            info,
        })
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::list_projects,
            commands::add_project,
            commands::open_project,
            commands::pick_folder,
            commands::smoke_report,
            sessions::set_project_trust,
            sessions::start_session,
            sessions::resume_session,
            sessions::send_prompt,
            sessions::interrupt,
            sessions::set_mode,
            sessions::answer_permission,
            sessions::stop_task,
            sessions::open_task_output,
            sessions::answer_interaction,
            sessions::close_session,
            sessions::list_sessions,
            sessions::session_events,
            sessions::session_events_after,
            session_pages::session_events_before,
            sessions::set_api_key,
            sessions::delete_api_key,
            sessions::api_key_status,
            web_search::web_search_settings,
            web_search::save_web_search_settings,
            sandbox::sandbox_state,
            browser::browse_sessions,
            browser::session_facets,
            browser::session_summary,
            browser::search_sessions,
            browser::session_stats,
            browser::discover_claude_transcripts,
            browser::import_claude_transcripts,
            browser::export_session,
            browser::delete_sessions,
            browser::storage_info,
            browser::set_retention,
            browser::vacuum_database,
            mcp_auth::mcp_sign_in,
            mcp_auth::mcp_sign_out,
            mcp::mcp_servers,
            mcp::mcp_probe,
            mcp::mcp_save_server,
            mcp::mcp_remove_server,
            mcp::mcp_set_server_disabled,
            mcp::mcp_approve_server,
            rules::rules_view,
            rules::check_rule_edits,
            rules::validate_rule,
            rules::test_rule_call,
            rules::replay_rule_edits,
            rules::save_rule_edits,
            rules::undo_rules_save,
            hooks::hooks_view,
            hooks::save_hook_edit,
            hooks::test_hook,
            skills::skills_view,
            claude_code::answer_claude_code_ask,
            claude_code::claude_code_guard,
            claude_code::set_claude_code_guard,
            onboarding::startup_state,
            onboarding::save_app_settings,
            onboarding::test_provider_connection,
            onboarding::create_sample_project,
            onboarding::open_data_dir,
            onboarding::reset_database,
            onboarding::remove_project,
            onboarding::relocate_project,
            onboarding::forget_last_project,
        ])
        .build(context)
        .context("building the Tauri application")?
        .run(|app, event| {
            if let tauri::RunEvent::Exit = event {
                // Background tasks do not outlive the app, and every event
                // is stored before it exits.
                use tauri::Manager as _;
                let state = app.state::<AppState>();
                if let Ok(host) = &state.host {
                    let failures = state.runtime.block_on(host.finish());
                    if failures > 0 {
                        eprintln!("gatehouse: {failures} event(s) could not be stored");
                    }
                }
            }
        });
    Ok(())
}
