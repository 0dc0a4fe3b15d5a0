//! Read, Write and Edit on real temp files, through the runtime pipeline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod file_support;

use std::fs;
use std::os::unix::fs::PermissionsExt;

use file_support::{Session, s};
use gatehouse_core::CallStatus;
use gatehouse_protocol::event::{EventBody, RejectionStage};
use gatehouse_protocol::progress::ToolProgressData;
use serde_json::json;

// ---------------------------------------------------------------- Read

#[tokio::test]
async fn read_numbers_lines_like_cat_n_and_records_a_full_read() {
    let sx = Session::new();
    let p = sx.write("a.txt", "alpha\nbeta\r\n\ngamma");
    let text = sx.ok("Read", json!({"file_path": s(&p)})).await;
    assert_eq!(
        text,
        "     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma\n"
    );
    let state = sx.cache.get(&p).unwrap();
    assert!(!state.partial);
    assert!(state.content_hash.is_some());
}

#[tokio::test]
async fn read_offset_limit_and_the_default_cap_note() {
    let sx = Session::new();
    let body: String = (1..=2500).map(|i| format!("line {i}\n")).collect();
    let p = sx.write("long.txt", &body);
    let text = sx.ok("Read", json!({"file_path": s(&p)})).await;
    assert!(text.starts_with("     1\tline 1\n"));
    assert!(text.contains("  2000\tline 2000\n"));
    assert!(!text.contains("line 2001\n"));
    assert!(
        text.contains("offset=2001"),
        "{}",
        &text[text.len() - 300..]
    );
    assert!(sx.cache.get(&p).unwrap().partial);

    let text = sx
        .ok(
            "Read",
            json!({"file_path": s(&p), "offset": 10, "limit": 2}),
        )
        .await;
    assert!(
        text.starts_with("    10\tline 10\n    11\tline 11\n"),
        "{text}"
    );
    assert!(text.contains("offset=12"));

    let text = sx
        .ok("Read", json!({"file_path": s(&p), "offset": 9999}))
        .await;
    assert!(text.contains("only 2500 lines"), "{text}");
}

#[tokio::test]
async fn read_truncates_long_lines_with_a_marker() {
    let sx = Session::new();
    let p = sx.write("wide.txt", format!("{}\nshort\n", "x".repeat(5000)));
    let text = sx.ok("Read", json!({"file_path": s(&p)})).await;
    assert!(text.contains("[line truncated: 5000 characters]"));
    assert!(text.contains("     2\tshort\n"));
    let first = text.lines().next().unwrap();
    assert!(first.len() < 2100);
}

#[tokio::test]
async fn read_refuses_relative_paths_directories_binaries_and_missing_files() {
    let sx = Session::new();
    let r = sx.run("Read", json!({"file_path": "src/main.rs"})).await;
    assert_eq!(
        r.status,
        CallStatus::Rejected(RejectionStage::ValidateInput)
    );
    assert!(
        r.text().contains("must be an absolute path"),
        "{}",
        r.text()
    );

    let text = sx.err("Read", json!({"file_path": s(&sx.root())})).await;
    assert!(text.contains("is a directory"), "{text}");

    let bin = sx.write("blob.dat2", b"abc\0def");
    let text = sx.err("Read", json!({"file_path": s(&bin)})).await;
    assert!(
        text.contains("binary file") && text.contains("blob.dat2"),
        "{text}"
    );

    let zip = sx.write("a.zip", b"PK");
    assert!(
        sx.err("Read", json!({"file_path": s(&zip)}))
            .await
            .contains("binary")
    );

    let missing = sx.path("nope.txt");
    let text = sx.err("Read", json!({"file_path": s(&missing)})).await;
    assert!(
        text.contains("nope.txt") && text.contains("does not exist"),
        "{text}"
    );
    assert!(sx.cache.is_empty());

    sx.write("Config.toml", "x");
    let text = sx
        .err("Read", json!({"file_path": s(&sx.path("config.toml"))}))
        .await;
    assert!(
        text.contains("Did you mean") && text.contains("Config.toml"),
        "{text}"
    );
}

#[tokio::test]
async fn devices_and_pipes_are_refused_instead_of_blocking() {
    let sx = Session::new();
    let text = sx.err("Read", json!({"file_path": "/dev/zero"})).await;
    assert!(text.contains("not a regular file"), "{text}");
    let fifo = sx.path("pipe");
    let Some(mkfifo) = gatehouse_test_support::require_tool("mkfifo", "Debian package coreutils")
    else {
        return;
    };
    let made = std::process::Command::new(mkfifo).arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
    {
        let text = sx.err("Read", json!({"file_path": s(&fifo)})).await;
        assert!(text.contains("not a regular file"), "{text}");
        let text = sx
            .err("Write", json!({"file_path": s(&fifo), "content": "x"}))
            .await;
        assert!(text.contains("not a regular file"), "{text}");
    }
}

#[tokio::test]
async fn read_of_an_empty_file_and_of_invalid_utf8_says_so() {
    let sx = Session::new();
    let p = sx.write("empty.txt", "");
    assert!(
        sx.ok("Read", json!({"file_path": s(&p)}))
            .await
            .contains("empty")
    );
    let bad = sx.write("latin1.txt", b"caf\xE9\n");
    let text = sx.ok("Read", json!({"file_path": s(&bad)})).await;
    assert!(
        text.contains("caf\u{FFFD}") && text.contains("not valid UTF-8"),
        "{text}"
    );
}

#[tokio::test]
async fn read_decodes_utf16_and_bom_files() {
    let sx = Session::new();
    let p = sx.write("bom.txt", b"\xEF\xBB\xBFhello\n");
    assert_eq!(
        sx.ok("Read", json!({"file_path": s(&p)})).await,
        "     1\thello\n"
    );
    let mut utf16 = vec![0xFF, 0xFE];
    for u in "hi\r\nthere\r\n".encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    let p = sx.write("u16.txt", utf16);
    assert_eq!(
        sx.ok("Read", json!({"file_path": s(&p)})).await,
        "     1\thi\n     2\tthere\n"
    );
}

/// A UTF-16 file is read under the caps of a UTF-8 one (it was decoded
/// whole, then windowed, with no output cap).
#[test]
fn utf16_reads_are_capped_like_utf8_reads() {
    use gatehouse_tools::read::{MAX_OUTPUT_CHARS, ReadInput, ReadOutput, read};
    let sx = Session::new();
    let line = format!("{}😀", "x".repeat(199));
    let body: String = (1..=3000).map(|i| format!("{i} {line}\r\n")).collect();
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(body.encode_utf16().flat_map(u16::to_le_bytes));
    let p = sx.write("wide16.txt", bytes);
    let input = |offset: Option<u64>, limit: Option<u64>| ReadInput {
        file_path: s(&p),
        offset,
        limit,
        pages: None,
    };
    let ReadOutput::Text(out) = read(&sx.cache, &input(None, None)).unwrap() else {
        panic!("not text");
    };
    // 2000 lines of ~210 characters would be ~420,000: the output cap stops it.
    assert!(
        out.content.len() <= MAX_OUTPUT_CHARS + 1000,
        "{}",
        out.content.len()
    );
    assert!(out.num_lines < 2000 && !out.complete, "{}", out.num_lines);
    assert_eq!(out.total_lines, None, "the rest of the file was not read");
    let note = out.note.unwrap();
    assert!(
        note.contains(&format!("the output reached {MAX_OUTPUT_CHARS} characters"))
            && note.contains(&format!("offset={}", out.num_lines + 1)),
        "{note}"
    );
    assert!(out.content.starts_with(&format!("     1\t1 {line}\n")));
    assert!(sx.cache.get(&p).unwrap().partial);

    // The end of the file, by offset: the same lines as UTF-8 would give.
    let ReadOutput::Text(out) = read(&sx.cache, &input(Some(2999), Some(5))).unwrap() else {
        panic!("not text");
    };
    assert_eq!(
        out.content,
        format!("  2999\t2999 {line}\n  3000\t3000 {line}\n")
    );
    assert_eq!(out.total_lines, Some(3000));
}

#[tokio::test]
async fn read_permission_subject_is_canonical() {
    let sx = Session::new();
    let p = sx.write("real/a.txt", "x\n");
    std::os::unix::fs::symlink(sx.path("real"), sx.path("link")).unwrap();
    let via_link = sx.path("link/../link/a.txt");
    sx.ok("Read", json!({"file_path": s(&via_link)})).await;
    // Recorded under the canonical path.
    assert!(sx.cache.get(&p).is_some());
}

// ---------------------------------------------------------------- Write

#[tokio::test]
async fn write_creates_files_and_parents_and_returns_a_diff() {
    let sx = Session::new();
    let p = sx.path("new/dir/file.txt");
    let text = sx
        .ok("Write", json!({"file_path": s(&p), "content": "a\nb\n"}))
        .await;
    assert!(text.contains("File created successfully"), "{text}");
    assert_eq!(fs::read_to_string(&p).unwrap(), "a\nb\n");
    let diff = sx
        .sink
        .events()
        .into_iter()
        .find_map(|e| match e.body {
            EventBody::ToolProgress {
                data: ToolProgressData::FileDiff { diff, .. },
                ..
            } => Some(serde_json::to_value(diff).unwrap()),
            _ => None,
        })
        .expect("a file_diff progress event");
    assert_eq!(diff["created"], true);
    assert_eq!(diff["additions"], 2);
    assert_eq!(diff["hunks"][0]["new_start"], 1);
    assert_eq!(diff["hunks"][0]["lines"][1]["kind"], "added");
    assert_eq!(diff["hunks"][0]["lines"][1]["new_line"], 2);
}

#[tokio::test]
async fn overwriting_requires_a_current_full_read() {
    let sx = Session::new();
    let body: String = (1..=3000).map(|i| format!("{i}\n")).collect();
    let p = sx.write("f.txt", &body);
    let text = sx
        .err("Write", json!({"file_path": s(&p), "content": "new"}))
        .await;
    assert!(text.contains("has not been read"), "{text}");

    sx.ok("Read", json!({"file_path": s(&p)})).await; // capped at 2000 lines: partial
    let text = sx
        .err("Write", json!({"file_path": s(&p), "content": "new"}))
        .await;
    assert!(text.contains("only partly read"), "{text}");

    sx.ok("Read", json!({"file_path": s(&p), "limit": 5000}))
        .await;
    fs::write(&p, "changed by the user\n").unwrap();
    let text = sx
        .err("Write", json!({"file_path": s(&p), "content": "new"}))
        .await;
    assert!(text.contains("modified since it was read"), "{text}");
    assert_eq!(fs::read_to_string(&p).unwrap(), "changed by the user\n");

    sx.ok("Read", json!({"file_path": s(&p)})).await;
    sx.ok("Write", json!({"file_path": s(&p), "content": "new\n"}))
        .await;
    assert_eq!(fs::read_to_string(&p).unwrap(), "new\n");
    // The write is recorded: a second write needs no re-read.
    sx.ok("Write", json!({"file_path": s(&p), "content": "newer\n"}))
        .await;
}

#[tokio::test]
async fn write_keeps_permissions_and_encoding() {
    let sx = Session::new();
    let p = sx.write("run.sh", b"\xEF\xBB\xBFecho hi\n");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o750)).unwrap();
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    sx.ok(
        "Write",
        json!({"file_path": s(&p), "content": "echo bye\n"}),
    )
    .await;
    assert_eq!(fs::read(&p).unwrap(), b"\xEF\xBB\xBFecho bye\n");
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o750
    );
    assert_eq!(sx.entries(&sx.root()), ["run.sh"]);
}

#[tokio::test]
async fn write_to_a_directory_or_relative_path_fails_cleanly() {
    let sx = Session::new();
    fs::create_dir(sx.path("d")).unwrap();
    let text = sx
        .err(
            "Write",
            json!({"file_path": s(&sx.path("d")), "content": "x"}),
        )
        .await;
    assert!(text.contains("is a directory"), "{text}");
    let r = sx
        .run("Write", json!({"file_path": "x.txt", "content": "x"}))
        .await;
    assert_eq!(
        r.status,
        CallStatus::Rejected(RejectionStage::ValidateInput)
    );
}

// ---------------------------------------------------------------- Edit

#[tokio::test]
async fn edit_requires_a_read_and_then_needs_no_re_read() {
    let sx = Session::new();
    let p = sx.write("e.rs", "fn a() {}\nfn b() {}\n");
    let text = sx
        .err(
            "Edit",
            json!({"file_path": s(&p), "old_string": "a()", "new_string": "x()"}),
        )
        .await;
    assert!(
        text.contains("has not been read") && text.contains("e.rs"),
        "{text}"
    );
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    let text = sx
        .ok(
            "Edit",
            json!({"file_path": s(&p), "old_string": "a()", "new_string": "x()"}),
        )
        .await;
    assert!(
        text.contains("has been updated (1 replacement; +1 −1 lines)"),
        "{text}"
    );
    assert!(text.contains("     1\tfn x() {}"), "{text}");
    sx.ok(
        "Edit",
        json!({"file_path": s(&p), "old_string": "b()", "new_string": "y()"}),
    )
    .await;
    assert_eq!(fs::read_to_string(&p).unwrap(), "fn x() {}\nfn y() {}\n");
}

#[tokio::test]
async fn edit_uniqueness_reports_line_numbers_and_replace_all_works() {
    let sx = Session::new();
    let p = sx.write("dup.txt", "x = 1\ny = 2\nx = 1\n\nx = 1\n");
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    let text = sx
        .err(
            "Edit",
            json!({"file_path": s(&p), "old_string": "x = 1", "new_string": "x = 9"}),
        )
        .await;
    assert!(
        text.contains("occurs 3 times") && text.contains("at lines 1, 3, 5"),
        "{text}"
    );
    let text = sx
        .err(
            "Edit",
            json!({"file_path": s(&p), "old_string": "z = 1", "new_string": "q"}),
        )
        .await;
    assert!(text.contains("not found"), "{text}");
    sx.ok(
        "Edit",
        json!({"file_path": s(&p), "old_string": "x = 1", "new_string": "x = 9", "replace_all": true}),
    )
    .await;
    assert_eq!(
        fs::read_to_string(&p).unwrap(),
        "x = 9\ny = 2\nx = 9\n\nx = 9\n"
    );
}

#[tokio::test]
async fn identical_strings_and_notebooks_are_refused_at_validation() {
    let sx = Session::new();
    let p = sx.write("i.txt", "a\n");
    let r = sx
        .run(
            "Edit",
            json!({"file_path": s(&p), "old_string": "a", "new_string": "a"}),
        )
        .await;
    assert_eq!(
        r.status,
        CallStatus::Rejected(RejectionStage::ValidateInput)
    );
    assert!(r.text().contains("identical"));
    let nb = sx.write("n.ipynb", "{}");
    let r = sx
        .run(
            "Edit",
            json!({"file_path": s(&nb), "old_string": "a", "new_string": "b"}),
        )
        .await;
    assert!(r.text().contains("NotebookEdit"), "{}", r.text());
}

#[tokio::test]
async fn edit_keeps_crlf_bom_and_utf16() {
    let sx = Session::new();
    let p = sx.write("crlf.txt", b"\xEF\xBB\xBFone\r\ntwo\r\nthree\r\n");
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    sx.ok(
        "Edit",
        json!({"file_path": s(&p), "old_string": "one\ntwo", "new_string": "1\n2\n2.5"}),
    )
    .await;
    assert_eq!(
        fs::read(&p).unwrap(),
        b"\xEF\xBB\xBF1\r\n2\r\n2.5\r\nthree\r\n"
    );

    let mut utf16 = vec![0xFF, 0xFE];
    for u in "héllo\nwörld\n".encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    let p = sx.write("u16.txt", utf16);
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    sx.ok(
        "Edit",
        json!({"file_path": s(&p), "old_string": "wörld", "new_string": "welt"}),
    )
    .await;
    let mut want = vec![0xFF, 0xFE];
    for u in "héllo\nwelt\n".encode_utf16() {
        want.extend_from_slice(&u.to_le_bytes());
    }
    assert_eq!(fs::read(&p).unwrap(), want);
}

#[tokio::test]
async fn edit_folds_typographic_quotes_and_keeps_the_file_style() {
    let sx = Session::new();
    let p = sx.write("q.md", "She said “hello” and left.\n");
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    sx.ok(
        "Edit",
        json!({"file_path": s(&p), "old_string": "said \"hello\"", "new_string": "said \"goodbye\""}),
    )
    .await;
    assert_eq!(
        fs::read_to_string(&p).unwrap(),
        "She said “goodbye” and left.\n"
    );
}

#[tokio::test]
async fn stale_edits_are_refused_until_read_again() {
    let sx = Session::new();
    let p = sx.write("s.txt", "v1\n");
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    fs::write(&p, "v2 from the user\n").unwrap();
    let text = sx
        .err(
            "Edit",
            json!({"file_path": s(&p), "old_string": "v2", "new_string": "v3"}),
        )
        .await;
    assert!(
        text.contains("modified since it was read") && text.contains("Read it again"),
        "{text}"
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), "v2 from the user\n");

    // Touched only (mtime moved, same bytes): not stale.
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    let f = fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
    drop(f);
    sx.ok(
        "Edit",
        json!({"file_path": s(&p), "old_string": "v2", "new_string": "v3"}),
    )
    .await;
}

#[tokio::test]
async fn a_file_deleted_between_read_and_edit_is_reported_and_not_recreated() {
    let sx = Session::new();
    let p = sx.write("gone.txt", "x\n");
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    fs::remove_file(&p).unwrap();
    let text = sx
        .err(
            "Edit",
            json!({"file_path": s(&p), "old_string": "x", "new_string": "y"}),
        )
        .await;
    assert!(
        text.contains("gone.txt") && text.contains("does not exist"),
        "{text}"
    );
    assert!(!p.exists());
}

#[tokio::test]
async fn empty_old_string_creates_a_new_file() {
    let sx = Session::new();
    let p = sx.path("sub/created.txt");
    sx.ok(
        "Edit",
        json!({"file_path": s(&p), "old_string": "", "new_string": "hi\n"}),
    )
    .await;
    assert_eq!(fs::read_to_string(&p).unwrap(), "hi\n");
    // It is recorded, so it can be edited right away.
    sx.ok(
        "Edit",
        json!({"file_path": s(&p), "old_string": "hi", "new_string": "ho"}),
    )
    .await;
    let text = sx
        .err(
            "Edit",
            json!({"file_path": s(&p), "old_string": "", "new_string": "x"}),
        )
        .await;
    assert!(text.contains("old_string is empty"), "{text}");
}

#[tokio::test]
async fn edit_of_invalid_utf8_or_binary_is_refused_without_writing() {
    let sx = Session::new();
    let p = sx.write("l1.txt", b"caf\xE9\n");
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    let text = sx
        .err(
            "Edit",
            json!({"file_path": s(&p), "old_string": "caf", "new_string": "tea"}),
        )
        .await;
    assert!(
        text.contains("not valid UTF-8") && text.contains("l1.txt"),
        "{text}"
    );
    assert_eq!(fs::read(&p).unwrap(), b"caf\xE9\n");
}

#[tokio::test]
async fn a_read_only_directory_leaves_the_original_intact() {
    // Root ignores directory permissions (CAP_DAC_OVERRIDE): as root the
    // test runs again in a child process as `nobody`, where they apply.
    if gatehouse_test_support::rerun_unprivileged() {
        return;
    }
    let sx = Session::new();
    let p = sx.write("ro/keep.txt", "original\n");
    sx.ok("Read", json!({"file_path": s(&p)})).await;
    let dir = sx.path("ro");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
    let text = sx
        .err(
            "Edit",
            json!({"file_path": s(&p), "old_string": "original", "new_string": "x"}),
        )
        .await;
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    assert!(
        text.contains("permission denied") && text.contains("unchanged"),
        "{text}"
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), "original\n");
    assert_eq!(sx.entries(&dir), ["keep.txt"]);
}

#[tokio::test]
async fn files_over_one_gib_are_refused() {
    let sx = Session::new();
    let p = sx.path("huge.txt");
    let f = fs::File::create(&p).unwrap();
    f.set_len((1 << 30) + 1).unwrap(); // sparse
    drop(f);
    let text = sx
        .err(
            "Edit",
            json!({"file_path": s(&p), "old_string": "a", "new_string": "b"}),
        )
        .await;
    assert!(text.contains("over 1 GiB"), "{text}");
}

#[tokio::test]
async fn flags_and_subjects_follow_the_spec() {
    use gatehouse_core::permission::PermissionSubject;
    let sx = Session::new();
    let pool = sx.rt.pool();
    let ctx = gatehouse_core::ToolUseContext {
        cwd: "/tmp/.".into(),
        ..Default::default()
    };
    let canonical_tmp = std::path::Path::new("/tmp").canonicalize().unwrap();
    for (name, ro) in [
        ("Read", true),
        ("Glob", true),
        ("Grep", true),
        ("Write", false),
        ("Edit", false),
        ("NotebookEdit", false),
    ] {
        let tool = pool.find(name).unwrap_or_else(|| panic!("{name} missing"));
        let input = match name {
            "Read" => json!({"file_path": "/tmp/x"}),
            "Write" => json!({"file_path": "/tmp/x", "content": "c"}),
            "Edit" => json!({"file_path": "/tmp/x", "old_string": "a", "new_string": "b"}),
            "NotebookEdit" => {
                json!({"notebook_path": "/tmp/x.ipynb", "cell_id": "a", "new_source": "b"})
            }
            _ => json!({"pattern": "p", "path": "/tmp"}),
        };
        assert_eq!(tool.is_read_only(&input), ro, "{name}");
        assert_eq!(tool.is_concurrency_safe(&input), ro, "{name}");
        let subject = tool.permission_subject(&input, &ctx).unwrap();
        match subject {
            PermissionSubject::ReadPath(p) => {
                assert!(ro && p.starts_with(&canonical_tmp), "{name}")
            }
            PermissionSubject::WritePath(p) => {
                assert!(!ro && p.starts_with(&canonical_tmp), "{name}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    // Without `path`, Glob and Grep search the working directory: that is
    // what the rules must see, canonicalised.
    for name in ["Glob", "Grep"] {
        let tool = pool.find(name).unwrap();
        assert_eq!(
            tool.permission_subject(&json!({"pattern": "p"}), &ctx),
            Some(PermissionSubject::ReadPath(canonical_tmp.clone())),
            "{name}"
        );
    }
}

#[tokio::test]
async fn one_message_reads_in_parallel_then_edits_in_order() {
    use gatehouse_core::testing::call;
    let sx = Session::new();
    let a = sx.write("a.txt", "alpha\n");
    let b = sx.write("b.txt", "beta\n");
    let blocks = vec![
        call("r1", "Read", json!({"file_path": s(&a)})),
        call("r2", "Read", json!({"file_path": s(&b)})),
        call("g1", "Glob", json!({"pattern": "*.txt"})),
        call(
            "e1",
            "Edit",
            json!({"file_path": s(&a), "old_string": "alpha", "new_string": "ALPHA"}),
        ),
        call(
            "w1",
            "Write",
            json!({"file_path": s(&b), "content": "BETA\n"}),
        ),
    ];
    let ctx = gatehouse_core::ToolUseContext {
        cwd: sx.root(),
        ..Default::default()
    };
    let outcome = sx
        .rt
        .run_tools(blocks, ctx, tokio_util::sync::CancellationToken::new())
        .await;
    for r in &outcome.results {
        assert_eq!(
            r.status,
            CallStatus::Succeeded,
            "{}: {}",
            r.tool_use_id,
            r.text()
        );
    }
    assert_eq!(fs::read_to_string(&a).unwrap(), "ALPHA\n");
    assert_eq!(fs::read_to_string(&b).unwrap(), "BETA\n");
    // Read, Read and Glob ran as one batch.
    let batches: Vec<(String, u32)> = sx
        .sink
        .events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::ToolStarted {
                tool_use_id, batch, ..
            } => Some((tool_use_id, batch)),
            _ => None,
        })
        .collect();
    let batch_of = |id: &str| batches.iter().find(|(i, _)| i == id).unwrap().1;
    assert_eq!(batch_of("r1"), batch_of("r2"));
    assert_eq!(batch_of("r1"), batch_of("g1"));
    assert_ne!(batch_of("e1"), batch_of("w1"));
}

#[tokio::test]
async fn edits_through_a_symlink_change_the_target_and_keep_the_link() {
    let sx = Session::new();
    let target = sx.write("real.txt", "one\n");
    let link = sx.path("link.txt");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    sx.ok("Read", json!({"file_path": s(&link)})).await;
    sx.ok(
        "Edit",
        json!({"file_path": s(&link), "old_string": "one", "new_string": "two"}),
    )
    .await;
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "two\n");
    assert_eq!(sx.entries(&sx.root()), ["link.txt", "real.txt"]);
}
