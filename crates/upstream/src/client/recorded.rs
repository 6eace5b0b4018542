//! Recorded mode (`UPSTREAM_MODE=recorded:DIR`): pages are files under `DIR`, named after the
//! URL path so a recording is easy to read and extend by hand.
//!
//! Mapping ([`recorded_path`]): the host and the query are dropped, empty path segments are
//! skipped (`by/created//json/1` → `by/created/json/1`), a band page's name segment becomes `_`
//! (`/bands/Any_Name/42` → `bands/_/42`), and a listing's `iDisplayStart=N` is appended as
//! `@N` to the last segment. Examples:
//!
//! | URL | file |
//! |---|---|
//! | `/browse/ajax-country/c/NO/json/1?sEcho=1&iDisplayStart=500&…` | `DIR/browse/ajax-country/c/NO/json/1@500` |
//! | `/archives/ajax-band-list/selection/2026-11/by/created//json/1?…&iDisplayStart=0…` | `DIR/archives/ajax-band-list/selection/2026-11/by/created/json/1@0` |
//! | `/bands/_/3540000001` | `DIR/bands/_/3540000001` |
//! | `/band/discography/id/3540000001/tab/all` | `DIR/band/discography/id/3540000001/tab/all` |
//!
//! Files hold the page as the solver would return it (JSON may be raw or `<pre>`-wrapped).
//! A missing **listing** page (`browse/ajax-country`, `archives/ajax-band-list`) reads as an
//! empty listing, so a month or country with nothing recorded has no bands; any other missing
//! page is [`FetchError::NotRecorded`].

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use super::{ClientStats, FaultKind, FetchError};
use crate::parse::{block_page, unwrap_json};

/// Reads recorded pages from a directory.
#[derive(Debug)]
pub struct RecordedClient {
    dir: PathBuf,
    requests: AtomicU64,
}

/// The file that holds `url` under `dir` (see the module documentation).
#[must_use]
pub fn recorded_path(dir: &Path, url: &str) -> PathBuf {
    let (path, query) = match ::url::Url::parse(url) {
        Ok(u) => (
            u.path().to_owned(),
            u.query().unwrap_or_default().to_owned(),
        ),
        Err(_) => {
            let (p, q) = url.split_once('?').unwrap_or((url, ""));
            (p.to_owned(), q.to_owned())
        }
    };
    let mut segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != "." && *s != "..")
        .map(str::to_owned)
        .collect();
    if segs.len() == 3 && segs[0] == "bands" {
        segs[1] = "_".to_owned();
    }
    let start = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("iDisplayStart="));
    if let (Some(start), Some(last)) = (start, segs.last_mut()) {
        last.push('@');
        last.push_str(start);
    }
    let mut out = dir.to_path_buf();
    out.extend(segs);
    out
}

fn is_listing(url: &str) -> bool {
    url.contains("/browse/ajax-country/") || url.contains("/archives/ajax-band-list/")
}

impl RecordedClient {
    /// Read pages from `dir`.
    #[must_use]
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            requests: AtomicU64::new(0),
        }
    }

    /// The directory pages are read from.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    async fn read(&self, url: &str) -> Result<Option<String>, FetchError> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let path = recorded_path(&self.dir, url);
        match tokio::fs::read_to_string(&path).await {
            Ok(body) => Ok(Some(body)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if is_listing(url) {
                    Ok(None)
                } else {
                    Err(FetchError::NotRecorded {
                        url: url.to_owned(),
                        path,
                    })
                }
            }
            Err(source) => Err(FetchError::Io { path, source }),
        }
    }

    /// Read an HTML page. A recorded challenge page is reported as a fault (not retried).
    pub async fn get_html(&self, url: &str) -> Result<String, FetchError> {
        let body = self
            .read(url)
            .await?
            .ok_or_else(|| FetchError::NotRecorded {
                url: url.to_owned(),
                path: recorded_path(&self.dir, url),
            })?;
        if let Some(kind) = block_page(&body) {
            return Err(FetchError::Fault {
                url: url.to_owned(),
                kind: FaultKind::BlockPage(kind),
            });
        }
        Ok(body)
    }

    /// Read a JSON endpoint; a missing listing page is an empty listing.
    pub async fn get_json(&self, url: &str) -> Result<Value, FetchError> {
        match self.read(url).await? {
            Some(body) => unwrap_json(&body).map_err(|e| FetchError::Parse(e.at(url))),
            None => Ok(json!({
                "error": "",
                "iTotalRecords": 0,
                "iTotalDisplayRecords": 0,
                "sEcho": 0,
                "aaData": [],
            })),
        }
    }

    /// The directory exists.
    pub async fn ping(&self) -> Result<(), FetchError> {
        match tokio::fs::metadata(&self.dir).await {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(FetchError::Io {
                path: self.dir.clone(),
                source: std::io::Error::other("not a directory"),
            }),
            Err(source) => Err(FetchError::Io {
                path: self.dir.clone(),
                source,
            }),
        }
    }

    /// Activity counters (only `requests` moves).
    #[must_use]
    pub fn stats(&self) -> ClientStats {
        ClientStats {
            requests: self.requests.load(Ordering::Relaxed),
            ..ClientStats::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::{ChangeKind, UpstreamUrls};

    #[test]
    fn mapping() {
        let u = UpstreamUrls::new("https://www.metal-archives.com").unwrap();
        let d = Path::new("D");
        let p = |url: &str| recorded_path(d, url).to_string_lossy().into_owned();
        assert_eq!(
            p(&u.country_page("NO", 500)),
            "D/browse/ajax-country/c/NO/json/1@500"
        );
        assert_eq!(
            p(&u.changes_page(2026, 11, ChangeKind::Created, 0)),
            "D/archives/ajax-band-list/selection/2026-11/by/created/json/1@0"
        );
        assert_eq!(p(&u.band_page(7)), "D/bands/_/7");
        assert_eq!(p("https://x/bands/Some_Band/7"), "D/bands/_/7");
        assert_eq!(p(&u.discography(7)), "D/band/discography/id/7/tab/all");
        assert_eq!(p("https://x/../../etc/passwd"), "D/etc/passwd");
    }
}
