//! What the sandbox's integration tests share.
#![allow(dead_code, clippy::unwrap_used)]

/// Runs `cmd` with stdin closed: its exit code (-1 for a signal) and
/// stdout followed by stderr.
pub async fn merged_output(mut cmd: tokio::process::Command) -> (i32, String) {
    cmd.stdin(std::process::Stdio::null());
    let out = cmd.output().await.unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// Whether `tool` is on `PATH`.
pub fn which(tool: &str) -> bool {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .any(|d| d.join(tool).is_file())
}
