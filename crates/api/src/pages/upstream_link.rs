//! The upstream page of a band as a link: the stored URL when it is an http(s) URL on the
//! upstream's host, else the upstream's canonical form `{UPSTREAM_BASE_URL}/bands/_/{id}`.
//! A stored value is upstream text: a `javascript:` or foreign URL never becomes a link.

use bandmap_config::Config;

/// The link to band `ma_id`'s upstream page.
pub fn band_url(config: &Config, ma_id: i64, stored: Option<&str>) -> String {
    let base = &config.upstream.base_url;
    let trusted = stored
        .and_then(|s| url::Url::parse(s).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str() == base.host_str());
    match trusted {
        Some(u) => u.to_string(),
        None => format!("{}/bands/_/{ma_id}", base.as_str().trim_end_matches('/')),
    }
}
