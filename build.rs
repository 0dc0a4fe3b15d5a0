//! Build script of the desktop app: checks that the UI was built, then lets
//! tauri-build read tauri.conf.json (it embeds `ui/dist` into the binary).

fn main() {
    let dist = std::path::Path::new("ui/dist/index.html");
    if !dist.exists() {
        // Say what to do instead of tauri's "frontendDist doesn't exist" panic.
        println!(
            "cargo::error=ui/dist is missing: build the UI first with `cargo xtask run` \
             (or `npm ci && npm run build` in ui/)"
        );
        return;
    }
    println!("cargo::rerun-if-changed=ui/dist");
    tauri_build::build();
}
