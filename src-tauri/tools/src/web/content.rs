//! What a response is and how its bytes become text: the content type
//! decides the reader (HTML, text, PDF, image, or refused), the charset
//! comes from a byte-order mark, the `Content-Type` header or an HTML
//! `<meta>` (the WHATWG order), and decoding uses `encoding_rs`.

use encoding_rs::Encoding;

/// How a response is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// HTML: converted to Markdown.
    Html,
    /// Text, JSON, XML, JavaScript, CSS, Markdown: kept as text.
    Text,
    /// A PDF: its pages' text, through the Read tool's PDF reader.
    Pdf,
    /// An image: returned as an image block, through Read's image reader.
    Image,
}

/// The media type of a `Content-Type` value: lowercased, no parameters.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The `charset` parameter of a `Content-Type` value.
pub fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(['"', '\'']).to_owned())
    })
}

/// Decides how to read a body of media type `media` (`None`: no header),
/// or says why it is refused.
pub fn classify(media: Option<&str>, body: &[u8]) -> Result<Kind, String> {
    let Some(media) = media.filter(|m| !m.is_empty()) else {
        // No Content-Type: look at the bytes.
        let head = &body[..body.len().min(4096)];
        // A sequence cut at the end of the prefix is not an error.
        let text = std::str::from_utf8(head).map_or_else(|e| e.error_len().is_none(), |_| true);
        return match sniff(body) {
            Some(kind) => Ok(kind),
            None if text => Ok(Kind::Text),
            None => Err("the response has no Content-Type and does not look like text".into()),
        };
    };
    Ok(match media {
        "text/html" | "application/xhtml+xml" => Kind::Html,
        "application/pdf" => Kind::Pdf,
        "image/png" | "image/jpeg" | "image/gif" | "image/webp" => Kind::Image,
        m if m.starts_with("text/")
            || m.ends_with("+json")
            || m.ends_with("+xml")
            || matches!(
                m,
                "application/json"
                    | "application/xml"
                    | "application/javascript"
                    | "application/ecmascript"
                    | "application/x-javascript"
                    | "application/x-ndjson"
                    | "application/toml"
                    | "application/yaml"
                    | "application/x-yaml"
            ) =>
        {
            Kind::Text
        }
        other => {
            return Err(format!(
                "its content type is `{other}`, which WebFetch does not read (it reads HTML, \
                 text, JSON, XML, PDF and PNG/JPEG/GIF/WebP images)"
            ));
        }
    })
}

fn sniff(body: &[u8]) -> Option<Kind> {
    let head = &body[..body.len().min(512)];
    if head.starts_with(b"%PDF") {
        return Some(Kind::Pdf);
    }
    if image::guess_format(head).is_ok() {
        return Some(Kind::Image);
    }
    let lower = String::from_utf8_lossy(head)
        .trim_start()
        .to_ascii_lowercase();
    (lower.starts_with("<!doctype html") || lower.starts_with("<html")).then_some(Kind::Html)
}

/// Decodes `body` to text: BOM, then the header's charset, then (HTML) a
/// `<meta>` in the first 1024 bytes, then UTF-8. Returns the text and the
/// encoding's name.
pub fn decode(body: &[u8], header_charset: Option<&str>, html: bool) -> (String, &'static str) {
    let encoding = Encoding::for_bom(body)
        .map(|(e, _)| e)
        .or_else(|| header_charset.and_then(|c| Encoding::for_label(c.as_bytes())))
        .or_else(|| {
            html.then(|| meta_charset(&body[..body.len().min(1024)]))
                .flatten()
        })
        .unwrap_or(encoding_rs::UTF_8);
    // `decode` strips a BOM of the encoding it sniffs and replaces
    // malformed sequences with U+FFFD.
    let (text, used, _) = encoding.decode(body);
    (text.into_owned(), used.name())
}

/// The charset a `<meta charset>` or `<meta http-equiv content>` names.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let lower = head.to_ascii_lowercase();
    let mut rest = lower.as_slice();
    while let Some(at) = find(rest, b"<meta") {
        let tag = &rest[at..];
        let end = tag.iter().position(|b| *b == b'>').unwrap_or(tag.len());
        let tag = &tag[..end];
        if let Some(c) = find(tag, b"charset=") {
            let value = &tag[c + b"charset=".len()..];
            let value: Vec<u8> = value
                .iter()
                .copied()
                .skip_while(|b| *b == b'"' || *b == b'\'' || *b == b' ')
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
                .collect();
            if let Some(e) = Encoding::for_label(&value) {
                // WHATWG: a meta naming UTF-16 means UTF-8 (the bytes
                // being read as ASCII here proves they are not UTF-16).
                return Some(
                    if e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE {
                        encoding_rs::UTF_8
                    } else {
                        e
                    },
                );
            }
        }
        rest = &rest[at + 5..];
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn charset_order_is_bom_header_meta_utf8() {
        // "café" in windows-1252.
        let latin = b"<html><head><meta charset=\"windows-1252\"></head>caf\xe9</html>";
        assert!(decode(latin, None, true).0.contains("café"));
        assert!(
            decode(b"caf\xe9", Some("ISO-8859-1"), false)
                .0
                .contains("café")
        );
        let bom = b"\xef\xbb\xbfcaf\xc3\xa9";
        assert_eq!(decode(bom, Some("windows-1252"), false).0, "café");
        let http_equiv =
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\">\xc1";
        assert_eq!(decode(http_equiv, None, true).1, "KOI8-R");
        assert_eq!(decode(b"plain", None, true).1, "UTF-8");
    }

    #[test]
    fn content_types_pick_the_reader() {
        assert_eq!(classify(Some("text/html"), b"").unwrap(), Kind::Html);
        assert_eq!(
            classify(Some("application/ld+json"), b"").unwrap(),
            Kind::Text
        );
        assert_eq!(classify(Some("application/pdf"), b"").unwrap(), Kind::Pdf);
        assert_eq!(classify(Some("image/png"), b"").unwrap(), Kind::Image);
        let refused = classify(Some("application/zip"), b"PK").unwrap_err();
        assert!(refused.contains("application/zip"), "{refused}");
        assert_eq!(classify(None, b"<!DOCTYPE html><p>x").unwrap(), Kind::Html);
        assert!(classify(None, b"\x00\xff\xfe\x01binary").is_err());
        assert_eq!(media_type("Text/HTML; charset=UTF-8"), "text/html");
        assert_eq!(
            charset_param("text/html; Charset=\"latin1\"").as_deref(),
            Some("latin1")
        );
    }
}
