//! The `hooks` key as Claude Code writes it, and every malformed entry as
//! a settings error with file, line and column.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use gatehouse_hooks::config::{Handler, HookEvent, parse_hooks};
use gatehouse_protocol::event::HookEventName;
use gatehouse_protocol::permission::RuleSource;

#[test]
fn claude_codes_layout_parses_with_positions() {
    let text = r#"{
  "permissions": {"allow": ["Read"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 30}]}
    ],
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [
        {"type": "command", "command": "fmt.sh"},
        {"type": "http", "url": "http://127.0.0.1:9/h", "headers": {"X-A": "1"}, "secretHeaders": ["Authorization"]}
      ]}
    ]
  }
}"#;
    let p = parse_hooks(Path::new("/p/s.json"), RuleSource::Project, text);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(p.hooks.len(), 3);
    // Events come in name order (JSON objects are unordered); handlers of
    // one event keep their file order.
    let guard = &p.hooks[2];
    assert_eq!(guard.event, HookEvent::Known(HookEventName::PreToolUse));
    assert_eq!(guard.timeout.as_secs(), 30);
    assert_eq!((guard.position.line, guard.position.column), (5, 37));
    assert_eq!(guard.label(), "`./guard.sh` (project settings)");
    assert_eq!(p.hooks[0].timeout.as_secs(), 60, "the default timeout");
    assert!(
        matches!(&p.hooks[1].handler, Handler::Http { secret_headers, .. } if secret_headers == &["Authorization"])
    );
}

#[test]
fn malformed_entries_are_errors_with_file_line_and_column() {
    let text = r#"{"hooks": {
  "PreToolUse": [
    {"matcher": "Edit(", "hooks": [{"type": "command", "command": "a"}]},
    {"matcher": "Bash", "hooks": [
      {"type": "command"},
      {"type": "command", "command": "b", "timeout": "soon"},
      {"type": "prompt", "prompt": "is this ok?"},
      {"type": "command", "command": "c", "if": "Bash("},
      {"type": "http", "url": "ftp://x"},
      "just a string"
    ]},
    {"matcher": "Read"}
  ],
  "PostToolUse": {"matcher": "x"},
  "PreCompact": [{"hooks": [{"type": "command", "command": "d"}]}]
}}"#;
    let p = parse_hooks(Path::new("/p/s.json"), RuleSource::User, text);
    let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
    let expect = [
        "/p/s.json:14:18: `hooks.PostToolUse` must be a list of matcher groups",
        "/p/s.json:3:17: `hooks.PreToolUse[0]`: the matcher `Edit(` is not a valid regular expression",
        "/p/s.json:5:7: `hooks.PreToolUse[1].hooks[0]` is a command hook without a command",
        "/p/s.json:6:54: `hooks.PreToolUse[1].hooks[1]`.timeout must be a number of seconds, not \"soon\"",
        "/p/s.json:7:16: `hooks.PreToolUse[1].hooks[2]`.type `prompt` is not supported by Gatehouse",
        "/p/s.json:8:49: `hooks.PreToolUse[1].hooks[3]`.if `Bash(` is not a permission rule",
        "/p/s.json:9:31: `hooks.PreToolUse[1].hooks[4]`.url `ftp://x` is not an http(s) URL",
        "/p/s.json:10:7: `hooks.PreToolUse[1].hooks[5]` must be an object with `type`",
        "/p/s.json:12:5: `hooks.PreToolUse[2].hooks` must be a list of hook handlers",
    ];
    assert_eq!(errors.len(), expect.len(), "{errors:#?}");
    for (got, want) in errors.iter().zip(expect) {
        assert!(got.starts_with(want), "got {got}\nwant {want}");
    }
    // The unknown event is a warning, and its entry is kept.
    assert_eq!(p.warnings.len(), 1);
    assert!(
        p.warnings[0]
            .to_string()
            .starts_with("/p/s.json:15:17: unknown hook event `PreCompact`")
    );
    assert!(
        p.hooks
            .iter()
            .any(|h| h.event == HookEvent::Unknown("PreCompact".into()))
    );
}
