//! The binary: help lists the commands and variables, bad configuration stops it with the
//! variable's name, `migrate` migrates a real database and exits 0.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn bandmap() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bandmap"));
    // Run outside the repository so no developer .env is picked up.
    c.current_dir(std::env::temp_dir());
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    c
}

#[test]
fn help_lists_every_command_and_variable() {
    let out = bandmap().arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for cmd in [
        "serve", "crawler", "geocoder", "enqueue", "llm", "all", "migrate", "import",
    ] {
        assert!(
            text.contains(&format!("  {cmd}")),
            "help misses {cmd}:\n{text}"
        );
    }
    for var in bandmap_config::VARIABLES {
        assert!(text.contains(var.name), "help misses {}", var.name);
    }
}

#[test]
fn a_bad_value_stops_with_the_variable_name() {
    for (var, value) in [
        ("GEOCODE_MIN_CONFIDENCE", "abc"),
        ("BIND_ADDR", "nowhere"),
        ("DATABASE_URL", "nowhere"),
        ("RUST_LOG", "info,[[["),
    ] {
        let out = bandmap().arg("migrate").env(var, value).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(var), "{var}: {err}");
    }
}

#[tokio::test]
async fn migrate_applies_everything_then_nothing() {
    let db = bandmap_test_support::TestDb::empty().await;
    let run = || {
        bandmap()
            .arg("migrate")
            .env("DATABASE_URL", &db.url)
            .output()
            .unwrap()
    };
    let first = run();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let text = String::from_utf8_lossy(&first.stdout);
    assert!(
        text.contains(&format!(
            "{} applied",
            bandmap_db::migrate::MIGRATIONS.len()
        )),
        "{text}"
    );
    let second = run();
    assert!(String::from_utf8_lossy(&second.stdout).contains("0 applied"));
}

/// Waits (up to a generous deadline, so a broken build fails instead of hanging) until
/// `ready` holds; the deadline is a safety net, not an assertion on speed.
fn wait_until(mut ready: impl FnMut() -> bool, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !ready() {
        assert!(std::time::Instant::now() < deadline, "never: {what}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[tokio::test]
async fn serve_stops_cleanly_on_sigterm() {
    let db = bandmap_test_support::TestDb::new().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = bandmap()
        .arg("serve")
        .env("DATABASE_URL", &db.url)
        .env("BIND_ADDR", format!("127.0.0.1:{port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_until(
        || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok(),
        "serve listening",
    );
    let killed = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(killed.success());
    let mut status = None;
    wait_until(
        || {
            status = child.try_wait().unwrap();
            status.is_some()
        },
        "serve exited after SIGTERM",
    );
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(
        status.unwrap().success(),
        "exit status {status:?}, stderr:\n{err}"
    );
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the port is released"
    );
}
