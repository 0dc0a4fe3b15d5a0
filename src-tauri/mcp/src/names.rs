//! Qualified MCP tool names: `mcp__<server>__<tool>` (SPEC §8).
//!
//! Characters outside `[A-Za-z0-9_-]` become `_`; a name longer than 64
//! characters (the model APIs' limit) is cut and given a stable hash of the
//! full name, so two long names that share a prefix stay distinct and the
//! same tool gets the same name in every run.

/// The longest tool name the model APIs accept.
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// `name` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn normalize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The pool name of tool `tool` of server `server`.
pub fn qualified_tool_name(server: &str, tool: &str) -> String {
    let full = format!("mcp__{}__{}", normalize(server), normalize(tool));
    if full.len() <= MAX_TOOL_NAME_CHARS {
        return full;
    }
    // The hash is of the raw names, so servers or tools that normalise to
    // the same text still get different names.
    let hash = format!("{:016x}", fnv1a(format!("{server}\u{0}{tool}").as_bytes()));
    let keep = MAX_TOOL_NAME_CHARS - hash.len() - 1;
    // Only ASCII survives `normalize`, so byte slicing is on char bounds.
    format!("{}_{hash}", &full[..keep])
}

/// The `mcp__<server>` prefix rules use for a whole server.
pub fn server_prefix(server: &str) -> String {
    format!("mcp__{}", normalize(server))
}

/// FNV-1a 64: stable across runs, platforms and Rust versions (unlike
/// `DefaultHasher`); the one implementation is core's.
pub(crate) use gatehouse_core::stable_hash::fnv1a;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn names_are_prefixed_and_normalised() {
        assert_eq!(
            qualified_tool_name("everything", "echo"),
            "mcp__everything__echo"
        );
        assert_eq!(
            qualified_tool_name("my server.v2", "get/item ü"),
            "mcp__my_server_v2__get_item__"
        );
        assert_eq!(qualified_tool_name("a-b", "c_d"), "mcp__a-b__c_d");
        assert_eq!(server_prefix("x.y"), "mcp__x_y");
    }

    #[test]
    fn long_names_are_shortened_stably_and_distinctly() {
        let a = qualified_tool_name("server", &"t".repeat(100));
        let b = qualified_tool_name("server", &format!("{}x", "t".repeat(99)));
        assert_eq!(a.len(), MAX_TOOL_NAME_CHARS);
        assert_eq!(b.len(), MAX_TOOL_NAME_CHARS);
        assert_ne!(a, b);
        assert_eq!(a, qualified_tool_name("server", &"t".repeat(100)));
        assert!(a.starts_with("mcp__server__ttt"), "{a}");
        // Raw names that normalise alike still differ once shortened.
        let c = qualified_tool_name("s", &format!("{}.", "t".repeat(80)));
        let d = qualified_tool_name("s", &format!("{}/", "t".repeat(80)));
        assert_ne!(c, d);
        assert!(
            c.chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-')
        );
    }
}
