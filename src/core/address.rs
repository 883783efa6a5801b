//! Where an address points: this machine, the local network, or the internet.
//!
//! The browser's `navigator.onLine` says whether it has a route off the machine, not whether a
//! server answers: with Wi-Fi off, a llama.cpp server on 127.0.0.1 or a box on the home network
//! still does. So "offline" refuses only what needs the internet, and the decision is made
//! here, on the address the request actually goes to (a CORS proxy's, when one is set).
//! Never performs a lookup: a name is judged by its shape alone.

/// What kind of place an address names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressKind {
    /// `localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`: this machine.
    Loopback,
    /// Private and link-local ranges (10/8, 172.16/12, 192.168/16, 169.254/16, 100.64/10,
    /// fc00::/7, fe80::/10), `*.local`, `*.lan`, `*.home.arpa`, `*.internal` and single-label
    /// names: reached without the internet when they are reached at all.
    LocalNetwork,
    /// Anything else.
    Internet,
}

impl AddressKind {
    /// Whether a request there is worth trying while the browser reports no network.
    pub fn reachable_offline(self) -> bool {
        self != AddressKind::Internet
    }
}

/// The kind of address `url` (http, https, ws or wss, absolute) points at; `None` when it is
/// not such a URL (the in-page model's `in-browser://`, a typo).
pub fn address_kind(url: &str) -> Option<AddressKind> {
    let (scheme, rest) = url.trim().split_once("://")?;
    if !matches!(
        scheme.to_ascii_lowercase().as_str(),
        "http" | "https" | "ws" | "wss"
    ) {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority
        .rsplit_once('@')
        .map(|(_, h)| h)
        .unwrap_or(authority);
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host_port.split(':').next().unwrap_or(""),
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    Some(host_kind(&host))
}

/// Whether a request to `url` may be sent while the browser reports it is offline.
pub fn reachable_offline(url: &str) -> bool {
    address_kind(url).is_some_and(AddressKind::reachable_offline)
}

fn host_kind(host: &str) -> AddressKind {
    if let Some(octets) = ipv4(host) {
        return ipv4_kind(octets);
    }
    if host.contains(':') {
        return ipv6_kind(host);
    }
    if host == "localhost" || host.ends_with(".localhost") {
        return AddressKind::Loopback;
    }
    const LOCAL_SUFFIXES: [&str; 4] = [".local", ".lan", ".home.arpa", ".internal"];
    if !host.contains('.') || LOCAL_SUFFIXES.iter().any(|s| host.ends_with(s)) {
        return AddressKind::LocalNetwork;
    }
    AddressKind::Internet
}

fn ipv4(host: &str) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut parts = host.split('.');
    for slot in &mut out {
        let part = parts.next()?;
        if part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *slot = part.parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

fn ipv4_kind([a, b, ..]: [u8; 4]) -> AddressKind {
    match (a, b) {
        (127, _) => AddressKind::Loopback,
        (10, _) | (192, 168) | (169, 254) => AddressKind::LocalNetwork,
        (172, 16..=31) | (100, 64..=127) => AddressKind::LocalNetwork,
        _ => AddressKind::Internet,
    }
}

fn ipv6_kind(host: &str) -> AddressKind {
    if host == "::1" || host == "0:0:0:0:0:0:0:1" {
        return AddressKind::Loopback;
    }
    // An IPv4-mapped address (`::ffff:127.0.0.1`) is judged by its IPv4 part.
    if let Some(v4) = host.rsplit(':').next().and_then(ipv4) {
        return ipv4_kind(v4);
    }
    let first = host.split(':').next().unwrap_or("");
    match u16::from_str_radix(first, 16) {
        Ok(group) if group & 0xfe00 == 0xfc00 || group & 0xffc0 == 0xfe80 => {
            AddressKind::LocalNetwork
        }
        _ => AddressKind::Internet,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_address_is_named() {
        let cases = [
            ("http://127.0.0.1:8080/v1", Some(AddressKind::Loopback)),
            ("http://127.12.0.9/v1", Some(AddressKind::Loopback)),
            ("http://localhost:11434/v1", Some(AddressKind::Loopback)),
            ("http://LocalHost./v1", Some(AddressKind::Loopback)),
            ("http://llama.localhost:8080", Some(AddressKind::Loopback)),
            ("http://[::1]:8080/v1", Some(AddressKind::Loopback)),
            ("ws://user:pw@127.0.0.1:3003/", Some(AddressKind::Loopback)),
            ("http://[::ffff:127.0.0.1]:1/", Some(AddressKind::Loopback)),
            ("http://10.0.0.5:8080/v1", Some(AddressKind::LocalNetwork)),
            ("http://172.16.1.1/v1", Some(AddressKind::LocalNetwork)),
            ("http://172.31.255.1/v1", Some(AddressKind::LocalNetwork)),
            (
                "http://192.168.1.20:1234/v1",
                Some(AddressKind::LocalNetwork),
            ),
            ("http://169.254.3.3/", Some(AddressKind::LocalNetwork)),
            ("http://100.101.102.103/", Some(AddressKind::LocalNetwork)),
            (
                "http://[fd12:3456::1]:8080/",
                Some(AddressKind::LocalNetwork),
            ),
            ("http://[fe80::1]/", Some(AddressKind::LocalNetwork)),
            (
                "http://studio.local:1234/v1",
                Some(AddressKind::LocalNetwork),
            ),
            ("http://nas.lan/v1", Some(AddressKind::LocalNetwork)),
            ("http://box.home.arpa/v1", Some(AddressKind::LocalNetwork)),
            ("http://gpu-box:8000/v1", Some(AddressKind::LocalNetwork)),
            ("https://api.openai.com/v1", Some(AddressKind::Internet)),
            ("https://172.32.0.1/v1", Some(AddressKind::Internet)),
            ("https://8.8.8.8/", Some(AddressKind::Internet)),
            ("http://[2001:db8::1]/", Some(AddressKind::Internet)),
            (
                "https://localhost.example.com/",
                Some(AddressKind::Internet),
            ),
            ("https://127.0.0.1.nip.io/", Some(AddressKind::Internet)),
            ("in-browser://model", None),
            ("localhost:8080", None),
            ("http:///nohost", None),
        ];
        for (url, want) in cases {
            assert_eq!(address_kind(url), want, "{url}");
        }
    }

    #[test]
    fn only_the_internet_waits_for_the_network() {
        assert!(reachable_offline("http://127.0.0.1:8080/v1"));
        assert!(reachable_offline("http://192.168.0.2:11434/v1"));
        assert!(!reachable_offline("https://api.anthropic.com/v1"));
        assert!(!reachable_offline("not a url"));
    }
}
