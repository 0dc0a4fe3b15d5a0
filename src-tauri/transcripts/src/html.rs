//! A session as one self-contained HTML page: inline CSS, no scripts, no
//! external resources, every piece of session text escaped. It reads as a
//! transcript: prompts, assistant text (thinking folded), and one card per
//! tool call with its input, permission decision, diff, output and result.
//!
//! Events are streamed from the database; only calls still waiting for
//! their result are held in memory.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use gatehouse_protocol::diff::{DiffLineKind, FileDiff};
use gatehouse_protocol::event::{ContentBlock, Event, EventBody, ToolCallStatus};
use gatehouse_protocol::progress::ToolProgressData;
use gatehouse_protocol::session::{PermissionAnswer, SessionSummary};
use serde_json::Value;

use crate::TranscriptError;

/// The most text shown per tool output block; the rest is cut with a note.
const MAX_OUTPUT_CHARS: usize = 20_000;

const STYLE: &str = "
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:24px;color:#1d1d1f;background:#fafafa}
h1{font-size:20px;margin:0 0 4px}
table.meta{border-collapse:collapse;margin:8px 0 24px;font-size:13px}
table.meta td{padding:2px 12px 2px 0;vertical-align:top}
table.meta td:first-child{color:#666}
.context{color:#555;border-left:4px solid #bbb;padding:4px 12px;margin:8px 0;white-space:pre-wrap;font-size:90%}
.prompt{background:#e8f0fe;border-left:4px solid #1a73e8;padding:8px 12px;margin:16px 0;white-space:pre-wrap}
.assistant{padding:4px 12px;margin:8px 0;white-space:pre-wrap}
details.thinking{color:#666;margin:4px 12px}
.call{border:1px solid #ddd;border-radius:6px;background:#fff;margin:8px 0}
.call>summary{padding:6px 10px;cursor:pointer;font-family:ui-monospace,monospace;font-size:13px}
.call .body{padding:4px 10px 10px}
.badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;margin-left:6px;font-family:system-ui,sans-serif}
.allow{background:#e6f4ea;color:#137333}.ask{background:#fef7e0;color:#b06000}.deny{background:#fce8e6;color:#c5221f}
.err{background:#fce8e6;color:#c5221f}
pre{background:#f4f4f4;padding:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-word;font-size:12px;margin:6px 0}
table.diff{border-collapse:collapse;font-family:ui-monospace,monospace;font-size:12px;width:100%}
table.diff td{padding:0 6px;white-space:pre-wrap;word-break:break-all}
table.diff td.n{color:#999;text-align:right;width:3em}
tr.added{background:#e6ffed}tr.removed{background:#ffeef0}tr.hunk{background:#f1f8ff;color:#666}
.error{background:#fce8e6;border-left:4px solid #c5221f;padding:8px 12px;margin:12px 0}
.note{color:#666;font-size:12px;margin:12px 0}
";

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn shorten(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((cut, _)) => (text[..cut].to_owned(), true),
        None => (text.to_owned(), false),
    }
}

fn pre(out: &mut String, text: &str) {
    let (shown, cut) = shorten(text, MAX_OUTPUT_CHARS);
    let _ = write!(out, "<pre>{}</pre>", escape(&shown));
    if cut {
        let _ = write!(
            out,
            "<div class=\"note\">… cut at {MAX_OUTPUT_CHARS} characters ({} in all)</div>",
            text.chars().count()
        );
    }
}

/// A call being rendered: everything seen since its `tool_queued`.
#[derive(Default)]
struct Card {
    name: String,
    input: Value,
    decision: Option<(String, String)>,
    answer: Option<String>,
    diffs: Vec<FileDiff>,
    output: String,
    rejected: Option<String>,
}

/// The one-line summary of a call's input (command, path, pattern…).
fn input_summary(input: &Value) -> String {
    for key in [
        "command",
        "file_path",
        "path",
        "pattern",
        "url",
        "query",
        "description",
    ] {
        if let Some(text) = input.get(key).and_then(Value::as_str) {
            return shorten(text, 160).0;
        }
    }
    shorten(&input.to_string(), 160).0
}

fn render_diff(out: &mut String, diff: &FileDiff) {
    let _ = write!(
        out,
        "<div class=\"note\">{} {} (+{} −{})</div><table class=\"diff\">",
        if diff.created { "created" } else { "changed" },
        escape(&diff.path),
        diff.additions,
        diff.deletions
    );
    for hunk in &diff.hunks {
        let _ = write!(
            out,
            "<tr class=\"hunk\"><td class=\"n\"></td><td class=\"n\"></td><td>@@ -{},{} +{},{} @@</td></tr>",
            hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
        );
        for line in &hunk.lines {
            let (class, sign) = match line.kind {
                DiffLineKind::Added => ("added", '+'),
                DiffLineKind::Removed => ("removed", '-'),
                DiffLineKind::Context => ("context", ' '),
            };
            let num = |n: Option<u32>| n.map(|n| n.to_string()).unwrap_or_default();
            let _ = write!(
                out,
                "<tr class=\"{class}\"><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{sign}{}</td></tr>",
                num(line.old_line),
                num(line.new_line),
                escape(&line.text)
            );
        }
    }
    out.push_str("</table>");
}

/// `status` is `None` for a call the session ended before it completed.
fn render_card(
    out: &mut String,
    tool_use_id: &str,
    card: &Card,
    status: Option<ToolCallStatus>,
    content: &[ContentBlock],
    duration_ms: u64,
) {
    let failed = status.is_some_and(ToolCallStatus::is_error);
    let _ = write!(
        out,
        "<details class=\"call\" id=\"call-{}\"><summary>{} <b>{}</b> {}",
        escape(tool_use_id),
        if failed { "✗" } else { "✓" },
        escape(&card.name),
        escape(&input_summary(&card.input))
    );
    if let Some((decision, _)) = &card.decision {
        let _ = write!(
            out,
            "<span class=\"badge {0}\">{0}</span>",
            escape(decision)
        );
    }
    if let Some(answer) = &card.answer {
        let _ = write!(
            out,
            "<span class=\"badge {}\">answered: {}</span>",
            if answer.starts_with("deny") {
                "deny"
            } else {
                "allow"
            },
            escape(answer)
        );
    }
    let word = match status {
        Some(ToolCallStatus::Ok) | None => None,
        Some(ToolCallStatus::Error) => Some("error"),
        Some(ToolCallStatus::Denied) => Some("denied"),
        Some(ToolCallStatus::Interrupted) => Some("interrupted"),
        Some(ToolCallStatus::Cancelled) => Some("cancelled"),
        Some(ToolCallStatus::TimedOut) => Some("timed out"),
    };
    if let Some(word) = word {
        let _ = write!(out, "<span class=\"badge err\">{word}</span>");
    }
    let _ = write!(
        out,
        "<span class=\"badge\">{duration_ms} ms</span></summary><div class=\"body\">"
    );
    pre(
        out,
        &serde_json::to_string_pretty(&card.input).unwrap_or_default(),
    );
    if let Some((_, reason)) = &card.decision {
        let _ = write!(
            out,
            "<div class=\"note\">decision: {}</div>",
            escape(reason)
        );
    }
    if let Some(message) = &card.rejected {
        let _ = write!(out, "<div class=\"error\">{}</div>", escape(message));
    }
    for diff in &card.diffs {
        render_diff(out, diff);
    }
    if !card.output.is_empty() {
        out.push_str("<div class=\"note\">output</div>");
        pre(out, &card.output);
    }
    let text: Vec<&str> = content
        .iter()
        .map(|b| match b {
            ContentBlock::Text { text } => text.as_str(),
            ContentBlock::Image { .. } => "[image]",
            ContentBlock::ToolReference { tool_name } => tool_name.as_str(),
        })
        .collect();
    if !text.is_empty() {
        out.push_str("<div class=\"note\">result</div>");
        pre(out, &text.join("\n"));
    }
    out.push_str("</div></details>\n");
}

fn answer_text(answer: &PermissionAnswer) -> String {
    match answer {
        PermissionAnswer::AllowOnce => "allow once".into(),
        PermissionAnswer::AllowForSession => "allow for this session".into(),
        PermissionAnswer::AlwaysAllow { rules, .. } => format!("always allow {}", rules.join(", ")),
        PermissionAnswer::Deny { feedback } => match feedback {
            Some(f) => format!("deny: {f}"),
            None => "deny".into(),
        },
    }
}

fn time_text(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms).map_or_else(|_| ms.to_string(), |t| t.to_string())
}

/// Writes one session as HTML, event by event: [`HtmlWriter::begin`],
/// then [`HtmlWriter::event`] for each event in order, then
/// [`HtmlWriter::finish`]. Only calls still waiting for their result are
/// held in memory.
pub struct HtmlWriter<'a> {
    out: &'a mut dyn Write,
    cards: HashMap<String, Card>,
    hidden: u64,
}

fn output_error(e: std::io::Error) -> TranscriptError {
    TranscriptError::io(Path::new("<output>"), e)
}

impl<'a> HtmlWriter<'a> {
    /// Writes the page's head and the session's summary table.
    pub fn begin(
        summary: &SessionSummary,
        out: &'a mut dyn Write,
    ) -> Result<Self, TranscriptError> {
        let title = summary.title.clone().unwrap_or_else(|| summary.id.clone());
        let mut head = String::new();
        let _ = write!(
            head,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1><table class=\"meta\">",
            escape(&title),
            escape(&title)
        );
        let rows = [
            ("session", summary.id.clone()),
            ("project", summary.project_path.clone()),
            ("origin", summary.origin.as_str().to_owned()),
            ("model", format!("{} ({})", summary.model, summary.provider)),
            ("started", time_text(summary.created_at_ms)),
            (
                "duration",
                format!("{:.1} s", summary.duration_ms as f64 / 1000.0),
            ),
            (
                "tool calls",
                format!(
                    "{} ({} asked, {} denied, {} errors)",
                    summary.tool_calls, summary.asks, summary.denials, summary.errors
                ),
            ),
            (
                "tokens",
                format!("{} in, {} out", summary.input_tokens, summary.output_tokens),
            ),
            ("status", summary.status.clone()),
        ];
        for (k, v) in rows {
            let _ = write!(head, "<tr><td>{k}</td><td>{}</td></tr>", escape(&v));
        }
        head.push_str("</table>\n");
        out.write_all(head.as_bytes()).map_err(output_error)?;
        Ok(Self {
            out,
            cards: HashMap::new(),
            hidden: 0,
        })
    }

    /// Renders the next event.
    pub fn event(&mut self, event: Event) -> Result<(), TranscriptError> {
        let cards = &mut self.cards;
        let mut html = String::new();
        match event.body {
            EventBody::UserPrompt { text } => {
                let _ = writeln!(html, "<div class=\"prompt\">{}</div>", escape(&text));
            }
            EventBody::AssistantMessage { content, .. } => {
                for block in content {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            let text = block
                                .get("text")
                                .and_then(Value::as_str)
                                .unwrap_or_default();
                            let _ =
                                writeln!(html, "<div class=\"assistant\">{}</div>", escape(text));
                        }
                        Some("thinking") => {
                            let text = block
                                .get("thinking")
                                .and_then(Value::as_str)
                                .unwrap_or_default();
                            let _ = writeln!(
                                html,
                                "<details class=\"thinking\"><summary>thinking</summary><pre>{}</pre></details>",
                                escape(text)
                            );
                        }
                        _ => {}
                    }
                }
            }
            EventBody::ToolQueued {
                tool_use_id,
                name,
                input,
                ..
            } => {
                cards.insert(
                    tool_use_id,
                    Card {
                        name,
                        input,
                        ..Card::default()
                    },
                );
            }
            EventBody::PermissionDecided {
                tool_use_id,
                decision,
                reason,
                ..
            } => {
                if let Some(card) = cards.get_mut(&tool_use_id) {
                    let decision = serde_json::to_value(decision)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default();
                    let reason = serde_json::to_string(&reason).unwrap_or_default();
                    card.decision = Some((decision, reason));
                }
            }
            EventBody::PermissionAnswered {
                tool_use_id,
                answer,
            } => {
                if let Some(card) = cards.get_mut(&tool_use_id) {
                    card.answer = Some(answer_text(&answer));
                }
            }
            EventBody::ToolProgress { tool_use_id, data } => {
                if let Some(card) = cards.get_mut(&tool_use_id) {
                    match data {
                        ToolProgressData::FileDiff { diff, .. } => card.diffs.push(diff),
                        ToolProgressData::BashOutput { text, .. }
                            if card.output.len() < MAX_OUTPUT_CHARS * 4 =>
                        {
                            card.output.push_str(&text);
                        }
                        _ => {}
                    }
                }
            }
            EventBody::ToolInputRejected {
                tool_use_id,
                message,
                ..
            } => {
                if let Some(card) = cards.get_mut(&tool_use_id) {
                    card.rejected = Some(message);
                }
            }
            EventBody::ToolCompleted {
                tool_use_id,
                status,
                content,
                duration_ms,
                ..
            } => {
                let card = cards.remove(&tool_use_id).unwrap_or_default();
                render_card(
                    &mut html,
                    &tool_use_id,
                    &card,
                    Some(status),
                    &content,
                    duration_ms,
                );
            }
            EventBody::SessionError { message, .. } => {
                let _ = writeln!(html, "<div class=\"error\">{}</div>", escape(&message));
            }
            EventBody::ContextAdded { text, .. } => {
                let _ = writeln!(html, "<div class=\"context\">{}</div>", escape(&text));
            }
            EventBody::ImportedEntry { .. } => self.hidden += 1,
            _ => {}
        }
        self.out.write_all(html.as_bytes()).map_err(output_error)
    }

    /// Renders calls that never completed and closes the page.
    pub fn finish(self) -> Result<(), TranscriptError> {
        let mut tail = String::new();
        let mut open: Vec<(&String, &Card)> = self.cards.iter().collect();
        open.sort_by_key(|(id, _)| id.as_str());
        for (id, card) in open {
            // The session was cut off before these calls ended.
            render_card(&mut tail, id, card, None, &[], 0);
        }
        let _ = write!(
            tail,
            "<div class=\"note\">Exported by Gatehouse. {} imported entries without a Gatehouse \
             event (attachments, API requests, …) are not shown.</div>\n</body></html>\n",
            self.hidden
        );
        self.out.write_all(tail.as_bytes()).map_err(output_error)
    }
}

/// Writes stored session `id` as a self-contained HTML page to `out`.
pub fn export_html(
    store: &gatehouse_store::Store,
    id: &str,
    out: &mut dyn Write,
) -> Result<(), TranscriptError> {
    let Some(summary) = store.session(id)? else {
        return Err(gatehouse_store::StoreError::Invalid(format!(
            "no stored session with id {id}"
        ))
        .into());
    };
    let mut writer = HtmlWriter::begin(&summary, out)?;
    let mut failure = None;
    store.for_each_event(id, |event| {
        if failure.is_none()
            && let Err(e) = writer.event(event)
        {
            failure = Some(e);
        }
        Ok(())
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    writer.finish()
}
