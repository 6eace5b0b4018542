//! Recorded mode: the documented URL → file mapping, empty listings past the recording,
//! not-recorded pages, and the shipped demo recording parses end to end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use bandmap_upstream::client::{FetchError, SolverConfig, UpstreamClient, UpstreamMode};
use bandmap_upstream::parse::{parse_band_page, parse_country_page, parse_discography};
use bandmap_upstream::url::UpstreamUrls;

fn tmpdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bandmap-rec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/upstream/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn client(dir: &std::path::Path) -> UpstreamClient {
    let mode: UpstreamMode = format!("recorded:{}", dir.display()).parse().unwrap();
    UpstreamClient::new(&mode, SolverConfig::new("http://unused/v1")).unwrap()
}

#[tokio::test]
async fn reads_pages_by_the_documented_layout() {
    let dir = tmpdir("layout");
    let u = UpstreamUrls::new("https://www.metal-archives.com").unwrap();
    let put = |rel: &str, body: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    put(
        "browse/ajax-country/c/NO/json/1@0",
        &fixture("country_NO_0_pre.html"),
    );
    put("bands/_/3540000101", &fixture("band_active_tabs.html"));
    put(
        "band/discography/id/3540000101/tab/all",
        &fixture("discography_all.html"),
    );
    put("bands/_/666", &fixture("challenge.html"));
    put("browse/ajax-country/c/SE/json/1@0", "Forbidden.");
    let c = client(&dir);
    c.ping().await.unwrap();

    let page = parse_country_page(&c.get_json(&u.country_page("NO", 0)).await.unwrap()).unwrap();
    assert_eq!(page.total, 1203);
    // Past the recording: an empty listing.
    let past = parse_country_page(&c.get_json(&u.country_page("NO", 500)).await.unwrap()).unwrap();
    assert!(past.rows.is_empty());
    let band = parse_band_page(&c.get_html(&u.band_page(3_540_000_101)).await.unwrap()).unwrap();
    assert_eq!(band.name, "Fjellgrav");
    let disco =
        parse_discography(&c.get_html(&u.discography(3_540_000_101)).await.unwrap()).unwrap();
    assert_eq!(disco.len(), 3);

    assert!(matches!(
        c.get_html(&u.band_page(1)).await,
        Err(FetchError::NotRecorded { .. })
    ));
    assert!(
        c.get_html(&u.band_page(666))
            .await
            .unwrap_err()
            .fault()
            .is_some()
    );
    let err = c.get_json(&u.country_page("SE", 0)).await.unwrap_err();
    assert!(
        matches!(&err, FetchError::Parse(p) if p.is_not_json()),
        "{err:?}"
    );
    assert_eq!(c.stats().requests, 7);
    c.shutdown().await;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn missing_directory_fails_ping() {
    let c = client(std::path::Path::new("/nonexistent/bandmap-recorded"));
    assert!(c.ping().await.is_err());
}

/// The committed demo recording (`demo/upstream`, from `scripts/gen-demo-upstream.py`)
/// reads end to end with the production parsers.
#[tokio::test]
async fn demo_recording_parses() {
    use bandmap_upstream::parse::parse_change_page;
    use bandmap_upstream::url::ChangeKind;

    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../demo/upstream"));
    let c = client(&dir);
    let u = UpstreamUrls::new("https://www.metal-archives.com").unwrap();
    let mut bands = 0;
    for cc in [
        "NO", "SE", "FI", "DE", "GB", "PL", "FR", "NL", "IT", "GR", "CH", "PT", "AT", "BE", "DK",
        "IS", "IE", "ES", "CZ", "HU", "RO", "UA", "RU", "EE", "LV", "LT", "FO", "BY", "TR", "GE",
    ] {
        let page = parse_country_page(&c.get_json(&u.country_page(cc, 0)).await.unwrap()).unwrap();
        assert_eq!(page.total as usize, page.rows.len(), "{cc}");
        assert!(
            !page.rows.is_empty(),
            "{cc}: the demo has bands in 30 countries"
        );
        assert_eq!(page.skipped, 0);
        for row in &page.rows {
            let html = c.get_html(&u.band_page(row.ma_id)).await.unwrap();
            let band = parse_band_page(&html).unwrap();
            assert_eq!(band.ma_id, row.ma_id);
            assert_eq!(band.name, row.name);
            assert_eq!(band.country_code.as_deref(), Some(cc));
            // The list writes `N/A` where the page parser reads "no location".
            let listed = Some(row.location.as_str()).filter(|l| *l != "N/A");
            assert_eq!(band.location.as_deref(), listed);
            assert_eq!(band.genre.as_deref(), Some(row.genre.as_str()));
            assert_eq!(band.status.as_deref(), Some(row.status.as_str()));
            assert!(band.last_modified_text.is_some());
            let disco = c.get_html(&u.discography(row.ma_id)).await.unwrap();
            parse_discography(&disco).unwrap();
            bands += 1;
        }
    }
    // Every European band of demo/bands.tsv, in 30 countries (issue 14).
    assert_eq!(bands, 308);
    let mut foreign = 0;
    for kind in [ChangeKind::Created, ChangeKind::Modified] {
        let v = c
            .get_json(&u.changes_page(2026, 11, kind, 0))
            .await
            .unwrap();
        let page = parse_change_page(&v).unwrap();
        assert!(!page.rows.is_empty());
        foreign += page
            .rows
            .iter()
            .filter(|r| matches!(r.country_code.as_deref(), Some("US" | "BR" | "JP" | "CA")))
            .count();
        // Past the last page: empty.
        let v = c
            .get_json(&u.changes_page(2026, 11, kind, 200))
            .await
            .unwrap();
        assert!(parse_change_page(&v).unwrap().rows.is_empty());
    }
    assert!(foreign >= 3);
}
