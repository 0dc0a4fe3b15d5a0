//! Text encodings and line endings, detected on read and kept on write.
//!
//! The model always sees and writes `\n`-terminated Unicode text. A file's
//! encoding (UTF-8, UTF-8 with BOM, UTF-16LE with BOM) and line-ending style
//! (LF or CRLF) are detected when it is decoded and restored when the edited
//! text is encoded again, so an edit changes only what the model changed.

/// How a file's bytes encode its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// UTF-8 without a byte-order mark.
    Utf8,
    /// UTF-8 with the `EF BB BF` byte-order mark.
    Utf8Bom,
    /// UTF-16 little-endian with the `FF FE` byte-order mark.
    Utf16Le,
}

/// A file's line-ending style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
}

/// Why bytes could not be decoded as text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A NUL byte (or another sign of binary content) was found.
    #[error("it looks like a binary file (it contains NUL bytes)")]
    Binary,
    /// The bytes are not valid UTF-8.
    #[error("it is not valid UTF-8 (invalid byte at offset {0})")]
    InvalidUtf8(usize),
    /// The UTF-16 data is truncated or contains unpaired surrogates.
    #[error("it is not valid UTF-16LE")]
    InvalidUtf16,
}

/// A decoded text file: its text with `\n` line endings, and how to write
/// it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    /// The text, `\r\n` normalised to `\n`.
    pub text: String,
    /// The encoding the bytes were in.
    pub encoding: Encoding,
    /// The line-ending style.
    pub line_ending: LineEnding,
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const UTF16LE_BOM: &[u8] = b"\xFF\xFE";

/// How many leading bytes are examined for NUL bytes.
pub const BINARY_SNIFF_LEN: usize = 8192;

/// Whether `bytes` (the start of a file) look binary: a NUL byte in the
/// first [`BINARY_SNIFF_LEN`] bytes, as ripgrep and git decide, unless the
/// file starts with a UTF-16 byte-order mark.
pub fn looks_binary(bytes: &[u8]) -> bool {
    if bytes.starts_with(UTF16LE_BOM) || bytes.starts_with(b"\xFE\xFF") {
        return false;
    }
    bytes[..bytes.len().min(BINARY_SNIFF_LEN)].contains(&0)
}

/// Detects the encoding of `bytes` from its byte-order mark.
pub fn detect_encoding(bytes: &[u8]) -> Encoding {
    if bytes.starts_with(UTF8_BOM) {
        Encoding::Utf8Bom
    } else if bytes.starts_with(UTF16LE_BOM) {
        Encoding::Utf16Le
    } else {
        Encoding::Utf8
    }
}

/// The style of the first line ending in `text` (LF when there is none).
pub fn detect_line_ending(text: &str) -> LineEnding {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => LineEnding::CrLf,
        _ => LineEnding::Lf,
    }
}

/// Decodes a whole file strictly (for files that will be written back).
pub fn decode(bytes: &[u8]) -> Result<TextFile, DecodeError> {
    let encoding = detect_encoding(bytes);
    let raw = match encoding {
        Encoding::Utf8Bom => utf8(&bytes[UTF8_BOM.len()..])?,
        Encoding::Utf8 => {
            if looks_binary(bytes) {
                return Err(DecodeError::Binary);
            }
            utf8(bytes)?
        }
        Encoding::Utf16Le => utf16le(&bytes[UTF16LE_BOM.len()..])?,
    };
    let line_ending = detect_line_ending(&raw);
    let text = match line_ending {
        LineEnding::CrLf => raw.replace("\r\n", "\n"),
        LineEnding::Lf => raw,
    };
    Ok(TextFile {
        text,
        encoding,
        line_ending,
    })
}

fn utf8(bytes: &[u8]) -> Result<String, DecodeError> {
    String::from_utf8(bytes.to_vec())
        .map_err(|e| DecodeError::InvalidUtf8(e.utf8_error().valid_up_to()))
}

fn utf16le(bytes: &[u8]) -> Result<String, DecodeError> {
    if !bytes.len().is_multiple_of(2) {
        return Err(DecodeError::InvalidUtf16);
    }
    let units = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]));
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .map_err(|_| DecodeError::InvalidUtf16)
}

/// Encodes `text` (with `\n` line endings) in `encoding` and `line_ending`.
pub fn encode(text: &str, encoding: Encoding, line_ending: LineEnding) -> Vec<u8> {
    let text = match line_ending {
        LineEnding::CrLf => std::borrow::Cow::Owned(to_crlf(text)),
        LineEnding::Lf => std::borrow::Cow::Borrowed(text),
    };
    match encoding {
        Encoding::Utf8 => text.as_bytes().to_vec(),
        Encoding::Utf8Bom => {
            let mut out = UTF8_BOM.to_vec();
            out.extend_from_slice(text.as_bytes());
            out
        }
        Encoding::Utf16Le => {
            let mut out = UTF16LE_BOM.to_vec();
            for unit in text.encode_utf16() {
                out.extend_from_slice(&unit.to_le_bytes());
            }
            out
        }
    }
}

/// Converts `\n` to `\r\n`, leaving existing `\r\n` alone.
fn to_crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 32);
    let mut prev = '\0';
    for c in text.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_supported_form() {
        for (encoding, line_ending) in [
            (Encoding::Utf8, LineEnding::Lf),
            (Encoding::Utf8, LineEnding::CrLf),
            (Encoding::Utf8Bom, LineEnding::Lf),
            (Encoding::Utf8Bom, LineEnding::CrLf),
            (Encoding::Utf16Le, LineEnding::Lf),
            (Encoding::Utf16Le, LineEnding::CrLf),
        ] {
            let bytes = encode("héllo\nwörld\n", encoding, line_ending);
            let file = decode(&bytes).unwrap();
            assert_eq!(file.text, "héllo\nwörld\n");
            assert_eq!((file.encoding, file.line_ending), (encoding, line_ending));
            assert_eq!(encode(&file.text, encoding, line_ending), bytes);
        }
    }

    #[test]
    fn binary_and_invalid_text_are_refused() {
        assert_eq!(decode(b"ab\0cd"), Err(DecodeError::Binary));
        assert_eq!(decode(b"ab\xFFcd"), Err(DecodeError::InvalidUtf8(2)));
        assert_eq!(decode(b"\xFF\xFEa"), Err(DecodeError::InvalidUtf16));
        assert!(!looks_binary(b"\xFF\xFEa\0"));
    }
}
