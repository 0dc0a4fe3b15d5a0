//! HTML → Markdown with `htmd` (a maintained port of turndown on
//! html5ever: GFM tables, fenced code blocks, links kept inline; see
//! docs/ARCHITECTURE.md for why this crate).
//!
//! htmd walks the tree recursively, so a hostile page nested a million
//! elements deep would overflow the stack: the depth is measured first
//! (iteratively) and such a page is reduced to its text instead.
//! Conversion is CPU work on a large page: callers run it on a blocking
//! thread.

use std::rc::Rc;

use htmd::HtmlToMarkdown;
use htmd::options::Options;
use markup5ever_rcdom::{Node, NodeData};

/// Deeper trees are read as plain text (htmd recurses per level).
pub const MAX_DEPTH: usize = 512;

/// Elements whose content is never page text.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "iframe", "svg", "canvas", "object", "embed",
];

/// Converts an HTML document to Markdown.
pub fn html_to_markdown(html: &str) -> String {
    let converter = HtmlToMarkdown::builder()
        .skip_tags(SKIPPED.to_vec())
        .options(Options::default())
        .build();
    let tree = match converter.html_to_tree(html) {
        Ok(tree) => tree,
        // html5ever reads any bytes; an error here is I/O on a string.
        Err(_) => return html.to_owned(),
    };
    if depth(&tree) > MAX_DEPTH {
        return plain_text(&tree);
    }
    tidy(&converter.tree_to_markdown(&tree))
}

/// The depth of the tree, measured without recursion.
fn depth(root: &Rc<Node>) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(Rc::clone(root), 0_usize)];
    while let Some((node, d)) = stack.pop() {
        deepest = deepest.max(d);
        if d > MAX_DEPTH {
            break;
        }
        for child in node.children.borrow().iter() {
            stack.push((Rc::clone(child), d + 1));
        }
    }
    deepest
}

/// The text of the tree in document order, without recursion, block
/// elements on lines of their own.
fn plain_text(root: &Rc<Node>) -> String {
    let mut out = String::new();
    let mut stack = vec![Rc::clone(root)];
    while let Some(node) = stack.pop() {
        match &node.data {
            NodeData::Text { contents } => out.push_str(&contents.borrow()),
            NodeData::Element { name, .. } => {
                let tag: &str = &name.local;
                if SKIPPED.contains(&tag) {
                    continue;
                }
                if matches!(
                    tag,
                    "p" | "div" | "br" | "li" | "tr" | "h1" | "h2" | "h3" | "pre"
                ) {
                    out.push('\n');
                }
            }
            _ => {}
        }
        for child in node.children.borrow().iter().rev() {
            stack.push(Rc::clone(child));
        }
    }
    tidy(&out)
}

/// At most one blank line in a row, no trailing spaces at the end.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        if line.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_and_code_survive() {
        let md = html_to_markdown(
            "<h2>T</h2><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>\
             <pre><code class=\"language-rust\">fn main() {}\n</code></pre><script>evil()</script>",
        );
        assert!(md.contains("## T"), "{md}");
        assert!(md.contains("| a | b |"), "{md}");
        assert!(md.contains("```"), "{md}");
        assert!(md.contains("fn main() {}"), "{md}");
        assert!(!md.contains("evil"), "{md}");
    }

    #[test]
    fn a_very_deep_page_is_read_as_text_without_overflowing() {
        let html = format!(
            "{}deep text{}",
            "<div>".repeat(5_000),
            "</div>".repeat(5_000)
        );
        let md = html_to_markdown(&html);
        assert_eq!(md, "deep text");
    }
}
