//! One shell word, classified: its text with quotes removed when it is a
//! literal, whether it expands to something only known at run time, and the
//! command substitutions hidden inside it.

use brush_parser::ParserOptions;
use brush_parser::word::{self, TildeExpr, WordPiece, WordPieceWithSource};

/// Words with more `$` than this are not parsed: they fail closed.
pub const MAX_DOLLARS_PER_WORD: usize = 16;

/// A classified word.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WordInfo {
    /// The word with quoting removed (for a literal) or as written (else).
    pub text: String,
    /// The word exactly as written, quotes included (`'a b'`): the spelling
    /// a rule copied from the command line uses.
    pub raw: String,
    /// True when the word's value is known without running anything:
    /// no parameter expansion, no substitution, no `~user`.
    pub literal: bool,
    /// True when the word contains unquoted glob or brace characters, so it
    /// may expand to other paths than its text.
    pub has_glob: bool,
    /// Command substitutions (`$(…)`, backticks) found inside, as source.
    pub substitutions: Vec<String>,
    /// Constructs that make the whole command fail closed, described.
    pub fail_reasons: Vec<String>,
    /// True when the parser could not read the word, so commands inside it
    /// may be unseen (the whole command is then opaque).
    pub opaque: bool,
}

/// Classifies a raw word as the parser produced it.
pub fn classify(raw: &str, options: &ParserOptions) -> WordInfo {
    let mut info = WordInfo {
        literal: true,
        raw: raw.to_string(),
        ..WordInfo::default()
    };
    if raw.matches('$').count() > MAX_DOLLARS_PER_WORD {
        // brush's word parser slows down sharply on many (unbalanced)
        // expansions in one word; no real command needs this many.
        info.literal = false;
        info.opaque = true;
        info.text = raw.to_string();
        info.fail_reasons.push(format!(
            "more than {MAX_DOLLARS_PER_WORD} expansions in one word: `{}`",
            short(raw)
        ));
        return info;
    }
    let parsed = super::guarded(|| word::parse(raw, options));
    match parsed {
        Some(Ok(pieces)) => {
            let mut live = String::new();
            walk(raw, &pieces, false, &mut info, &mut live);
            check_live_text(&live, &mut info);
        }
        None => {
            info.literal = false;
            info.opaque = true;
            info.text = raw.to_string();
            info.fail_reasons
                .push(format!("the shell parser failed on word `{}`", short(raw)));
            return info;
        }
        Some(Err(e)) => {
            info.literal = false;
            info.opaque = true;
            info.text = raw.to_string();
            info.fail_reasons
                .push(format!("cannot parse word `{raw}`: {e}"));
            return info;
        }
    }
    if !info.literal {
        info.text = raw.to_string();
    }
    if raw.contains("IFS") && (raw.contains("$IFS") || raw.contains("${IFS")) {
        info.fail_reasons.push("uses `$IFS` to split words".into());
    }
    info
}

/// Text the shell still interprets (unquoted or in double quotes) that the
/// word parser left as plain text: brush-parser 0.4 falls back to text when
/// it cannot parse a `$(…)`, so `$(`, `${`, `$[` or a backtick there is a
/// substitution it did not recognise — fail closed. A `$` before a name is
/// an expansion it did not recognise: not literal.
fn check_live_text(live: &str, info: &mut WordInfo) {
    if ["$(", "${", "$[", "`"].iter().any(|m| live.contains(m)) {
        info.literal = false;
        info.opaque = true;
        info.fail_reasons.push(format!(
            "a substitution the parser could not read: `{}`",
            short(live)
        ));
        return;
    }
    let bytes = live.as_bytes();
    let expansion = bytes
        .windows(2)
        .any(|w| w[0] == b'$' && (w[1].is_ascii_alphanumeric() || b"_@*#?!$-".contains(&w[1])));
    if expansion {
        info.literal = false;
    }
}

fn walk(
    raw: &str,
    pieces: &[WordPieceWithSource],
    quoted: bool,
    info: &mut WordInfo,
    live: &mut String,
) {
    for p in pieces {
        if !matches!(p.piece, WordPiece::Text(_)) {
            // Keep pieces apart so `$` + `(…)` only joins across text.
            live.push('\0');
        }
        match &p.piece {
            WordPiece::Text(t) => {
                live.push_str(t);
                if !quoted && t.contains(['*', '?', '[']) {
                    info.has_glob = true;
                }
                if !quoted && t.contains('{') && (t.contains(',') || t.contains("..")) {
                    info.has_glob = true;
                }
                info.text.push_str(t);
            }
            WordPiece::SingleQuotedText(t) => info.text.push_str(t),
            WordPiece::AnsiCQuotedText(t) => {
                // `$'…'` escapes are expanded by the shell; keep it literal
                // only when it has none.
                if t.contains('\\') {
                    info.literal = false;
                }
                info.text.push_str(t);
            }
            WordPiece::EscapeSequence(s) => {
                let escaped = s.strip_prefix('\\').unwrap_or(s);
                if escaped == "\n" {
                    // A line continuation: nothing.
                } else {
                    info.text.push_str(escaped);
                }
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                walk(raw, inner, true, info, live);
            }
            WordPiece::TildeExpansion(t) => match t {
                TildeExpr::Home => info.text.push('~'),
                _ => info.literal = false,
            },
            WordPiece::ParameterExpansion(_) => {
                info.literal = false;
                let source = raw.get(p.start_index..p.end_index).unwrap_or(raw);
                if !is_simple_parameter(source) {
                    info.fail_reasons.push(format!(
                        "complex parameter expansion `{source}` may run or hide commands"
                    ));
                }
            }
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                info.literal = false;
                info.substitutions.push(s.clone());
                info.fail_reasons.push(format!(
                    "command substitution `{}` runs a hidden command",
                    short(s)
                ));
            }
            WordPiece::ArithmeticExpression(e) => {
                info.literal = false;
                if e.value.contains(['$', '`', '['])
                    || e.value
                        .contains(|c: char| c.is_ascii_alphabetic() || c == '_')
                {
                    info.fail_reasons.push(format!(
                        "arithmetic expansion `$(({}))` evaluates variables or expansions",
                        short(&e.value)
                    ));
                }
            }
        }
    }
}

/// `$NAME`, `${NAME}`, `$1`, `$@`, `$?`… — a plain read of one variable.
fn is_simple_parameter(source: &str) -> bool {
    let body = if let Some(b) = source.strip_prefix("${").and_then(|b| b.strip_suffix('}')) {
        b
    } else if let Some(b) = source.strip_prefix('$') {
        b
    } else {
        return false;
    };
    if body == "IFS" {
        return false;
    }
    !body.is_empty()
        && (body.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            || matches!(body, "@" | "*" | "#" | "?" | "-" | "$" | "!"))
}

/// The first 60 characters of `text`, for messages.
pub fn short(text: &str) -> String {
    let mut out: String = text.chars().take(60).collect();
    if text.chars().count() > 60 {
        out.push('…');
    }
    out
}

/// Walks already-parsed pieces (a here-document body) as quoted text,
/// collecting substitutions and fail-closed reasons into `info`.
pub fn walk_pieces(raw: &str, pieces: &[WordPieceWithSource], info: &mut WordInfo) {
    let mut live = String::new();
    walk(raw, pieces, true, info, &mut live);
    check_live_text(&live, info);
}
