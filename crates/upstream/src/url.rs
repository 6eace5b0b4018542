//! Builders for every upstream URL the service requests, from `UPSTREAM_BASE_URL`.
//! Page sizes follow what upstream accepts: 500 for country lists (its cap), 200 for the
//! change lists (what every known client uses).

/// Rows per country list page (upstream's cap).
pub const COUNTRY_PAGE_SIZE: u64 = 500;
/// Rows per change list page.
pub const CHANGES_PAGE_SIZE: u64 = 200;

/// Why a base URL was refused.
#[derive(Debug, thiserror::Error)]
pub enum UrlError {
    /// The base is not an absolute http(s) URL.
    #[error("invalid upstream base URL {0:?}")]
    InvalidBase(String),
}

/// Which change list: bands added or bands modified in a month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// Bands added (`by/created`).
    Created,
    /// Bands whose page was edited (`by/modified`).
    Modified,
}

impl ChangeKind {
    /// The path word upstream uses.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Modified => "modified",
        }
    }
}

/// URL builder bound to one upstream base (no trailing slash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamUrls {
    base: String,
}

impl UpstreamUrls {
    /// Validate `base` (`https://www.metal-archives.com`, or a test server's address).
    pub fn new(base: &str) -> Result<Self, UrlError> {
        let parsed = ::url::Url::parse(base).map_err(|_| UrlError::InvalidBase(base.to_owned()))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
            return Err(UrlError::InvalidBase(base.to_owned()));
        }
        Ok(Self {
            base: base.trim_end_matches('/').to_owned(),
        })
    }

    /// The base, without trailing slash.
    #[must_use]
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Country list page starting at row `offset` (`cc` upper-cased).
    #[must_use]
    pub fn country_page(&self, cc: &str, offset: u64) -> String {
        format!(
            "{}/browse/ajax-country/c/{}/json/1?sEcho={}&iDisplayStart={offset}&iDisplayLength={COUNTRY_PAGE_SIZE}",
            self.base,
            cc.to_ascii_uppercase(),
            offset / COUNTRY_PAGE_SIZE + 1,
        )
    }

    /// Change list page of month `year`-`month`, newest first, starting at row `offset`.
    #[must_use]
    pub fn changes_page(&self, year: i32, month: u32, kind: ChangeKind, offset: u64) -> String {
        format!(
            "{}/archives/ajax-band-list/selection/{year:04}-{month:02}/by/{}//json/1?sEcho={}&iDisplayStart={offset}&iDisplayLength={CHANGES_PAGE_SIZE}&iSortCol_0=4&sSortDir_0=desc",
            self.base,
            kind.as_str(),
            offset / CHANGES_PAGE_SIZE + 1,
        )
    }

    /// Band page by id (upstream accepts any name segment).
    #[must_use]
    pub fn band_page(&self, ma_id: i64) -> String {
        format!("{}/bands/_/{ma_id}", self.base)
    }

    /// Complete discography fragment of a band.
    #[must_use]
    pub fn discography(&self, ma_id: i64) -> String {
        format!("{}/band/discography/id/{ma_id}/tab/all", self.base)
    }

    /// Number of list pages needed for `total` rows of `page_size`.
    #[must_use]
    pub fn page_count(total: u64, page_size: u64) -> u64 {
        total.div_ceil(page_size.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_every_url() {
        let u = UpstreamUrls::new("https://www.metal-archives.com/").unwrap();
        assert_eq!(
            u.country_page("no", 500),
            "https://www.metal-archives.com/browse/ajax-country/c/NO/json/1?sEcho=2&iDisplayStart=500&iDisplayLength=500"
        );
        assert_eq!(
            u.changes_page(2026, 11, ChangeKind::Modified, 0),
            "https://www.metal-archives.com/archives/ajax-band-list/selection/2026-11/by/modified//json/1?sEcho=1&iDisplayStart=0&iDisplayLength=200&iSortCol_0=4&sSortDir_0=desc"
        );
        assert_eq!(u.band_page(32), "https://www.metal-archives.com/bands/_/32");
        assert_eq!(
            u.discography(32),
            "https://www.metal-archives.com/band/discography/id/32/tab/all"
        );
        assert_eq!(UpstreamUrls::page_count(1001, 500), 3);
        assert!(UpstreamUrls::new("not a url").is_err());
        assert!(UpstreamUrls::new("ftp://x").is_err());
    }
}
