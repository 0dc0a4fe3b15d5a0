//! The native menu: File, Edit, View, Help.
//!
//! GTK 3 has no predefined Quit, Close Window or Full Screen items, so those
//! are our own items with the usual accelerators. Items that act on the page
//! (Open Folder…, Keyboard Shortcuts) become a typed [`WindowRequest`] for
//! the UI; the rest act here.

use gatehouse_protocol::window::{WINDOW_REQUEST_CHANNEL, WindowRequest};
use tauri::menu::{
    AboutMetadataBuilder, Menu, MenuBuilder, MenuEvent, MenuItemBuilder, SubmenuBuilder,
};
use tauri::{AppHandle, Emitter as _, Manager as _, Runtime};

/// What a menu item does, by its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MenuCommand {
    OpenFolder,
    CloseWindow,
    Quit,
    Reload,
    ToggleFullScreen,
    Shortcuts,
}

impl MenuCommand {
    const ALL: [MenuCommand; 6] = [
        Self::OpenFolder,
        Self::CloseWindow,
        Self::Quit,
        Self::Reload,
        Self::ToggleFullScreen,
        Self::Shortcuts,
    ];

    /// The menu item's id.
    fn id(self) -> &'static str {
        match self {
            Self::OpenFolder => "open-folder",
            Self::CloseWindow => "close-window",
            Self::Quit => "quit",
            Self::Reload => "reload",
            Self::ToggleFullScreen => "toggle-full-screen",
            Self::Shortcuts => "keyboard-shortcuts",
        }
    }

    /// The command of a menu item id; `None` for predefined items (Copy, …).
    pub(crate) fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.id() == id)
    }

    /// The request the window handles, for the items that act on the page.
    pub(crate) fn window_request(self) -> Option<WindowRequest> {
        match self {
            Self::OpenFolder => Some(WindowRequest::PickFolder),
            Self::Shortcuts => Some(WindowRequest::ShowShortcuts),
            Self::CloseWindow | Self::Quit | Self::Reload | Self::ToggleFullScreen => None,
        }
    }
}

/// Whether View → Reload is enabled: in development builds only, where the
/// UI may change under a running app; in a release build a reload would only
/// drop what the window shows (open sessions keep running in the backend).
const RELOAD_ENABLED: bool = cfg!(debug_assertions);

/// Builds the app menu. `data_dir` is shown in About.
pub(crate) fn build<R: Runtime>(app: &AppHandle<R>, data_dir: &str) -> tauri::Result<Menu<R>> {
    let item = |command: MenuCommand, text: &str, accelerator: Option<&str>| {
        let builder = MenuItemBuilder::with_id(command.id(), text);
        match accelerator {
            Some(keys) => builder.accelerator(keys),
            None => builder,
        }
    };
    let file = SubmenuBuilder::new(app, "File")
        .item(&item(MenuCommand::OpenFolder, "Open Folder…", Some("CmdOrCtrl+O")).build(app)?)
        .separator()
        .item(
            &item(
                MenuCommand::CloseWindow,
                "Close Window",
                Some("CmdOrCtrl+W"),
            )
            .build(app)?,
        )
        .item(&item(MenuCommand::Quit, "Quit", Some("CmdOrCtrl+Q")).build(app)?)
        .build()?;
    let edit = SubmenuBuilder::new(app, "Edit")
        .undo()
        .redo()
        .separator()
        .cut()
        .copy()
        .paste()
        .select_all()
        .build()?;
    let view = SubmenuBuilder::new(app, "View")
        .item(
            &item(MenuCommand::Reload, "Reload", Some("CmdOrCtrl+R"))
                .enabled(RELOAD_ENABLED)
                .build(app)?,
        )
        .item(
            &item(
                MenuCommand::ToggleFullScreen,
                "Toggle Full Screen",
                Some("F11"),
            )
            .build(app)?,
        )
        .build()?;
    let about = AboutMetadataBuilder::new()
        .name(Some("Gatehouse"))
        .version(Some(env!("CARGO_PKG_VERSION")))
        .comments(Some(format!(
            "Run an AI coding agent's tools safely and visibly.\n\nData directory: {data_dir}"
        )))
        .license(Some(env!("CARGO_PKG_LICENSE")))
        .build();
    // No accelerator for the shortcuts overlay: "?" is typed into text
    // fields; the page opens the overlay on "?" itself, outside them.
    let help = SubmenuBuilder::new(app, "Help")
        .item(&item(MenuCommand::Shortcuts, "Keyboard Shortcuts", None).build(app)?)
        .separator()
        .about_with_text("About Gatehouse", Some(about))
        .build()?;
    MenuBuilder::new(app)
        .items(&[&file, &edit, &view, &help])
        .build()
}

/// Carries out a menu item.
pub(crate) fn handle<R: Runtime>(app: &AppHandle<R>, event: &MenuEvent) {
    let Some(command) = MenuCommand::from_id(event.id().as_ref()) else {
        return;
    };
    if let Some(request) = command.window_request() {
        if let Err(e) = app.emit(WINDOW_REQUEST_CHANNEL, &request) {
            eprintln!("gatehouse: could not send {request:?} to the window: {e}");
        }
        return;
    }
    let window = app.get_webview_window("main");
    let result = match (command, window) {
        // Exit runs the exit handler, which stores every pending event.
        (MenuCommand::Quit, _) => {
            app.exit(0);
            Ok(())
        }
        (MenuCommand::CloseWindow, Some(w)) => w.close(),
        (MenuCommand::Reload, Some(w)) if RELOAD_ENABLED => w.reload(),
        (MenuCommand::ToggleFullScreen, Some(w)) => {
            w.is_fullscreen().and_then(|full| w.set_fullscreen(!full))
        }
        _ => Ok(()),
    };
    if let Err(e) = result {
        eprintln!("gatehouse: menu item {command:?}: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_round_trips_through_its_id() {
        for command in MenuCommand::ALL {
            assert_eq!(MenuCommand::from_id(command.id()), Some(command));
        }
        assert_eq!(MenuCommand::from_id("copy"), None);
    }

    #[test]
    fn page_items_become_window_requests_and_the_rest_act_in_the_shell() {
        assert_eq!(
            MenuCommand::OpenFolder.window_request(),
            Some(WindowRequest::PickFolder)
        );
        assert_eq!(
            MenuCommand::Shortcuts.window_request(),
            Some(WindowRequest::ShowShortcuts)
        );
        assert_eq!(MenuCommand::Quit.window_request(), None);
        assert_eq!(MenuCommand::Reload.window_request(), None);
    }
}
