//! How the window's web view renders (issue 23 item 6): without GPU
//! compositing, unless `GATEHOUSE_GPU=1`.
//!
//! Measured under Xvfb (the home screen idle for 10 s, PSS from
//! `smaps_rollup`): WebKit's web process holds 191 MB with its default
//! (hardware acceleration through its DMABuf renderer, here on Mesa's
//! software GL) and 113 MB with the policy "never" — the app's largest
//! saving. Gatehouse's screens are text, lists and diffs, which WebKit's
//! non-composited path draws without a GPU; it is also the path that
//! avoids the blank windows some GPU drivers give WebKitGTK.

/// The environment variable that keeps WebKit's own hardware acceleration.
pub const GPU_ENV: &str = "GATEHOUSE_GPU";

/// Sets the rendering of `window`'s web view (before its page draws much).
pub fn apply(window: &tauri::WebviewWindow) {
    if std::env::var_os(GPU_ENV).is_some_and(|v| v == "1") {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let set = window.with_webview(|webview| {
            use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt as _, WebViewExt as _};
            if let Some(settings) = webview.inner().settings() {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
        });
        if let Err(e) = set {
            eprintln!("gatehouse: note: the web view's rendering was left as it was: {e}");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = window;
}
