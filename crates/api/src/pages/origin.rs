//! The public origin written into absolute links (canonical, OpenGraph, sitemap, embed
//! snippet): `PUBLIC_BASE_URL`, else `http://BIND_ADDR`. Never a request's `Host` header,
//! which a client chooses.

use bandmap_config::Config;

/// The origin without a trailing slash (`https://bandmap.example`).
pub fn public_base(config: &Config) -> String {
    match &config.server.public_base_url {
        Some(url) => url.as_str().trim_end_matches('/').to_string(),
        None => format!("http://{}", config.server.bind_addr),
    }
}
