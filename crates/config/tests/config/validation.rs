//! Configuration validation: defaults, and a bad value names its variable.

use bandmap_config::{Config, ConfigError, GeocoderProvider, UpstreamMode, VARIABLES};
use std::collections::HashMap;
use std::time::Duration;

fn with(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::from_map(&map)
}

fn failing_var(pairs: &[(&str, &str)]) -> &'static str {
    match with(pairs) {
        Err(ConfigError::Invalid { var, .. }) => var,
        other => panic!("expected an invalid-value error, got {other:?}"),
    }
}

#[test]
fn defaults_follow_the_contract() {
    let c = with(&[]).unwrap();
    assert_eq!(c.server.bind_addr.to_string(), "127.0.0.1:8080");
    assert_eq!(c.upstream.mode, UpstreamMode::Solver);
    assert_eq!(c.crawler.delay, Duration::from_millis(2000));
    assert_eq!(c.crawler.full_crawl_interval_days, 60);
    assert_eq!(c.crawler.incremental_interval, Duration::from_secs(3600));
    assert_eq!(c.geocoder.provider, GeocoderProvider::Geoapify);
    assert_eq!(c.geocoder.min_delay, Duration::from_millis(220));
    assert!((c.geocoder.min_confidence - 0.7).abs() < 1e-9);
    assert!(c.geocoder.offline);
    assert_eq!(c.enqueue.auto_interval, Duration::from_secs(3600));
    assert_eq!(c.llm.model_primary, "llama-3.3-70b-versatile");
    assert!(c.server.trust_proxy);
    assert!(c.admin.jwt_secret.is_none());
}

#[test]
fn bad_values_name_their_variable() {
    assert_eq!(
        failing_var(&[("GEOCODE_MIN_CONFIDENCE", "abc")]),
        "GEOCODE_MIN_CONFIDENCE"
    );
    assert_eq!(
        failing_var(&[("GEOCODE_MIN_CONFIDENCE", "1.5")]),
        "GEOCODE_MIN_CONFIDENCE"
    );
    assert_eq!(failing_var(&[("BIND_ADDR", "nowhere")]), "BIND_ADDR");
    assert_eq!(
        failing_var(&[("UPSTREAM_MODE", "recorded:")]),
        "UPSTREAM_MODE"
    );
    assert_eq!(
        failing_var(&[("CRAWLER_DELAY_MS", "-1")]),
        "CRAWLER_DELAY_MS"
    );
    assert_eq!(
        failing_var(&[("GEOCODER_MIN_DELAY", "NaN")]),
        "GEOCODER_MIN_DELAY"
    );
    assert_eq!(
        failing_var(&[("GEOCODER_OFFLINE", "maybe")]),
        "GEOCODER_OFFLINE"
    );
    assert_eq!(
        failing_var(&[("GEOCODER_PROVIDER", "google")]),
        "GEOCODER_PROVIDER"
    );
    assert_eq!(failing_var(&[("LLM_BASE_URL", "ftp://x")]), "LLM_BASE_URL");
    assert_eq!(
        failing_var(&[("ENQUEUE_AUTO_INTERVAL_MIN", "0")]),
        "ENQUEUE_AUTO_INTERVAL_MIN"
    );
    assert_eq!(
        failing_var(&[("DATABASE_URL", "not a url")]),
        "DATABASE_URL"
    );
    assert_eq!(
        failing_var(&[("DATABASE_URL", "mysql://u:p@localhost/db")]),
        "DATABASE_URL"
    );
}

#[test]
fn database_urls_are_accepted_in_both_schemes_and_never_echoed() {
    for ok in [
        "postgres://localhost/bandmap",
        "postgresql://u:p@127.0.0.1:5432/x?sslmode=disable",
    ] {
        assert!(with(&[("DATABASE_URL", ok)]).is_ok(), "{ok}");
    }
    let err = with(&[("DATABASE_URL", "mysql://user:hunter2@h/db")])
        .unwrap_err()
        .to_string();
    assert!(!err.contains("hunter2"), "{err}");
}

#[test]
fn secrets_are_not_echoed_in_errors() {
    let c = with(&[("ADMIN_JWT_SECRET", "tooshortsecret")]).unwrap();
    let err = c.admin.unusable.join("; ");
    assert!(!err.contains("tooshortsecret"), "{err}");
}

#[test]
fn bad_admin_settings_never_stop_a_command_and_say_why() {
    // Issue 19 point 5 (CONTRACT §2): dropped and noted, not a start failure.
    let c = with(&[
        ("ADMIN_JWT_SECRET", "short"),
        ("ADMIN_SEED_PASSWORD_HASH", "plain"),
    ])
    .unwrap();
    assert!(c.admin.jwt_secret.is_none());
    assert!(c.admin.seed_password_hash.is_none());
    let why = c.admin.unusable.join("; ");
    assert!(
        why.contains("ADMIN_JWT_SECRET is shorter than 32 bytes"),
        "{why}"
    );
    assert!(
        why.contains("ADMIN_SEED_PASSWORD_HASH is not a bcrypt hash"),
        "{why}"
    );
    assert!(!why.contains("plain"), "{why}");
}

#[test]
fn recorded_mode_takes_a_directory() {
    let c = with(&[("UPSTREAM_MODE", "recorded:demo/upstream")]).unwrap();
    assert_eq!(
        c.upstream.mode,
        UpstreamMode::Recorded("demo/upstream".into())
    );
}

#[test]
fn llm_mode_is_api_or_recorded_and_recorded_needs_no_key() {
    let api = with(&[]).unwrap();
    assert_eq!(api.llm.mode, bandmap_config::LlmMode::Api);
    assert!(!api.llm.enabled(), "API mode without a key idles");
    let rec = with(&[("LLM_MODE", "recorded:demo/llm")]).unwrap();
    assert_eq!(
        rec.llm.mode,
        bandmap_config::LlmMode::Recorded("demo/llm".into())
    );
    assert!(rec.llm.enabled());
    for bad in ["recorded:", "replay"] {
        let why = with(&[("LLM_MODE", bad)]).unwrap_err().to_string();
        assert!(why.contains("LLM_MODE"), "{bad:?}: {why}");
    }
}

#[test]
fn every_variable_is_documented() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/configuration.md"
    ))
    .unwrap();
    for v in VARIABLES {
        assert!(
            doc.contains(&format!("`{}`", v.name)),
            "docs/configuration.md misses {}",
            v.name
        );
    }
}

#[test]
fn the_map_tile_url_is_a_template_a_path_or_none() {
    let url = |v: &str| with(&[("MAP_TILE_URL", v)]).map(|c| c.server.map_tile_url);
    assert_eq!(
        with(&[]).unwrap().server.map_tile_url,
        bandmap_config::DEFAULT_TILE_URL
    );
    for ok in [
        "none",
        "https://{s}.tile.example.org/{z}/{x}/{y}.png",
        "/tiles/{z}/{x}/{y}.png",
    ] {
        assert_eq!(url(ok).unwrap(), ok);
    }
    for bad in [
        "https://tile.example.org/{z}/{x}.png",
        "ftp://tile.example.org/{z}/{x}/{y}.png",
        "javascript:alert(1)//{z}{x}{y}",
        "//tile.example.org/{z}/{x}/{y}.png",
        "tiles/{z}/{x}/{y}.png",
    ] {
        assert_eq!(
            failing_var(&[("MAP_TILE_URL", bad)]),
            "MAP_TILE_URL",
            "{bad}"
        );
    }
}

#[test]
fn the_public_base_url_is_an_origin() {
    let base = |v: &str| {
        with(&[("PUBLIC_BASE_URL", v)]).map(|c| c.server.public_base_url.map(|u| u.to_string()))
    };
    assert_eq!(with(&[]).unwrap().server.public_base_url, None);
    assert_eq!(
        base("https://bandmap.example").unwrap().as_deref(),
        Some("https://bandmap.example/")
    );
    assert_eq!(
        base("http://127.0.0.1:8080/").unwrap().as_deref(),
        Some("http://127.0.0.1:8080/")
    );
    for bad in [
        "bandmap.example",
        "ftp://bandmap.example",
        "https://bandmap.example/map",
        "https://bandmap.example/?a=1",
        "https://bandmap.example/#x",
        "https://user:pw@bandmap.example",
        "javascript:alert(1)",
    ] {
        assert_eq!(
            failing_var(&[("PUBLIC_BASE_URL", bad)]),
            "PUBLIC_BASE_URL",
            "{bad}"
        );
    }
}
