//! `sandbox.network.allowedDomains` with the real bwrap, the real bridge
//! (this crate's `gatehouse-net-bridge`), the real proxy and a real HTTP
//! server on the host's 127.0.0.1, reached with curl from inside the
//! sandbox, in the style of Codex's `sandbox_blocks_*` tests.
//!
//! Off the internet: the allowed and refused "domains" (`allowed.test`,
//! `denied.test`) are made up and mapped to 127.0.0.1 by the proxy's own
//! resolver table (`ProxyRules::resolve`), so the proxy connects to the
//! local server without DNS or `/etc/hosts`. Without bwrap or curl the
//! tests fail, saying what to install.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::ffi::OsStr;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;

use common::{merged_output, which};
use gatehouse_permissions::domain::DomainPattern;
use gatehouse_sandbox::launch::Wrapped;
use gatehouse_sandbox::{
    NetProxy, ProxyConnection, ProxyLimits, ProxyRules, Sandbox, SandboxPolicy, find_bwrap, probe,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const BODY: &str = "hello from the host";

/// A real HTTP/1.1 server on 127.0.0.1 (one response per connection);
/// its port and how many requests it answered.
async fn http_server() -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&served);
    tokio::spawn(async move {
        loop {
            let (mut s, _) = listener.accept().await.unwrap();
            let count = Arc::clone(&count);
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = s.read(&mut buf).await.unwrap();
                    if n == 0 {
                        return;
                    }
                    head.extend_from_slice(&buf[..n]);
                }
                // Only origin-form reaches a server: the proxy rewrote it.
                assert!(head.starts_with(b"GET / HTTP/1.1\r\n"), "{head:?}");
                count.fetch_add(1, Ordering::SeqCst);
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{BODY}",
                    BODY.len()
                );
                s.write_all(reply.as_bytes()).await.unwrap();
            });
        }
    });
    (port, served)
}

struct Net {
    _dir: tempfile::TempDir,
    project: PathBuf,
    sandbox: Sandbox,
}

/// A sandbox allowing `domains`, both made-up names resolving to
/// 127.0.0.1, with `limits`.
fn net(domains: &[&str], limits: ProxyLimits) -> Net {
    assert!(
        which("curl"),
        "these tests need curl (Debian/Ubuntu: apt-get install curl)"
    );
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (home, project) = (base.join("home"), base.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let bwrap = find_bwrap(std::env::var_os("PATH").as_deref())
        .unwrap_or_else(|e| panic!("these tests need bubblewrap: {e}"));
    let mut policy = SandboxPolicy::new(&home, None);
    policy.allow_domains(
        domains
            .iter()
            .map(|d| DomainPattern::parse(d).unwrap())
            .collect(),
    );
    let local = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let resolve: HashMap<String, IpAddr> = [("allowed.test", local), ("denied.test", local)]
        .into_iter()
        .map(|(h, ip)| (h.to_owned(), ip))
        .collect();
    let sandbox = Sandbox::new(bwrap, policy)
        .unwrap()
        .with_helper(PathBuf::from(env!("CARGO_BIN_EXE_gatehouse-sandbox-exec")))
        .with_proxy_rules(ProxyRules {
            resolve,
            limits,
            ..ProxyRules::default()
        });
    Net {
        _dir: dir,
        project,
        sandbox,
    }
}

/// Runs `script` in bash inside the sandbox with this call's proxy and
/// refusal trap, as Bash runs it: exit code, merged output, the proxy's
/// record.
async fn run(net: &Net, script: &str) -> (i32, String, Vec<ProxyConnection>) {
    let proxy = net.sandbox.start_proxy().unwrap();
    let watch = net.sandbox.watch_refusals().unwrap();
    assert!(watch.is_some(), "the helper is set");
    let args = [OsStr::new("-c"), OsStr::new(script)];
    let dirs = [net.project.clone()];
    let cmd = net
        .sandbox
        .command(&Wrapped {
            program: Path::new("/bin/bash"),
            args: &args,
            cwd: &net.project,
            env: &[],
            working_dirs: &dirs,
            writable_files: &[],
            proxy: proxy.as_ref(),
            writes: watch.as_ref(),
        })
        .unwrap();
    let (code, text) = merged_output(cmd).await;
    // With allowed domains, Internet sockets are what the bridge and the
    // proxy variables need: the trap lets them be.
    let refused = watch.map(|w| w.blocked()).unwrap_or_default();
    if net.sandbox.policy().network == gatehouse_sandbox::NetworkPolicy::Proxy {
        assert!(
            refused
                .list
                .iter()
                .all(|r| r.target != "AF_INET" && r.target != "AF_INET6"),
            "{refused:?}"
        );
    }
    let record = proxy.map(|p| p.connections()).unwrap_or_default();
    (code, text, record)
}

#[tokio::test]
async fn the_probe_starts_the_bridge_when_domains_are_allowed() {
    let n = net(&["allowed.test"], ProxyLimits::default());
    probe(&n.sandbox, &n.project).await.unwrap();
}

#[tokio::test]
async fn sandbox_allows_an_allowed_host_through_the_proxy() {
    let (port, served) = http_server().await;
    let n = net(&["allowed.test"], ProxyLimits::default());
    // Plain HTTP (absolute-form request), then the same through a CONNECT
    // tunnel (what HTTPS uses).
    for flags in ["", "--proxytunnel"] {
        let script = format!("curl -sS --max-time 20 {flags} http://allowed.test:{port}/");
        let (code, out, record) = run(&n, &script).await;
        assert_eq!((code, out.as_str()), (0, BODY), "{script}");
        assert_eq!(record.len(), 1, "{record:?}");
        let c = &record[0];
        assert_eq!(
            (c.host.as_str(), c.port, c.allowed),
            ("allowed.test", port, true)
        );
        assert!(c.bytes_up > 0 && c.bytes_down > BODY.len() as u64, "{c:?}");
        assert_eq!(c.error, None);
    }
    assert_eq!(served.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn the_proxy_variables_point_at_the_bridge() {
    let n = net(&["allowed.test"], ProxyLimits::default());
    let (code, out, _) = run(
        &n,
        "echo $HTTP_PROXY $https_proxy $ALL_PROXY $NO_PROXY $no_proxy",
    )
    .await;
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out.trim(),
        "http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 localhost,127.0.0.1,::1 localhost,127.0.0.1,::1"
    );
}

#[tokio::test]
async fn sandbox_blocks_a_host_not_allowed_with_a_403_and_records_it() {
    let (port, served) = http_server().await;
    let n = net(&["allowed.test", "*.allowed.test"], ProxyLimits::default());
    let script = format!(
        "curl -s -o /dev/null -w '%{{http_code}}' --max-time 20 http://denied.test:{port}/"
    );
    let (_, out, record) = run(&n, &script).await;
    assert_eq!(out, "403");
    let (code, out, tunnel) = run(
        &n,
        &format!("curl -sS --max-time 20 --proxytunnel http://denied.test:{port}/"),
    )
    .await;
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("403"), "{out}");
    for r in [record, tunnel] {
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!((r[0].host.as_str(), r[0].allowed), ("denied.test", false));
        assert_eq!((r[0].bytes_up, r[0].bytes_down), (0, 0));
    }
    assert_eq!(served.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn sandbox_blocks_connections_that_bypass_the_proxy() {
    let (port, served) = http_server().await;
    let n = net(&["allowed.test"], ProxyLimits::default());
    for script in [
        format!("curl -sS --max-time 10 --noproxy '*' http://127.0.0.1:{port}/"),
        format!("exec 3<>/dev/tcp/127.0.0.1/{port}"),
        "getent hosts example.com".to_owned(),
    ] {
        let (code, out, record) = run(&n, &script).await;
        assert_ne!(code, 0, "{script} succeeded: {out}");
        assert!(record.is_empty(), "{record:?}");
    }
    assert_eq!(served.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn sandbox_blocks_everything_when_no_domain_is_allowed() {
    let (port, served) = http_server().await;
    let n = net(&[], ProxyLimits::default());
    assert!(n.sandbox.start_proxy().unwrap().is_none());
    for script in [
        format!("curl -sS --max-time 10 http://allowed.test:{port}/"),
        format!("curl -sS --max-time 10 -x http://127.0.0.1:3128 http://allowed.test:{port}/"),
        format!("exec 3<>/dev/tcp/127.0.0.1/{port}"),
    ] {
        let (code, out, _) = run(&n, &script).await;
        assert_ne!(code, 0, "{script} succeeded: {out}");
    }
    assert_eq!(served.load(Ordering::SeqCst), 0);
}

/// With domains allowed the filter lets Internet sockets be created (for
/// the loopback bridge) but still refuses the other families.
#[tokio::test]
async fn sandbox_with_allowed_domains_still_refuses_other_socket_families() {
    assert!(which("python3"), "this test needs python3");
    let n = net(&["allowed.test"], ProxyLimits::default());
    let script = r#"python3 - <<'EOF'
import socket
for fam, kind in ((socket.AF_INET, socket.SOCK_STREAM), (socket.AF_INET6, socket.SOCK_STREAM),
                  (socket.AF_NETLINK, socket.SOCK_DGRAM), (socket.AF_PACKET, socket.SOCK_DGRAM)):
    try:
        socket.socket(fam, kind).close(); print(int(fam), "allowed")
    except PermissionError:
        print(int(fam), "refused")
EOF"#;
    let (code, out, _) = run(&n, script).await;
    assert_eq!(code, 0, "{out}");
    for line in ["2 allowed", "10 allowed", "16 refused", "17 refused"] {
        assert!(out.lines().any(|l| l == line), "{line} missing: {out}");
    }
}

/// The proxy on its own, from the host side: a head that never ends is
/// refused once it passes the limit, connections past the count get 503,
/// and a dropped proxy accepts nothing more.
#[tokio::test]
async fn the_proxy_is_bounded_and_ends_when_dropped() {
    let rules = ProxyRules {
        allowed: vec![DomainPattern::parse("allowed.test").unwrap()],
        limits: ProxyLimits {
            max_connections: 2,
            max_head_bytes: 1024,
            ..ProxyLimits::default()
        },
        ..ProxyRules::default()
    };
    let proxy = NetProxy::start(Arc::new(rules)).unwrap();
    let ask = |head: Vec<u8>| {
        let path = proxy.socket_path().to_path_buf();
        async move {
            let mut s = tokio::net::UnixStream::connect(path).await.unwrap();
            let _ = s.write_all(&head).await;
            let mut reply = String::new();
            let _ = s.read_to_string(&mut reply).await;
            reply
        }
    };
    let long = [
        b"GET http://allowed.test/ HTTP/1.1\r\nX: ".as_slice(),
        &[b'a'; 4096],
    ]
    .concat();
    let too_long = ask(long).await;
    assert!(too_long.starts_with("HTTP/1.1 400"), "{too_long:?}");
    let refused = ask(b"CONNECT denied.test:443 HTTP/1.1\r\n\r\n".to_vec()).await;
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    let over = ask(b"CONNECT allowed.test:443 HTTP/1.1\r\n\r\n".to_vec()).await;
    assert!(over.starts_with("HTTP/1.1 503"), "{over}");
    // Only the parsed request was recorded.
    assert_eq!(proxy.connections().len(), 1);
    let path = proxy.socket_path().to_path_buf();
    drop(proxy);
    assert!(tokio::net::UnixStream::connect(&path).await.is_err());
}
