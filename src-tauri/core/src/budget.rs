//! The result budget (SPEC §3 stage 9): results larger than a tool's
//! `max_result_size_chars` are written to
//! `<session dir>/tool-results/<tool_use_id>.txt` and the model gets a
//! preview plus that path instead, so one huge output cannot flood the
//! context window.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use gatehouse_protocol::event::ContentBlock;

/// How many characters of a spilled result the preview shows.
pub const DEFAULT_PREVIEW_CHARS: usize = 2_000;

/// Where spilled results go and how big previews are.
#[derive(Debug, Clone)]
pub struct ResultBudget {
    dir: PathBuf,
    preview_chars: usize,
}

/// A result after the budget was applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Budgeted {
    /// The content for the model (unchanged, or preview + path).
    pub content: Vec<ContentBlock>,
    /// Where the full text was written, when it was.
    pub persisted_path: Option<PathBuf>,
}

impl ResultBudget {
    /// Spills into `<session_dir>/tool-results/`.
    pub fn new(session_dir: &Path) -> Self {
        Self {
            dir: session_dir.join("tool-results"),
            preview_chars: DEFAULT_PREVIEW_CHARS,
        }
    }

    /// Changes the preview length.
    pub fn with_preview_chars(mut self, chars: usize) -> Self {
        self.preview_chars = chars;
        self
    }

    /// The directory spilled results are written to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Applies the budget of `max_chars` to `content`. Only text counts and
    /// only text is spilled; images pass through unchanged.
    ///
    /// If the file cannot be written, the model gets the truncated preview
    /// and a note saying so: the budget is kept either way.
    pub async fn apply(
        &self,
        tool_use_id: &str,
        content: Vec<ContentBlock>,
        max_chars: usize,
    ) -> Budgeted {
        let total: usize = content.iter().map(text_chars).sum();
        if total <= max_chars {
            return Budgeted {
                content,
                persisted_path: None,
            };
        }
        let mut full = String::new();
        let mut images = Vec::new();
        for block in content {
            match block {
                ContentBlock::Text { text } => {
                    if !full.is_empty() {
                        full.push('\n');
                    }
                    full.push_str(&text);
                }
                other => images.push(other),
            }
        }
        let preview_len = self.preview_chars.min(max_chars);
        let preview: String = full.chars().take(preview_len).collect();
        let path = self
            .dir
            .join(format!("{}.txt", sanitize_file_stem(tool_use_id)));
        let written = async {
            tokio::fs::create_dir_all(&self.dir).await?;
            tokio::fs::write(&path, full.as_bytes()).await
        }
        .await;
        let mut text = String::new();
        let persisted_path = match written {
            Ok(()) => {
                let _ = write!(
                    text,
                    "Output too large ({total} characters, limit {max_chars}). The full output was saved to: {}\n\
                     Read that file to see more. Preview (first {} characters):\n\n{preview}",
                    path.display(),
                    preview.chars().count()
                );
                Some(path)
            }
            Err(e) => {
                let _ = write!(
                    text,
                    "Output too large ({total} characters, limit {max_chars}) and it could not be saved ({e}); \
                     it was truncated to its first {} characters:\n\n{preview}",
                    preview.chars().count()
                );
                None
            }
        };
        let mut blocks = vec![ContentBlock::Text { text }];
        blocks.extend(images);
        Budgeted {
            content: blocks,
            persisted_path,
        }
    }
}

fn text_chars(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text { text } => text.chars().count(),
        ContentBlock::Image { .. } => 0,
        // Kept beside the preview like images, never spilled.
        ContentBlock::ToolReference { .. } => 0,
    }
}

/// A file stem for a tool_use id: only `[A-Za-z0-9_-]` survive, at most
/// 100 characters; if anything had to change, a hash of the original id is
/// appended so that two different ids never share a file.
pub fn sanitize_file_stem(id: &str) -> String {
    let clean: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    if clean == id && !clean.is_empty() {
        clean
    } else {
        format!("{clean}-{:016x}", crate::stable_hash::fnv1a(id.as_bytes()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn text(s: &str) -> ContentBlock {
        ContentBlock::Text { text: s.into() }
    }

    #[tokio::test]
    async fn small_results_pass_through() {
        let dir = tempfile::tempdir().unwrap();
        let budget = ResultBudget::new(dir.path());
        let out = budget.apply("t1", vec![text("hello")], 5).await;
        assert_eq!(out.content, vec![text("hello")]);
        assert_eq!(out.persisted_path, None);
        assert!(!budget.dir().exists(), "nothing spilled, nothing created");
    }

    #[tokio::test]
    async fn large_results_are_spilled_with_a_preview_and_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let budget = ResultBudget::new(dir.path()).with_preview_chars(10);
        let big = "0123456789".repeat(50);
        let out = budget.apply("toolu_01", vec![text(&big)], 100).await;
        let path = out.persisted_path.clone().unwrap();
        assert_eq!(path, dir.path().join("tool-results").join("toolu_01.txt"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), big);
        let [ContentBlock::Text { text }] = out.content.as_slice() else {
            panic!("{:?}", out.content)
        };
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(text.contains("500 characters, limit 100"), "{text}");
        assert!(text.ends_with("\n\n0123456789"), "{text}");
    }

    #[test]
    fn ids_are_sanitised_into_distinct_safe_stems() {
        assert_eq!(sanitize_file_stem("toolu_01ABC-x"), "toolu_01ABC-x");
        let a = sanitize_file_stem("../../etc/passwd");
        let b = sanitize_file_stem("..__..__etc_passwd");
        assert!(a.starts_with("______etc_passwd-"), "{a}");
        assert!(!a.contains('/') && !a.contains('.'));
        assert_ne!(a, b);
        assert!(!sanitize_file_stem("").is_empty());
        assert!(sanitize_file_stem(&"x".repeat(500)).len() <= 117);
    }
}
