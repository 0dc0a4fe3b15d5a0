//! Inputs the parser is not trusted with: constructs it mis-parses or that
//! cost it too much, found in the text before it runs.

/// Inputs brush-parser 0.4 mishandles (found by fuzzing), refused before
/// parsing: the reason to fail closed, or `None`.
pub(super) fn parser_hazard(text: &str) -> Option<&'static str> {
    if has_unusual_heredoc_delimiter(text) {
        // Unbounded allocation or an endless loop in the tokenizer.
        return Some("a here-document delimiter that is not a plain word");
    }
    if has_heredoc(text) && ["$(", "`", "<(", ">("].iter().any(|m| text.contains(m)) {
        // A here-document inside a substitution sends the tokenizer into
        // endless allocation for inputs no pattern describes.
        return Some("a here-document together with a substitution");
    }
    let (parens, cases) = count_groupings(text);
    if parens > MAX_GROUPING_PARENS || cases > MAX_CASE_CLAUSES {
        // Unbalanced groupings make brush-parser 0.4 backtrack exponentially
        // (24 `(` take seconds, each one more doubles it).
        return Some("too many nested groupings to analyse");
    }
    if has_oversized_fd_number(text) {
        // `99999999999>x`, `~99999999999`: the parser unwraps an
        // overflowing integer.
        return Some("a file-descriptor or directory-stack number too large to be real");
    }
    None
}

/// More bare `(` than this (outside quotes, not `$(`, `<(`, `>(`) fail
/// closed before parsing.
const MAX_GROUPING_PARENS: usize = 10;
/// More `case` keywords than this fail closed before parsing.
const MAX_CASE_CLAUSES: usize = 8;

/// Counts, outside single quotes and escapes, the `(` that open subshells
/// or `((` (not those of `$(`, `<(`, `>(`, `$((`), and outside all quotes
/// the `case` keywords.
pub(super) fn count_groupings(text: &str) -> (usize, usize) {
    let bytes = text.as_bytes();
    let (mut parens, mut cases) = (0, 0);
    let (mut single, mut double) = (false, false);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\\' if !single => i += 1,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            // Double quotes do not make `(` inert: `"$( ((( )"` is code.
            b'(' if !single => {
                let prev = i.checked_sub(1).map(|j| bytes[j]);
                let prev2 = i.checked_sub(2).map(|j| bytes[j]);
                let substitution = matches!(prev, Some(b'$' | b'<' | b'>'))
                    || (prev == Some(b'(') && prev2 == Some(b'$'));
                if !substitution {
                    parens += 1;
                }
            }
            b'c' if !single && !double && bytes[i..].starts_with(b"case") => {
                let before = i.checked_sub(1).map(|j| bytes[j]);
                let after = bytes.get(i + 4).copied();
                let boundary =
                    |c: Option<u8>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == b'_'));
                if boundary(before) && boundary(after) {
                    cases += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (parens, cases)
}

/// True when a run of 10 or more digits is directly followed by `<` or `>`
/// (a file-descriptor number), or follows `~`, `~+` or `~-` (a directory
/// stack index): numbers the parser unwraps into machine integers.
fn has_oversized_fd_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut run = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_digit() {
            run += 1;
            continue;
        }
        if run >= 10 {
            let start = i - run;
            let before = start.checked_sub(1).map(|j| bytes[j]);
            let before2 = start.checked_sub(2).map(|j| bytes[j]);
            let tilde = before == Some(b'~')
                || (matches!(before, Some(b'+' | b'-')) && before2 == Some(b'~'));
            if tilde || b == b'<' || b == b'>' {
                return true;
            }
        }
        run = 0;
    }
    if run >= 10 {
        let start = bytes.len() - run;
        let before = start.checked_sub(1).map(|j| bytes[j]);
        let before2 = start.checked_sub(2).map(|j| bytes[j]);
        return before == Some(b'~')
            || (matches!(before, Some(b'+' | b'-')) && before2 == Some(b'~'));
    }
    false
}

/// True when `text` has a `<<` that is not a `<<<` here-string.
fn has_heredoc(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'<' && bytes[i + 1] == b'<' {
            if bytes.get(i + 2) == Some(&b'<') {
                i += 3;
                continue;
            }
            return true;
        }
        i += 1;
    }
    false
}

/// True when `text` has a `<<` here-document whose delimiter is not a plain
/// word: `EOF`, `'EOF'`, `"EOF"` or `\EOF` (letters, digits, `_`, `.`,
/// `-`). Anything else (`<<''`, `<< <<r`, `<<$[`, `<<` at the end) makes
/// brush-parser 0.4 exhaust memory or loop forever, and no agent needs it.
pub(super) fn has_unusual_heredoc_delimiter(text: &str) -> bool {
    let bytes = text.as_bytes();
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
    let ends_word = |b: Option<&u8>| b.is_none_or(|b| b" \t\r\n;&|<>()".contains(b));
    let mut i = 0;
    while i + 1 < bytes.len() {
        if !(bytes[i] == b'<' && bytes[i + 1] == b'<') {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        if bytes.get(j) == Some(&b'<') {
            i = j + 1; // `<<<`: a here-string
            continue;
        }
        if bytes.get(j) == Some(&b'-') {
            j += 1;
        }
        while matches!(bytes.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        if bytes.get(j) == Some(&b'\\') {
            j += 1;
        }
        let quote = match bytes.get(j) {
            Some(&q @ (b'\'' | b'"')) => {
                j += 1;
                Some(q)
            }
            _ => None,
        };
        let start = j;
        while bytes.get(j).is_some_and(|&b| plain(b)) {
            j += 1;
        }
        if j == start {
            return true;
        }
        if let Some(q) = quote {
            if bytes.get(j) != Some(&q) {
                return true;
            }
            j += 1;
        }
        if !ends_word(bytes.get(j)) {
            return true;
        }
        i = j;
    }
    false
}
