//! `WebFetch(domain:…)` patterns, matched on the host a URL parser finds.
//!
//! Matching never compares raw strings: the URL is parsed with the `url`
//! crate (WHATWG rules, the same ones a fetch follows), so user-info
//! (`good.com@evil.com`), ports, case, IDNA and trailing dots are settled
//! before the host is compared label by label.

use url::{Host, Url};

/// A domain rule: one host, or `*.host` for its sub-domains (not the apex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainPattern {
    /// The host in lower case, without a trailing dot.
    pub host: String,
    /// True for `*.host`: matches strict sub-domains only.
    pub subdomains: bool,
}

impl DomainPattern {
    /// Parses `example.com` or `*.example.com`.
    pub fn parse(text: &str) -> Result<DomainPattern, String> {
        let (subdomains, host) = match text.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if host.is_empty() {
            return Err("empty domain".into());
        }
        if host.contains(['*', '/', ':', '@', ' ', '?', '#']) {
            return Err(format!(
                "`{text}` is not a domain (write a host such as `example.com` or `*.example.com`)"
            ));
        }
        // Normalise through the URL parser so IDNA and case match fetches.
        let url = Url::parse(&format!("https://{host}/"))
            .map_err(|e| format!("`{text}` is not a valid domain: {e}"))?;
        let normal = match url.host() {
            Some(Host::Domain(d)) => d.trim_end_matches('.').to_string(),
            Some(Host::Ipv4(ip)) if !subdomains => ip.to_string(),
            Some(Host::Ipv6(ip)) if !subdomains => format!("[{ip}]"),
            _ => return Err(format!("`{text}` is not a valid domain")),
        };
        Ok(DomainPattern {
            host: normal,
            subdomains,
        })
    }

    /// True when `host` (already normalised by [`url_host`]) is covered.
    pub fn matches_host(&self, host: &str) -> bool {
        if self.subdomains {
            host.len() > self.host.len() + 1
                && host.ends_with(&self.host)
                && host.as_bytes()[host.len() - self.host.len() - 1] == b'.'
        } else {
            host == self.host
        }
    }
}

impl std::fmt::Display for DomainPattern {
    /// The pattern as parsed (`example.com`, `*.example.com`), normalised.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.subdomains {
            write!(f, "*.{}", self.host)
        } else {
            f.write_str(&self.host)
        }
    }
}

/// The normalised host a fetch of `url` would contact, or `None` when the
/// text is not an absolute http(s) URL with a host.
pub fn url_host(url: &str) -> Option<String> {
    let parsed = Url::parse(url.trim()).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    match parsed.host()? {
        Host::Domain(d) => Some(d.trim_end_matches('.').to_ascii_lowercase()),
        Host::Ipv4(ip) => Some(ip.to_string()),
        Host::Ipv6(ip) => Some(format!("[{ip}]")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, url: &str) -> bool {
        let p = DomainPattern::parse(pattern).unwrap();
        url_host(url).is_some_and(|h| p.matches_host(&h))
    }

    #[test]
    fn exact_and_subdomains() {
        assert!(m("good.com", "https://good.com/x"));
        assert!(m("good.com", "https://GOOD.com./x"));
        assert!(!m("good.com", "https://a.good.com/x"));
        assert!(m("*.good.com", "https://a.good.com/x"));
        assert!(!m("*.good.com", "https://good.com/x"));
        assert!(!m("*.good.com", "https://notgood.com/x"));
    }

    #[test]
    fn attacks() {
        assert!(!m("good.com", "https://good.com.evil.com/"));
        assert!(!m("good.com", "https://good.com@evil.com/"));
        assert!(!m("*.good.com", "https://x.good.com.evil.com/"));
        assert!(!m("good.com", "file:///etc/passwd"));
        assert!(!m("good.com", "good.com"));
        assert!(!m("good.com", "https://evil.com/good.com"));
        assert!(!m("good.com", "https://evil.com?x=good.com"));
    }

    #[test]
    fn bad_patterns() {
        assert!(DomainPattern::parse("").is_err());
        assert!(DomainPattern::parse("https://x.com").is_err());
        assert!(DomainPattern::parse("a.*.com").is_err());
    }
}
