//! The conformance suite: every case is data in `tests/conformance/*.json`
//! (settings layout, mode, tool, input → expected decision and reason kind),
//! run in its own temporary directory tree. Failing cases are reported by
//! name, all at once.
//!
//! Case fields (all but `name`, `tool`, `expect` optional; a file's
//! `defaults` object supplies missing fields):
//! * `settings`: `{ "policy" | "flag" | "local" | "project" | "user": JSON
//!   object or raw text, "dropin": [object or text, …] }`;
//! * `trust` (default true), `mode`, `cwd` (relative to the project),
//!   `add_dirs`; `session_allow` / `session_deny` / `session_ask` and
//!   `flag_allow` / `flag_deny` / `flag_ask`: rule lists of those sources;
//! * `setup`: `{ "files": [path, …], "dirs": [path, …], "symlinks":
//!   [[link, target], …] }`;
//! * `tool`, `input`; `hook` (allow | ask | deny: a PreToolUse hook's
//!   verdict) and `updated_input` (the hook's rewrite, decided in place of
//!   `input`);
//! * `destructive` (default false): the tool declares itself destructive
//!   (an MCP tool's trusted `destructiveHint`);
//! * `expect` (allow | ask | deny), `reason` (the reason's kind), `rule`
//!   (the rule text in the reason), `source`, `settings_errors` (count),
//!   `trace` (`[layer, outcome]`: a trace step the decision must contain).
//!
//! Strings may use `$ROOT`, `$PROJECT` and `$HOME`; they are replaced by the
//! case's temporary directories.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};

use gatehouse_permissions::hook::{HookVerdict, combine};
use gatehouse_permissions::{CheckRequest, check};
use gatehouse_protocol::permission::PermissionDecision;
use serde_json::{Map, Value};

fn substitute(value: &Value, root: &Path) -> Value {
    let root_s = root.display().to_string();
    match value {
        Value::String(s) => Value::String(
            s.replace("$PROJECT", &format!("{root_s}/project"))
                .replace("$HOME", &format!("{root_s}/home"))
                .replace("$ROOT", &root_s),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, root)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), substitute(v, root)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn write_settings(path: &Path, value: &Value) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = match value {
        Value::String(raw) => raw.clone(),
        other => serde_json::to_string_pretty(other).unwrap(),
    };
    fs::write(path, text).unwrap();
}

fn run_case(case: &Map<String, Value>) -> Result<(), String> {
    let tmp = tempfile::tempdir().unwrap();
    // Canonical root, so expected paths agree on systems where the temp
    // directory is behind a symlink.
    let root = fs::canonicalize(tmp.path()).unwrap();
    let case = substitute(&Value::Object(case.clone()), &root);
    let case = case.as_object().unwrap();
    let project = root.join("project");
    let home = root.join("home");
    for dir in [
        project.join("src"),
        project.join(".git"),
        home.join(".ssh"),
        root.join("project-secrets"),
        root.join("outside"),
    ] {
        fs::create_dir_all(dir).unwrap();
    }
    for file in [
        project.join("src/main.rs"),
        project.join(".git/config"),
        project.join(".env"),
        project.join("README.md"),
        home.join(".bashrc"),
        home.join(".ssh/id_rsa"),
        root.join("project-secrets/key"),
        root.join("outside/file.txt"),
    ] {
        fs::write(file, "x").unwrap();
    }
    let resolve = |p: &str| -> PathBuf {
        let path = Path::new(p);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            project.join(path)
        }
    };
    if let Some(setup) = case.get("setup") {
        for d in setup
            .get("dirs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            fs::create_dir_all(resolve(d.as_str().unwrap())).unwrap();
        }
        for f in setup
            .get("files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let p = resolve(f.as_str().unwrap());
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "x").unwrap();
        }
        for pair in setup
            .get("symlinks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let link = resolve(pair[0].as_str().unwrap());
            let target = resolve(pair[1].as_str().unwrap());
            fs::create_dir_all(link.parent().unwrap()).unwrap();
            #[cfg(unix)]
            std::os::unix::fs::symlink(&target, &link).unwrap();
            #[cfg(not(unix))]
            let _ = (&link, &target);
        }
    }
    let mut request = CheckRequest::new(
        &project,
        &home,
        case["tool"].as_str().unwrap(),
        case.get("input")
            .cloned()
            .unwrap_or(Value::Object(Map::new())),
    );
    request.trust_project = case.get("trust").and_then(Value::as_bool).unwrap_or(true);
    request.destructive = case
        .get("destructive")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(mode) = case.get("mode") {
        request.mode =
            Some(serde_json::from_value(mode.clone()).map_err(|e| format!("bad mode: {e}"))?);
    }
    if let Some(cwd) = case.get("cwd").and_then(Value::as_str) {
        request.cwd = Some(resolve(cwd));
    }
    for d in case
        .get("add_dirs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        request.additional_dirs.push(resolve(d.as_str().unwrap()));
    }
    for (key, kind) in [
        ("session_allow", "allow"),
        ("session_deny", "deny"),
        ("session_ask", "ask"),
    ] {
        for rule in case
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            request.session_rules.push(
                serde_json::from_value(serde_json::json!({"kind": kind, "rule": rule})).unwrap(),
            );
        }
    }
    for (key, kind) in [
        ("flag_allow", "allow"),
        ("flag_deny", "deny"),
        ("flag_ask", "ask"),
    ] {
        for rule in case
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            request
                .flag_rules
                .push(serde_json::from_value(serde_json::json!([kind, rule])).unwrap());
        }
    }
    if let Some(Value::Object(settings)) = case.get("settings") {
        for (key, value) in settings {
            match key.as_str() {
                "policy" => {
                    let f = root.join("policy/managed-settings.json");
                    write_settings(&f, value);
                }
                "dropin" => {
                    for (i, v) in value.as_array().unwrap().iter().enumerate() {
                        write_settings(
                            &root.join(format!("policy/managed-settings.d/{i:02}.json")),
                            v,
                        );
                    }
                }
                "flag" => {
                    let f = root.join("flags/settings.json");
                    write_settings(&f, value);
                    request.settings_files.push(f);
                }
                "local" => write_settings(&project.join(".claude/settings.local.json"), value),
                "project" => write_settings(&project.join(".claude/settings.json"), value),
                "user" => write_settings(&home.join(".claude/settings.json"), value),
                other => return Err(format!("unknown settings source `{other}`")),
            }
        }
        request.managed_file = Some(root.join("policy/managed-settings.json"));
        request.managed_dropin_dir = Some(root.join("policy/managed-settings.d"));
    }
    // A PreToolUse hook: its `updated_input` is decided again, then its
    // verdict is combined with the engine's decision.
    if let Some(input) = case.get("updated_input") {
        request.input = input.clone();
    }
    let report = check(&request);
    let mut got = serde_json::to_value(&report).unwrap();
    if let Some(hook) = case.get("hook").and_then(Value::as_str) {
        let decision = PermissionDecision {
            decision: report.decision,
            reason: report.reason.clone(),
            trace: report.trace.clone(),
        };
        let verdict = HookVerdict {
            hook: "conformance-hook".into(),
            decision: Some(serde_json::from_value(Value::String(hook.into())).unwrap()),
            message: None,
        };
        let combined = combine(decision, Some(&verdict));
        got = serde_json::to_value(&combined).unwrap();
    }
    let mut problems = Vec::new();
    let expect = case["expect"].as_str().unwrap();
    if got["decision"] != expect {
        problems.push(format!(
            "decision: expected {expect}, got {}",
            got["decision"]
        ));
    }
    if let Some(kind) = case.get("reason")
        && got["reason"]["kind"] != *kind
    {
        problems.push(format!(
            "reason kind: expected {kind}, got {}",
            got["reason"]["kind"]
        ));
    }
    if let Some(rule) = case.get("rule")
        && got["reason"]["rule"] != *rule
    {
        problems.push(format!(
            "rule: expected {rule}, got {}",
            got["reason"]["rule"]
        ));
    }
    if let Some(source) = case.get("source")
        && got["reason"]["source"] != *source
    {
        problems.push(format!(
            "source: expected {source}, got {}",
            got["reason"]["source"]
        ));
    }
    if let Some(Value::Array(want)) = case.get("trace") {
        let has_step = got["trace"].as_array().into_iter().flatten().any(|step| {
            Some(&step["layer"]) == want.first() && Some(&step["outcome"]) == want.get(1)
        });
        if !has_step {
            problems.push(format!("trace: expected a step {want:?}"));
        }
    }
    if let Some(n) = case.get("settings_errors").and_then(Value::as_u64)
        && got["settings_errors"].as_array().map_or(0, Vec::len) as u64 != n
    {
        problems.push(format!(
            "settings_errors: expected {n}, got {}",
            got["settings_errors"]
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\n      reason: {}\n      trace: {}",
            problems.join("; "),
            got["reason"],
            got["trace"]
        ))
    }
}

#[test]
fn conformance_suite() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let filter = std::env::var("CONFORMANCE_FILTER").unwrap_or_default();
    let mut total = 0;
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let doc: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let defaults = doc
            .get("defaults")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        for case in doc["cases"].as_array().unwrap() {
            let mut merged = defaults.clone();
            for (k, v) in case.as_object().unwrap() {
                merged.insert(k.clone(), v.clone());
            }
            let name = format!("{stem}: {}", merged["name"].as_str().unwrap());
            assert!(names.insert(name.clone()), "duplicate case name {name}");
            if !name.contains(&filter) {
                continue;
            }
            total += 1;
            if let Err(e) = run_case(&merged) {
                failures.push(format!("  ✗ {name}\n      {e}"));
            }
        }
    }
    eprintln!(
        "conformance: {} of {total} cases passed",
        total - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} conformance cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        total > 0 || !filter.is_empty(),
        "no conformance cases found"
    );
}
