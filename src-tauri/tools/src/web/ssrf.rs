//! Not a way into the local network (issue 22 item 2).
//!
//! Two gates, both needed: [`check_ip`] for hosts written as IP literals
//! (reqwest connects to those without resolving), and [`GuardedResolver`],
//! reqwest's DNS resolver for this client, which drops every resolved
//! address that is loopback, private, link-local (cloud metadata at
//! 169.254.169.254 included), CGNAT, ULA, multicast, unspecified or an
//! IPv4 address wrapped in IPv6 — so a public name that resolves to
//! 127.0.0.1 is caught at connect time, not only on the URL's text.
//!
//! The one exception is a host an explicit allow rule names exactly
//! (`WebFetch(domain:127.0.0.1)`): the fetch marks it exempt
//! ([`Exemptions`]) for the request. Nothing is exempt by default and no
//! address is exempt because of who is asking; tests use such a rule.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// Why an address may not be fetched, or `None` when it is public.
pub fn forbidden_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_reason(v4),
        IpAddr::V6(v6) => v6_reason(v6),
    }
}

fn v4_reason(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    Some(if ip.is_loopback() {
        "loopback"
    } else if ip.is_unspecified() || a == 0 {
        "unspecified (\"this network\")"
    } else if ip.is_link_local() {
        "link-local (cloud metadata lives at 169.254.169.254)"
    } else if ip.is_private() {
        "private network"
    } else if a == 100 && (64..128).contains(&b) {
        "carrier-grade NAT (100.64.0.0/10)"
    } else if ip.is_multicast() {
        "multicast"
    } else if ip.is_broadcast() || a >= 240 {
        "reserved or broadcast"
    } else if a == 192 && b == 0 && ip.octets()[2] == 0 {
        "IETF protocol assignments (192.0.0.0/24)"
    } else if a == 198 && (b == 18 || b == 19) {
        "benchmarking network (198.18.0.0/15)"
    } else {
        return None;
    })
}

fn v6_reason(ip: Ipv6Addr) -> Option<&'static str> {
    let seg = ip.segments();
    Some(if ip.is_loopback() {
        "loopback"
    } else if ip.is_unspecified() {
        "unspecified"
    } else if ip.is_multicast() {
        "multicast"
    } else if (seg[0] & 0xfe00) == 0xfc00 {
        "unique local (fc00::/7)"
    } else if (seg[0] & 0xffc0) == 0xfe80 || (seg[0] & 0xffc0) == 0xfec0 {
        "link-local or site-local"
    } else if ip.to_ipv4_mapped().is_some() {
        // Wrapped IPv4 reaches whatever the IPv4 address does; refused
        // whole rather than trusted to every stack's unwrapping.
        "IPv4-mapped IPv6"
    } else if seg[..6] == [0, 0, 0, 0, 0, 0] {
        "IPv4-compatible IPv6"
    } else if seg[..2] == [0x64, 0xff9b] {
        "NAT64 (64:ff9b::/96, 64:ff9b:1::/48)"
    } else if seg[0] == 0x2002 {
        "6to4 (2002::/16)"
    } else {
        return None;
    })
}

/// The host of `url` as domain rules see it: WHATWG-parsed, lowercased,
/// without a trailing dot, IDNs in punycode, IPv6 in brackets. The same
/// normalisation as `gatehouse_permissions::domain::url_host`.
pub fn rule_host(url: &Url) -> Option<String> {
    match url.host()? {
        Host::Domain(d) => Some(d.trim_end_matches('.').to_ascii_lowercase()),
        Host::Ipv4(ip) => Some(ip.to_string()),
        Host::Ipv6(ip) => Some(format!("[{ip}]")),
    }
}

/// The IP literal of `url`'s host, if it is one.
pub fn literal_ip(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        Host::Domain(_) => None,
    }
}

/// Refuses an IP-literal host that is not public, unless `exempt`.
pub fn check_ip(ip: IpAddr, exempt: bool) -> Result<(), String> {
    match forbidden_reason(ip) {
        Some(why) if !exempt => Err(format!(
            "{ip} is a {why} address; WebFetch does not reach the local network unless an \
             allow rule names that host exactly (e.g. `WebFetch(domain:{})`)",
            match ip {
                IpAddr::V4(v4) => v4.to_string(),
                IpAddr::V6(v6) => format!("[{v6}]"),
            }
        )),
        _ => Ok(()),
    }
}

/// Hosts an explicit allow rule names, exempt from the address filter while
/// a request to them is in flight (counted, so concurrent calls nest).
#[derive(Debug, Clone, Default)]
pub struct Exemptions(Arc<Mutex<HashMap<String, usize>>>);

/// Ends an exemption when dropped.
#[derive(Debug)]
pub struct ExemptGuard {
    set: Exemptions,
    host: String,
}

impl Exemptions {
    /// Exempts `host` (a name as DNS sees it) until the guard drops.
    pub fn exempt(&self, host: &str) -> ExemptGuard {
        let host = host.to_ascii_lowercase();
        *self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(host.clone())
            .or_default() += 1;
        ExemptGuard {
            set: self.clone(),
            host,
        }
    }

    fn contains(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&host)
            .is_some_and(|n| *n > 0)
    }
}

impl Drop for ExemptGuard {
    fn drop(&mut self) {
        let mut map = self.set.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = map.get_mut(&self.host) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.host);
            }
        }
    }
}

/// reqwest's resolver for WebFetch: the system resolver, then the filter.
#[derive(Debug, Clone, Default)]
pub struct GuardedResolver {
    /// Hosts an allow rule names exactly.
    pub exemptions: Exemptions,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let exempt = self.exemptions.contains(&host);
        Box::pin(resolve_public(host, exempt))
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The system resolver's answer for `host`, without the addresses WebFetch
/// does not reach (all of them when `exempt`).
async fn resolve_public(host: String, exempt: bool) -> Result<Addrs, BoxError> {
    let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
        .await
        .map_err(|e| format!("{host} does not resolve: {e}"))?
        .collect();
    if exempt {
        return Ok(Box::new(resolved.into_iter()));
    }
    let mut refused = Vec::new();
    let public: Vec<SocketAddr> = resolved
        .into_iter()
        .filter(|a| match forbidden_reason(a.ip()) {
            Some(why) => {
                refused.push(format!("{} ({why})", a.ip()));
                false
            }
            None => true,
        })
        .collect();
    if public.is_empty() {
        let refused = if refused.is_empty() {
            "none".to_owned()
        } else {
            refused.join(", ")
        };
        return Err(format!(
            "{host} resolves only to addresses WebFetch does not reach: {refused}; an allow \
             rule naming the host exactly (`WebFetch(domain:{host})`) would permit it"
        )
        .into());
    }
    Ok(Box::new(public.into_iter()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn refused(text: &str) -> bool {
        forbidden_reason(text.parse().unwrap()).is_some()
    }

    #[test]
    fn local_and_special_addresses_are_refused() {
        for ip in [
            "127.0.0.1",
            "127.8.9.10",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:8.8.8.8",
            "::127.0.0.1",
            "64:ff9b::7f00:1",
            "2002:7f00:1::",
        ] {
            assert!(refused(ip), "{ip} must be refused");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for ip in ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111"] {
            assert!(!refused(ip), "{ip} is public");
        }
    }

    #[test]
    fn hosts_are_normalised_like_domain_rules() {
        let host = |u: &str| rule_host(&Url::parse(u).unwrap()).unwrap();
        assert_eq!(host("https://Docs.Example.COM./x"), "docs.example.com");
        assert_eq!(host("https://evil.com\\@good.com/"), "evil.com");
        assert_eq!(host("https://bücher.example/"), "xn--bcher-kva.example");
        assert_eq!(host("http://[::ffff:127.0.0.1]/"), "[::ffff:127.0.0.1]");
        assert_eq!(host("http://0x7f.1/"), "127.0.0.1");
    }

    #[test]
    fn exemptions_nest_and_end() {
        let set = Exemptions::default();
        let a = set.exempt("Localhost");
        let b = set.exempt("localhost");
        assert!(set.contains("localhost."));
        drop(a);
        assert!(set.contains("localhost"));
        drop(b);
        assert!(!set.contains("localhost"));
    }
}
