//! PDFs: text per page, through the `pdf-extract` crate (pure Rust, on
//! `lopdf`). `pages` selects a range; at most [`MAX_PAGES`] pages per call.
//! A malformed PDF that makes the extractor panic is reported as an error.

use std::fmt::Write as _;
use std::path::Path;

use gatehouse_core::ToolError;
use serde::Serialize;

use crate::file_state::FileStateCache;
use crate::paths;

/// Pages returned per call.
pub const MAX_PAGES: u32 = 20;
/// PDFs larger than this are refused.
pub const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;

/// One page's text.
#[derive(Debug, Clone, Serialize)]
pub struct PdfPage {
    /// 1-based page number.
    pub number: u32,
    /// The extracted text.
    pub text: String,
}

/// The text of some pages of a PDF.
#[derive(Debug, Clone, Serialize)]
pub struct PdfOutput {
    /// The canonical path read.
    pub file_path: String,
    /// Pages in the document.
    pub total_pages: u32,
    /// The pages returned.
    pub pages: Vec<PdfPage>,
    /// A note (more pages to read).
    pub note: Option<String>,
}

impl PdfOutput {
    /// The tool_result text.
    pub fn render(&self) -> String {
        let mut out = format!("PDF {} ({} pages)\n", self.file_path, self.total_pages);
        for page in &self.pages {
            let _ = write!(
                out,
                "\n<page number=\"{}\">\n{}\n</page>\n",
                page.number,
                page.text.trim_end()
            );
        }
        if let Some(note) = &self.note {
            let _ = write!(out, "\n<system-reminder>{note}</system-reminder>");
        }
        out
    }
}

/// Parses `"3"`, `"1-5"` or `"10-"` into an inclusive range (end `None`
/// = to the last page).
pub fn parse_pages(spec: &str) -> Result<(u32, Option<u32>), ToolError> {
    let bad = || {
        ToolError::invalid(format!(
            "`pages` must be a page number or range like \"3\", \"1-5\" or \"10-\", not {spec:?}"
        ))
    };
    let num = |s: &str| s.trim().parse::<u32>().ok().filter(|n| *n >= 1);
    let (first, last) = match spec.split_once('-') {
        None => {
            let n = num(spec).ok_or_else(bad)?;
            (n, Some(n))
        }
        Some((a, b)) if b.trim().is_empty() => (num(a).ok_or_else(bad)?, None),
        Some((a, b)) => (num(a).ok_or_else(bad)?, Some(num(b).ok_or_else(bad)?)),
    };
    if let Some(last) = last {
        if last < first {
            return Err(bad());
        }
        if last - first + 1 > MAX_PAGES {
            return Err(ToolError::invalid(format!(
                "`pages` {spec:?} spans more than {MAX_PAGES} pages; read at most {MAX_PAGES} per call"
            )));
        }
    }
    Ok((first, last))
}

fn extract(bytes: &[u8], first: u32, last: Option<u32>) -> Result<(u32, Vec<PdfPage>), String> {
    let doc = pdf_extract::Document::load_mem(bytes).map_err(|e| e.to_string())?;
    if doc.is_encrypted() {
        // The crate's own entry point knows how to open encrypted files
        // with an empty password.
        let all = pdf_extract::extract_text_from_mem_by_pages(bytes).map_err(|e| e.to_string())?;
        let total = u32::try_from(all.len()).unwrap_or(u32::MAX);
        let pages = all
            .into_iter()
            .enumerate()
            .map(|(i, text)| PdfPage {
                number: i as u32 + 1,
                text,
            })
            .filter(|p| p.number >= first && last.is_none_or(|l| p.number <= l))
            .take(MAX_PAGES as usize)
            .collect();
        return Ok((total, pages));
    }
    let total = u32::try_from(doc.get_pages().len()).unwrap_or(u32::MAX);
    let end = last
        .unwrap_or(total)
        .min(total)
        .min(first.saturating_add(MAX_PAGES - 1));
    let mut pages = Vec::new();
    for number in first..=end {
        let mut text = String::new();
        {
            let mut output = pdf_extract::PlainTextOutput::new(&mut text);
            pdf_extract::output_doc_page(&doc, &mut output, number).map_err(|e| e.to_string())?;
        }
        pages.push(PdfPage { number, text });
    }
    Ok((total, pages))
}

/// Reads the selected pages of a PDF and records the read.
pub fn read_pdf(
    state: &FileStateCache,
    path: &Path,
    meta: &std::fs::Metadata,
    pages: Option<&str>,
) -> Result<PdfOutput, ToolError> {
    if meta.len() > MAX_FILE_BYTES {
        return Err(ToolError::failed(format!(
            "{} is {} bytes; PDFs over {MAX_FILE_BYTES} bytes are not read",
            path.display(),
            meta.len()
        )));
    }
    let (first, last) = match pages {
        Some(spec) => parse_pages(spec)?,
        None => (1, None),
    };
    let bytes = std::fs::read(path).map_err(|e| paths::io_error("read", path, e))?;
    let output = pdf_from_bytes(&path.display().to_string(), &bytes, first, last)?;
    if first == 1 && output.pages.last().map_or(first, |p| p.number) >= output.total_pages {
        state.record_full(path, meta, &bytes);
    }
    Ok(output)
}

/// The text of pages `first..=last` of a PDF already in memory (a file's,
/// or a document WebFetch downloaded); `label` names it in errors.
pub fn pdf_from_bytes(
    label: &str,
    bytes: &[u8],
    first: u32,
    last: Option<u32>,
) -> Result<PdfOutput, ToolError> {
    if !bytes.starts_with(b"%PDF") {
        return Err(ToolError::failed(format!(
            "{} is not a PDF file (no %PDF header)",
            label
        )));
    }
    let result = std::panic::catch_unwind(|| extract(bytes, first, last))
        .unwrap_or_else(|_| Err("the PDF parser failed on this file (malformed PDF?)".to_owned()));
    let (total, pages) =
        result.map_err(|e| ToolError::failed(format!("cannot read PDF {}: {e}", label)))?;
    if first > total {
        return Err(ToolError::failed(format!(
            "{} has {total} pages; page {first} does not exist",
            label
        )));
    }
    let shown_last = pages.last().map_or(first, |p| p.number);
    let note = (shown_last < total).then(|| {
        format!(
            "Pages {first}–{shown_last} of {total} shown. Call Read again with pages=\"{}-\" for more.",
            shown_last + 1
        )
    });
    Ok(PdfOutput {
        file_path: label.to_owned(),
        total_pages: total,
        pages,
        note,
    })
}
