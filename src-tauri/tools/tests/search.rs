//! Glob and Grep on a generated tree, compared with Debian's `rg` where it
//! is installed (each comparison prints a message and passes when not).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod file_support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use file_support::{Session, s};
use gatehouse_core::CallStatus;
use gatehouse_protocol::event::RejectionStage;
use gatehouse_tools::grep::{GrepInput, OutputMode, grep};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "needle", "Needle", "fn", "return", "struct", "TODO",
    "haystack", "value", "let", "impl", "match", "self", "error", "ok", "{", "}",
];

/// A deterministic tree: 12 directories × 9 files in several languages,
/// a .gitignore (inside a fake git repo), hidden files, a binary file.
fn tree(root: &Path) {
    fs::create_dir_all(root.join(".git")).unwrap();
    fs::write(root.join(".gitignore"), "ignored/\n*.log\n").unwrap();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let exts = ["rs", "py", "js", "md", "txt", "toml", "log", "c", "go"];
    for d in 0..12 {
        let dir = if d == 11 {
            root.join("ignored")
        } else if d == 10 {
            root.join(".hidden")
        } else {
            root.join(format!("pkg{d}/src{}", d % 3))
        };
        fs::create_dir_all(&dir).unwrap();
        for (f, ext) in exts.iter().enumerate() {
            let lines = 5 + next() % 60;
            let mut body = String::new();
            for _ in 0..lines {
                let n = 1 + next() % 8;
                let line: Vec<&str> = (0..n)
                    .map(|_| WORDS[(next() % WORDS.len() as u64) as usize])
                    .collect();
                body.push_str(&line.join(" "));
                body.push('\n');
            }
            if f % 4 == 0 {
                body.push_str("fn special(\n    x: i32,\n) -> i32 {\n    return x;\n}\n");
            }
            fs::write(dir.join(format!("file{f}.{ext}")), body).unwrap();
        }
    }
    fs::write(root.join("pkg0/blob.bin"), b"needle\0binary needle").unwrap();
    fs::write(root.join(".dotfile.txt"), "needle in a hidden file\n").unwrap();
}

/// Whether `rg` is installed; when not, a counted skip of (the rg part of)
/// the test, a failure under `cargo xtask test`, which installs it.
fn rg_available() -> bool {
    gatehouse_test_support::require_tool("rg", "Debian package ripgrep").is_some()
}

fn rg(args: &[&str], root: &Path) -> Vec<String> {
    let out = Command::new("rg").args(args).arg(root).output().unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "rg failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Asserts equal and non-trivial.
fn same(ours: Vec<String>, theirs: Vec<String>) {
    assert!(
        !theirs.is_empty(),
        "rg found nothing: the comparison would be vacuous"
    );
    assert_eq!(ours, theirs);
}

fn ours(root: &Path, input: GrepInput) -> Vec<String> {
    grep(&input, root, &CancellationToken::new())
        .unwrap()
        .entries
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn input(pattern: &str, mode: OutputMode) -> GrepInput {
    GrepInput {
        pattern: pattern.into(),
        output_mode: Some(mode),
        ..GrepInput::default()
    }
}

macro_rules! need_rg {
    () => {
        if !rg_available() {
            return;
        }
    };
}

#[test]
fn grep_matches_rg_in_every_mode() {
    need_rg!();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    tree(&root);

    let files = ours(&root, input("needle", OutputMode::FilesWithMatches));
    assert!(!files.is_empty());
    same(sorted(files), sorted(rg(&["-l", "needle"], &root)));

    let content = ours(&root, input("needle", OutputMode::Content));
    same(content, rg(&["-n", "--sort", "path", "needle"], &root));

    let count = ours(&root, input("needle", OutputMode::Count));
    same(count, rg(&["-c", "--sort", "path", "needle"], &root));

    let mut ctx = input("TODO struct", OutputMode::Content);
    ctx.context = Some(2);
    same(
        ours(&root, ctx),
        rg(&["-n", "-C", "2", "--sort", "path", "TODO struct"], &root),
    );

    let mut ab = input("^impl", OutputMode::Content);
    ab.before = Some(1);
    ab.after = Some(3);
    same(
        ours(&root, ab),
        rg(
            &["-n", "-B", "1", "-A", "3", "--sort", "path", "^impl"],
            &root,
        ),
    );

    let mut ci = input("NEEDLE", OutputMode::Content);
    ci.case_insensitive = Some(true);
    ci.line_numbers = Some(false);
    same(
        ours(&root, ci),
        rg(&["-i", "-N", "--sort", "path", "NEEDLE"], &root),
    );
}

#[test]
fn grep_filters_and_multiline_match_rg() {
    need_rg!();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    tree(&root);

    let mut g = input("needle", OutputMode::FilesWithMatches);
    g.glob = Some("*.{rs,py}".into());
    same(
        sorted(ours(&root, g)),
        sorted(rg(&["-l", "-g", "*.{rs,py}", "needle"], &root)),
    );

    let mut g = input("needle", OutputMode::FilesWithMatches);
    g.glob = Some("!*.md *.txt *.md".into());
    let want = rg(
        &["-l", "-g", "!*.md", "-g", "*.txt", "-g", "*.md", "needle"],
        &root,
    );
    same(sorted(ours(&root, g)), sorted(want));

    let mut t = input("needle", OutputMode::Count);
    t.file_type = Some("py".into());
    same(
        ours(&root, t),
        rg(&["-c", "-t", "py", "--sort", "path", "needle"], &root),
    );

    let mut m = input(r"fn special\(.*?return", OutputMode::Content);
    m.multiline = Some(true);
    let want = rg(
        &[
            "-n",
            "-U",
            "--multiline-dotall",
            "--sort",
            "path",
            r"fn special\(.*?return",
        ],
        &root,
    );
    assert!(!want.is_empty());
    same(ours(&root, m), want);
}

#[test]
fn grep_skips_ignored_hidden_and_binary_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    tree(&root);
    let files = ours(&root, input("needle", OutputMode::FilesWithMatches));
    for f in &files {
        assert!(
            !f.contains("/ignored/") && !f.contains("/.hidden/") && !f.ends_with(".log"),
            "{f}"
        );
        assert!(
            !f.ends_with("blob.bin") && !f.ends_with(".dotfile.txt"),
            "{f}"
        );
    }
}

#[test]
fn grep_head_limit_and_offset_page_through_entries() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    tree(&root);
    let all = ours(&root, input("needle", OutputMode::Content));
    let mut page = input("needle", OutputMode::Content);
    page.offset = Some(3);
    page.head_limit = Some(5);
    let out = grep(&page, &root, &CancellationToken::new()).unwrap();
    assert_eq!(out.entries, all[3..8]);
    assert!(out.truncated);
    assert_eq!(out.total_entries, all.len());
}

#[tokio::test]
async fn grep_errors_name_the_problem() {
    let sx = Session::new();
    let r = sx.run("Grep", json!({"pattern": "a(b"})).await;
    assert_eq!(
        r.status,
        CallStatus::Rejected(RejectionStage::ValidateInput)
    );
    assert!(r.text().contains("invalid regex"), "{}", r.text());
    let r = sx.run("Grep", json!({"pattern": "a", "glob": "a[b"})).await;
    assert!(r.text().contains("invalid glob"), "{}", r.text());
    let r = sx
        .run("Grep", json!({"pattern": "a", "type": "klingon"}))
        .await;
    assert!(r.text().contains("unknown file type"), "{}", r.text());
    let r = sx.run("Grep", json!({"pattern": "a", "path": "rel"})).await;
    assert!(
        r.text().contains("must be an absolute path"),
        "{}",
        r.text()
    );
    let missing = sx.path("missing");
    let text = sx
        .err("Grep", json!({"pattern": "a", "path": s(&missing)}))
        .await;
    assert!(
        text.contains("missing") && text.contains("does not exist"),
        "{text}"
    );
}

#[tokio::test]
async fn grep_through_the_runtime_renders_like_claude_code() {
    let sx = Session::new();
    sx.write("a.txt", "one needle\ntwo\n");
    sx.write("b.txt", "nothing\n");
    let text = sx.ok("Grep", json!({"pattern": "needle"})).await;
    assert_eq!(text, format!("Found 1 file\n{}", s(&sx.path("a.txt"))));
    let text = sx
        .ok(
            "Grep",
            json!({"pattern": "needle", "output_mode": "content", "-n": true}),
        )
        .await;
    assert_eq!(text, format!("{}:1:one needle", s(&sx.path("a.txt"))));
    let text = sx.ok("Grep", json!({"pattern": "zzz"})).await;
    assert_eq!(text, "No files found");
    // A single file as the path.
    let text = sx
        .ok(
            "Grep",
            json!({"pattern": "two", "path": s(&sx.path("a.txt")), "output_mode": "count"}),
        )
        .await;
    assert!(
        text.starts_with(&format!("{}:1\n", s(&sx.path("a.txt")))),
        "{text}"
    );
}

// ---------------------------------------------------------------- Glob

fn glob_paths(text: &str) -> Vec<PathBuf> {
    text.lines()
        .filter(|l| l.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

#[tokio::test]
async fn glob_sorts_newest_first_and_respects_ignores() {
    let sx = Session::new();
    let root = sx.root();
    tree(&root);
    let old = sx.write("pkg1/src1/old.rs", "");
    let new = sx.write("pkg2/src2/new.rs", "");
    let f = fs::File::options().write(true).open(&old).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(86_400 * 365))
        .unwrap();
    let f = fs::File::options().write(true).open(&new).unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(3600))
        .unwrap();
    let text = sx
        .ok("Glob", json!({"pattern": "**/*.rs", "limit": 1000}))
        .await;
    let got = glob_paths(&text);
    assert_eq!(got.first(), Some(&new));
    assert_eq!(got.last(), Some(&old));
    for p in &got {
        let p = p.to_string_lossy();
        assert!(!p.contains("/ignored/") && !p.contains("/.hidden/"), "{p}");
    }
    if rg_available() {
        let mut want = rg(&["--files", "-g", "*.rs"], &root);
        want.sort();
        let mut got: Vec<String> = got.iter().map(|p| s(p)).collect();
        got.sort();
        assert_eq!(got, want);
    }
}

#[tokio::test]
async fn glob_caps_with_a_truncated_flag_and_names_hidden_when_asked() {
    let sx = Session::new();
    tree(&sx.root());
    let text = sx.ok("Glob", json!({"pattern": "**/*", "limit": 5})).await;
    assert_eq!(glob_paths(&text).len(), 5);
    assert!(text.contains("Results are truncated"), "{text}");
    // Only the top level with a slash-free pattern.
    let text = sx.ok("Glob", json!({"pattern": "*.txt"})).await;
    assert_eq!(text, "No files found");
    // A pattern naming a hidden directory finds it.
    let text = sx.ok("Glob", json!({"pattern": ".hidden/*.py"})).await;
    assert_eq!(glob_paths(&text), [sx.path(".hidden/file1.py")]);
    let sub = sx.path("pkg0");
    let text = sx
        .ok("Glob", json!({"pattern": "src0/file0.rs", "path": s(&sub)}))
        .await;
    assert_eq!(glob_paths(&text), [sx.path("pkg0/src0/file0.rs")]);
    let r = sx.run("Glob", json!({"pattern": "a[b"})).await;
    assert_eq!(
        r.status,
        CallStatus::Rejected(RejectionStage::ValidateInput)
    );
    assert!(r.text().contains("invalid glob"), "{}", r.text());
}

#[test]
fn a_cancelled_search_stops_with_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    tree(&root);
    let cancel = CancellationToken::new();
    cancel.cancel();
    let r = grep(&input("needle", OutputMode::Content), &root, &cancel);
    assert!(matches!(r, Err(gatehouse_core::ToolError::Cancelled)));
}

/// What a front end lists comes typed (`search_results` progress), not from
/// the result's text: Grep's count mode ends its text with a totals
/// sentence, and a truncated Glob with a note, neither of them a result.
#[tokio::test]
async fn searches_report_their_results_typed() {
    use gatehouse_protocol::progress::{SearchUnit, ToolProgressData};
    let sx = Session::new();
    let a = sx.write("a.txt", "one needle\ntwo needle\n");
    let b = sx.write("b.txt", "needle\n");
    sx.write("c.txt", "nothing\n");
    let results = |data: ToolProgressData| match data {
        ToolProgressData::SearchResults {
            unit,
            count,
            entries,
            more_entries,
            truncated,
        } => (unit, count, entries, more_entries, truncated),
        other => panic!("not search results: {other:?}"),
    };

    let text = sx
        .ok("Grep", json!({"pattern": "needle", "output_mode": "count"}))
        .await;
    assert!(
        text.ends_with("Found 3 matching lines across 2 files."),
        "{text}"
    );
    let (unit, count, mut entries, more, truncated) = results(sx.last_progress());
    entries.sort();
    assert_eq!(unit, SearchUnit::Lines);
    assert_eq!(count, 3);
    assert_eq!(entries, [format!("{}:2", s(&a)), format!("{}:1", s(&b))]);
    assert_eq!((more, truncated), (0, false));

    sx.ok("Grep", json!({"pattern": "needle"})).await;
    let (unit, count, entries, _, _) = results(sx.last_progress());
    assert_eq!((unit, count, entries.len()), (SearchUnit::Files, 2, 2));

    let text = sx.ok("Glob", json!({"pattern": "*.txt", "limit": 2})).await;
    assert!(text.contains("Results are truncated"), "{text}");
    let (unit, count, entries, more, truncated) = results(sx.last_progress());
    assert_eq!(unit, SearchUnit::Files);
    assert_eq!((count, entries.len(), more, truncated), (3, 2, 0, true));
    assert!(entries.iter().all(|e| e.starts_with('/')), "{entries:?}");

    // A match in a minified file is one long line: the listing stops at its
    // byte budget and counts the rest.
    let long = format!("{}needle\n", "x".repeat(200_000));
    sx.write("min1.js", &long);
    sx.write("min2.js", &long);
    sx.ok(
        "Grep",
        json!({"pattern": "needle", "glob": "*.js", "output_mode": "content"}),
    )
    .await;
    let (_, count, entries, more, _) = results(sx.last_progress());
    assert_eq!((count, entries.len(), more), (2, 1, 1));
}
