//! Typographic-quote normalisation.
//!
//! Models type straight quotes (`'`, `"`); files often contain curly ones
//! (`‘ ’ “ ”`). When `old_string` is not found verbatim, Edit looks for it
//! with curly quotes folded to straight ones, and then writes `new_string`
//! in the file's style: its straight quotes are curled the way the matched
//! text's are (opening after whitespace or an opening bracket, closing
//! otherwise; an apostrophe between letters is `’`).

/// Folds a curly quote to its straight form; other characters unchanged.
pub fn fold(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201F}' | '\u{2033}' => '"',
        other => other,
    }
}

/// `s` with every curly quote folded.
pub fn fold_str(s: &str) -> String {
    s.chars().map(fold).collect()
}

/// Finds `needle` in `haystack` ignoring the difference between curly and
/// straight quotes. Returns the byte ranges in `haystack` of every
/// (non-overlapping) match.
pub fn find_folded(haystack: &str, needle: &str) -> Vec<std::ops::Range<usize>> {
    let folded_needle = fold_str(needle);
    if folded_needle.is_empty() {
        return Vec::new();
    }
    // Folding maps each char to one char, so char indices line up; keep
    // the original byte offset of every char (plus the end).
    let mut offsets: Vec<usize> = haystack.char_indices().map(|(i, _)| i).collect();
    offsets.push(haystack.len());
    let mut folded = String::with_capacity(haystack.len());
    // Byte offset in `folded` → char index.
    let mut folded_char_at = Vec::with_capacity(haystack.len() + 1);
    for (ci, c) in haystack.chars().enumerate() {
        let f = fold(c);
        for _ in 0..f.len_utf8() {
            folded_char_at.push(ci);
        }
        folded.push(f);
    }
    folded_char_at.push(offsets.len() - 1);
    let needle_chars = folded_needle.chars().count();
    folded
        .match_indices(folded_needle.as_str())
        .map(|(start, _)| {
            let ci = folded_char_at[start];
            offsets[ci]..offsets[ci + needle_chars]
        })
        .collect()
}

fn is_opening_context(prev: Option<char>) -> bool {
    match prev {
        None => true,
        Some(c) => {
            c.is_whitespace() || matches!(c, '(' | '[' | '{' | '<' | '\u{2014}' | '\u{2013}')
        }
    }
}

/// Rewrites the straight quotes of `new` in the style of `matched` (the
/// text actually found in the file): if `matched` uses curly double or
/// single quotes, the same kind in `new` is curled.
pub fn preserve_style(matched: &str, new: &str) -> String {
    let curly_double = matched.contains(['\u{201C}', '\u{201D}']);
    let curly_single = matched.contains(['\u{2018}', '\u{2019}']);
    if !curly_double && !curly_single {
        return new.to_owned();
    }
    let chars: Vec<char> = new.chars().collect();
    let mut out = String::with_capacity(new.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        match c {
            '"' if curly_double => out.push(if is_opening_context(prev) {
                '\u{201C}'
            } else {
                '\u{201D}'
            }),
            '\'' if curly_single => {
                let apostrophe = prev.is_some_and(char::is_alphanumeric)
                    && next.is_some_and(char::is_alphanumeric);
                out.push(if !apostrophe && is_opening_context(prev) {
                    '\u{2018}'
                } else {
                    '\u{2019}'
                });
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_curly_text_from_straight_quotes() {
        let hay = "say “hi” and ‘bye’ — it’s “hi” again";
        let found = find_folded(hay, "\"hi\"");
        assert_eq!(found.len(), 2);
        assert_eq!(&hay[found[0].clone()], "“hi”");
        assert_eq!(&hay[found[1].clone()], "“hi”");
        assert_eq!(find_folded(hay, "it's").len(), 1);
    }

    #[test]
    fn new_text_takes_the_file_style() {
        assert_eq!(preserve_style("“hi”", "\"hello\" (\"x\")"), "“hello” (“x”)");
        assert_eq!(preserve_style("‘a’", "'it's' fine"), "‘it’s’ fine");
        assert_eq!(preserve_style("plain", "\"x\""), "\"x\"");
    }
}
