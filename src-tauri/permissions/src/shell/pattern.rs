//! Bash rule patterns: `npm test` (exact), `npm run:*` (prefix), `git * main`
//! (`*` matches anything, spaces included, anywhere).
//!
//! A trailing ` *` keeps a word boundary: `ls *` matches `ls` and `ls -la`
//! but not `lsof`. A trailing `:*` means the same as a trailing ` *`. `\*`
//! is a literal star.

/// One piece of a compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Text that must appear exactly.
    Literal(String),
    /// Any text, possibly empty.
    Star,
    /// At the end only: nothing, or a space followed by anything.
    WordTail,
}

/// A compiled Bash rule pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    pieces: Vec<Piece>,
}

impl CommandPattern {
    /// Compiles a pattern as written inside `Bash(...)`.
    pub fn parse(text: &str) -> CommandPattern {
        let text = text.trim();
        let (body, word_tail) = if let Some(b) = text.strip_suffix(":*") {
            (b, true)
        } else if let Some(b) = text.strip_suffix(" *").filter(|b| !b.ends_with('\\')) {
            (b, true)
        } else {
            (text, false)
        };
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&'*') => {
                    literal.push('*');
                    chars.next();
                }
                '*' => {
                    if !literal.is_empty() {
                        pieces.push(Piece::Literal(normalise_spaces(&literal)));
                        literal.clear();
                    }
                    if pieces.last() != Some(&Piece::Star) {
                        pieces.push(Piece::Star);
                    }
                }
                other => literal.push(other),
            }
        }
        let body_trimmed = body.trim_end();
        if !literal.is_empty() {
            let lit = normalise_spaces(&literal);
            let lit = if word_tail {
                lit.trim_end().to_string()
            } else {
                lit
            };
            pieces.push(Piece::Literal(lit));
        }
        if word_tail && !body_trimmed.is_empty() {
            pieces.push(Piece::WordTail);
        } else if word_tail {
            pieces.push(Piece::Star);
        }
        CommandPattern { pieces }
    }

    /// The complete first word every matching command starts with, when the
    /// pattern fixes one (`git` for `git push:*`, `ls` for `ls *`); `None`
    /// when the pattern starts with `*` or the first word is cut by a `*`
    /// (`ls*`). Used to index rules.
    pub fn first_word(&self) -> Option<&str> {
        match self.pieces.first() {
            Some(Piece::Literal(l)) => match l.find(' ') {
                Some(i) => Some(&l[..i]),
                None if matches!(self.pieces.get(1), None | Some(Piece::WordTail)) => Some(l),
                None => None,
            },
            _ => None,
        }
    }

    /// True when `command` (a normalised sub-command) is matched.
    pub fn matches(&self, command: &str) -> bool {
        match_from(&self.pieces, command)
    }
}

/// Collapses runs of blanks to one space so `ls  -la` and `ls -la` agree.
pub fn normalise_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last_blank = false;
    for c in text.chars() {
        if c == ' ' || c == '\t' {
            if !last_blank {
                out.push(' ');
            }
            last_blank = true;
        } else {
            out.push(c);
            last_blank = false;
        }
    }
    out
}

fn match_from(pieces: &[Piece], text: &str) -> bool {
    match pieces.split_first() {
        None => text.is_empty(),
        Some((Piece::Literal(l), rest)) => text
            .strip_prefix(l.as_str())
            .is_some_and(|after| match_from(rest, after)),
        Some((Piece::WordTail, _)) => text.is_empty() || text.starts_with(' '),
        Some((Piece::Star, rest)) => {
            if rest.is_empty() {
                return true;
            }
            text.char_indices()
                .map(|(i, _)| i)
                .chain(std::iter::once(text.len()))
                .any(|i| match_from(rest, &text[i..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, c: &str) -> bool {
        CommandPattern::parse(p).matches(c)
    }

    #[test]
    fn exact() {
        assert!(m("npm test", "npm test"));
        assert!(!m("npm test", "npm test --watch"));
        assert!(!m("npm test", "npm tes"));
    }

    #[test]
    fn word_boundary() {
        assert!(m("ls *", "ls -la"));
        assert!(m("ls *", "ls"));
        assert!(!m("ls *", "lsof"));
        assert!(m("npm run:*", "npm run build"));
        assert!(m("npm run:*", "npm run"));
        assert!(!m("npm run:*", "npm running"));
    }

    #[test]
    fn star_anywhere() {
        assert!(m("git * main", "git push origin main"));
        assert!(!m("git * main", "git push origin main2"));
        assert!(m("*", "anything at all"));
        assert!(m("ls*", "lsof"));
        assert!(m(r"echo \*", "echo *"));
        assert!(!m(r"echo \*", "echo x"));
    }
}
