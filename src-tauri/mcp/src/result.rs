//! MCP results → tool_result content blocks.
//!
//! Text stays text; images become image blocks; audio, binary resources and
//! resource links are described in text (the model APIs take neither audio
//! nor arbitrary files); embedded text resources are inlined with their URI;
//! `structuredContent` is rendered as JSON when the server sent no content
//! blocks (servers should send both; some send only structured content).

use gatehouse_protocol::event::{ContentBlock, ImageSource};
use serde_json::Value;

/// The content blocks of a `tools/call` result (`{content, structuredContent,
/// isError}` as JSON).
pub fn call_result_blocks(result: &Value) -> Vec<ContentBlock> {
    let mut blocks: Vec<ContentBlock> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|items| items.iter().map(content_block).collect())
        .unwrap_or_default();
    if blocks.is_empty()
        && let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null())
    {
        blocks.push(ContentBlock::Text {
            text: serde_json::to_string_pretty(structured)
                .unwrap_or_else(|_| structured.to_string()),
        });
    }
    blocks
}

/// Whether a `tools/call` result says the tool failed.
pub fn is_error(result: &Value) -> bool {
    result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn text(text: impl Into<String>) -> ContentBlock {
    ContentBlock::Text { text: text.into() }
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// One MCP content item.
pub fn content_block(item: &Value) -> ContentBlock {
    match str_field(item, "type") {
        Some("text") => text(str_field(item, "text").unwrap_or_default()),
        Some("image") => match (str_field(item, "data"), str_field(item, "mimeType")) {
            (Some(data), Some(mime)) => ContentBlock::Image {
                source: ImageSource {
                    kind: "base64".into(),
                    media_type: mime.into(),
                    data: data.into(),
                },
            },
            _ => text("[image without data or type]"),
        },
        Some("audio") => text(format!(
            "[audio ({}), {} base64 characters, not shown]",
            str_field(item, "mimeType").unwrap_or("unknown type"),
            str_field(item, "data").map_or(0, str::len)
        )),
        Some("resource_link") => text(format!(
            "Resource link: {} <{}>{}{}",
            str_field(item, "name").unwrap_or("(unnamed)"),
            str_field(item, "uri").unwrap_or_default(),
            str_field(item, "mimeType")
                .map(|m| format!(" ({m})"))
                .unwrap_or_default(),
            str_field(item, "description")
                .map(|d| format!(": {d}"))
                .unwrap_or_default(),
        )),
        Some("resource") => item
            .get("resource")
            .map_or_else(|| text("[empty resource]"), resource_contents_block),
        other => text(format!(
            "[unsupported MCP content type {}]",
            other.unwrap_or("(none)")
        )),
    }
}

/// One item of a resource's `contents` (text or blob).
pub fn resource_contents_block(contents: &Value) -> ContentBlock {
    let uri = str_field(contents, "uri").unwrap_or_default();
    let mime = str_field(contents, "mimeType");
    if let Some(body) = str_field(contents, "text") {
        return text(format!("Resource {uri}:\n{body}"));
    }
    match (str_field(contents, "blob"), mime) {
        (Some(blob), Some(m)) if m.starts_with("image/") => ContentBlock::Image {
            source: ImageSource {
                kind: "base64".into(),
                media_type: m.into(),
                data: blob.into(),
            },
        },
        (Some(blob), m) => text(format!(
            "[binary resource {uri} ({}), {} base64 characters, not shown]",
            m.unwrap_or("unknown type"),
            blob.len()
        )),
        (None, _) => text(format!("[resource {uri} without content]")),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_content_kind_maps_to_a_block() {
        let blocks = call_result_blocks(&json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "QUJD", "mimeType": "image/png"},
            {"type": "audio", "data": "QUJD", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a", "name": "a", "mimeType": "text/plain"},
            {"type": "resource", "resource": {"uri": "test://r", "text": "body"}},
            {"type": "resource", "resource": {"uri": "test://b", "blob": "QUJD", "mimeType": "application/zip"}},
            {"type": "what"}
        ]}));
        assert_eq!(blocks.len(), 7);
        assert_eq!(blocks[0], text("hi"));
        assert!(
            matches!(&blocks[1], ContentBlock::Image { source } if source.media_type == "image/png")
        );
        let texts: Vec<String> = blocks
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.clone()),
                ContentBlock::Image { .. } | ContentBlock::ToolReference { .. } => None,
            })
            .collect();
        assert!(texts[1].contains("audio/wav"));
        assert_eq!(texts[2], "Resource link: a <file:///a> (text/plain)");
        assert_eq!(texts[3], "Resource test://r:\nbody");
        assert!(texts[4].contains("application/zip"));
        assert!(texts[5].contains("unsupported"));
    }

    #[test]
    fn structured_content_is_used_when_there_is_no_content() {
        let b = call_result_blocks(&json!({"content": [], "structuredContent": {"sum": 3}}));
        assert_eq!(b, vec![text("{\n  \"sum\": 3\n}")]);
        let b = call_result_blocks(
            &json!({"content": [{"type":"text","text":"3"}], "structuredContent": {"sum": 3}}),
        );
        assert_eq!(b, vec![text("3")]);
        assert!(is_error(&json!({"isError": true})));
        assert!(!is_error(&json!({})));
    }
}
