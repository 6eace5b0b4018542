//! The real binary with `METRICS_ADDR`: `bandmap serve` answers `GET /metrics` on that
//! address (its own requests counted, the database gauges read), while the public address
//! does not serve `/metrics`; a background worker (`bandmap enqueue`) serves its own; a
//! taken address stops the process with the address in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Child, Command, Stdio};

fn bandmap() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bandmap"));
    c.current_dir(std::env::temp_dir());
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    c
}

fn free_port() -> u16 {
    free_ports::<1>()[0]
}

/// `N` distinct free ports: every listener is held until all are picked, so the system
/// cannot hand out one port twice (two equal ports made `serve` stop at start, a flake).
fn free_ports<const N: usize>() -> [u16; N] {
    let held: Vec<std::net::TcpListener> = (0..N)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    std::array::from_fn(|i| held[i].local_addr().unwrap().port())
}

/// Kills the child when the test ends, whatever happens.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Polls `url` until it answers (a generous deadline: a safety net, not a speed check).
async fn get_when_up(url: &str) -> reqwest::Response {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        if let Ok(r) = reqwest::get(url).await {
            return r;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never answered: {url}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn serve_and_a_worker_serve_metrics_on_their_own_address() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let db = bandmap_test_support::TestDb::new().await;
    sqlx::raw_sql(
        "INSERT INTO bands (ma_id, name, country, country_code) VALUES (1, 'Alpha', 'Norway', 'NO');
         INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, geocode_status)
         VALUES (1, 0, 0, 'Oslo', 'pending');",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    let [public, private] = free_ports::<2>();
    let _serve = Running(
        bandmap()
            .arg("serve")
            .env("DATABASE_URL", &db.url)
            .env("BIND_ADDR", format!("127.0.0.1:{public}"))
            .env("METRICS_ADDR", format!("127.0.0.1:{private}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let health = get_when_up(&format!("http://127.0.0.1:{public}/healthz")).await;
    assert_eq!(health.status(), 200);
    let on_public = reqwest::get(format!("http://127.0.0.1:{public}/metrics"))
        .await
        .unwrap();
    assert_eq!(
        on_public.status(),
        404,
        "metrics stay off the public address"
    );

    let res = get_when_up(&format!("http://127.0.0.1:{private}/metrics")).await;
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    assert!(
        text.contains(
            r#"bandmap_http_requests_total{method="GET",route="/healthz",status="200"} 1"#
        ),
        "{text}"
    );
    assert!(
        text.contains(r#"bandmap_band_locations{status="pending"} 1"#),
        "{text}"
    );

    // A worker process serves its own listener (the database gauges included).
    let worker_port = free_port();
    let _enqueue = Running(
        bandmap()
            .arg("enqueue")
            .env("DATABASE_URL", &db.url)
            .env("METRICS_ADDR", format!("127.0.0.1:{worker_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let res = get_when_up(&format!("http://127.0.0.1:{worker_port}/metrics")).await;
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().contains("bandmap_bands 1"));

    // The address is taken now: a second process stops and names it.
    let out = bandmap()
        .arg("enqueue")
        .env("DATABASE_URL", &db.url)
        .env("METRICS_ADDR", format!("127.0.0.1:{worker_port}"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("METRICS_ADDR 127.0.0.1:{worker_port}")),
        "{err}"
    );
}
