//! Every parser against the hand-written fixtures in `tests/fixtures/upstream/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_upstream::parse::{
    BlockKind, Member, block_page, parse_band_page, parse_change_page, parse_country_page,
    parse_discography, unwrap_json,
};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/upstream/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn country_page_raw_and_wrapped_agree() {
    let raw = parse_country_page(&unwrap_json(&fixture("country_NO_0.json")).unwrap()).unwrap();
    let pre = parse_country_page(&unwrap_json(&fixture("country_NO_0_pre.html")).unwrap()).unwrap();
    assert_eq!(raw, pre);
    assert_eq!(raw.total, 1203);
    assert_eq!(raw.rows.len(), 4);
    assert_eq!(raw.skipped, 1);
    let first = &raw.rows[0];
    assert_eq!(first.ma_id, 3_540_000_101);
    assert_eq!(first.name, "Fjellgrav");
    assert_eq!(
        first.url,
        "https://www.metal-archives.com/bands/Fjellgrav/3540000101"
    );
    assert_eq!(first.genre, "Black Metal");
    assert_eq!(first.location, "Bergen, Vestland");
    assert_eq!(first.status, "Active");
    assert_eq!(raw.rows[1].name, "Draug & Dis");
    assert_eq!(raw.rows[1].status, "Split-up");
    assert_eq!(raw.rows[1].location, "Kolbotn, Viken (early); Oslo (later)");
    assert_eq!(raw.rows[2].name, "Nøkken");
    assert_eq!(raw.rows[2].location, "N/A");
    assert_eq!(raw.rows[2].status, "On hold");
    assert_eq!(
        raw.rows[3].location,
        "Bø, Vestfold og Telemark / Skien, Telemark"
    );
}

#[test]
fn change_page_with_broken_secho() {
    let page = parse_change_page(&unwrap_json(&fixture("changes_created.json")).unwrap()).unwrap();
    assert_eq!(page.total, 412);
    assert_eq!(page.rows.len(), 3);
    assert_eq!(page.skipped, 1);
    let r = &page.rows[0];
    assert_eq!(r.ma_id, 3_540_000_201);
    assert_eq!(r.name, "Kalter Nebel");
    assert_eq!(r.country_code.as_deref(), Some("DE"));
    assert_eq!(r.country_name, "Germany");
    assert_eq!(r.genre, "Melodic Death Metal");
    assert_eq!(r.changed_at_text, "November 7th, 14:02");
    assert_eq!(r.user.as_deref(), Some("nordwind"));
    assert_eq!(page.rows[1].country_code.as_deref(), Some("US"));
    assert_eq!(page.rows[2].name, "Ryk & Rune");
    assert_eq!(page.rows[2].user, None);
}

#[test]
fn active_band_with_tabs_and_rocket_loader() {
    let b = parse_band_page(&fixture("band_active_tabs.html")).unwrap();
    assert_eq!(b.ma_id, 3_540_000_101);
    assert_eq!(b.name, "Fjellgrav");
    assert_eq!(
        b.url,
        "https://www.metal-archives.com/bands/Fjellgrav/3540000101"
    );
    assert_eq!(b.country_code.as_deref(), Some("NO"));
    assert_eq!(b.country_name.as_deref(), Some("Norway"));
    assert_eq!(b.location.as_deref(), Some("Bergen, Vestland"));
    assert_eq!(b.status.as_deref(), Some("Active"));
    assert_eq!(b.formed_year, Some(1994));
    assert_eq!(
        b.genre.as_deref(),
        Some("Black Metal (early); Black/Doom Metal (later)")
    );
    assert_eq!(
        b.themes.as_deref(),
        Some("Mountains, Winter, Norse mythology")
    );
    assert_eq!(b.label.as_deref(), Some("Kaldt Lys Records"));
    assert_eq!(
        b.label_url.as_deref(),
        Some("https://www.metal-archives.com/labels/Kaldt_Lys_Records/40123")
    );
    assert_eq!(
        b.years_active.as_deref(),
        Some("1994-1997 (as Gravfjell), 1997-present")
    );
    assert_eq!(
        b.discography_url.as_deref(),
        Some("https://www.metal-archives.com/band/discography/id/3540000101/tab/all")
    );
    let info = b.info_raw.unwrap();
    assert!(info.starts_with("Fjellgrav started as a duo"), "{info}");
    assert!(
        info.contains("\"winter\" concept albums & long songs"),
        "{info}"
    );
    assert!(!info.contains("noise"), "{info}");
    assert!(!info.ends_with("Read more"), "{info}");
    assert_eq!(b.added_on.as_deref(), Some("2004-03-18 19:22:41"));
    assert_eq!(b.last_modified_text.as_deref(), Some("2026-11-02 08:15:09"));
    assert_eq!(
        b.lineup.len(),
        4,
        "only the complete line-up tab: {:?}",
        b.lineup
    );
    assert_eq!(
        b.lineup[0],
        Member {
            section: "Current".into(),
            name: "Vintr".into(),
            artist_url: Some("https://www.metal-archives.com/artists/Vintr/3540000501".into()),
            artist_id: Some(3_540_000_501),
            role: "Vocals, Guitars (1994-present)".into(),
        }
    );
    assert_eq!(b.lineup[2].section, "Past");
    assert_eq!(b.lineup[2].name, "Hræsvælg");
    assert_eq!(b.lineup[3].section, "Past (Live)");
    assert_eq!(b.lineup[3].role, "Unknown");
}

#[test]
fn split_up_band_without_tabs_and_na_values() {
    let b = parse_band_page(&fixture("band_split_up_notabs.html")).unwrap();
    assert_eq!(b.ma_id, 3_540_000_102);
    assert_eq!(b.name, "Draug & Dis");
    assert_eq!(b.location, None);
    assert_eq!(b.formed_year, None);
    assert_eq!(b.themes, None);
    assert_eq!(b.info_raw, None);
    assert_eq!(b.added_on, None);
    assert_eq!(b.status.as_deref(), Some("Split-up"));
    assert_eq!(b.label.as_deref(), Some("Unsigned/independent"));
    assert_eq!(b.label_url, None);
    assert_eq!(b.years_active.as_deref(), Some("2001-2009"));
    assert_eq!(b.last_modified_text.as_deref(), Some("2019-05-30 17:40:02"));
    assert_eq!(b.lineup.len(), 2);
    assert!(b.lineup.iter().all(|m| m.section == "Last known"));
    assert_eq!(b.lineup[1].role, "Vocals (2001-2005)");
}

#[test]
fn minimal_band_with_themes_label() {
    let b = parse_band_page(&fixture("band_minimal.html")).unwrap();
    assert_eq!(b.name, "Nøkken");
    assert_eq!(b.themes.as_deref(), Some("Folklore, Sea"));
    assert_eq!(b.location.as_deref(), Some("Tromsø, Troms"));
    assert_eq!(b.formed_year, Some(2011));
    assert!(b.lineup.is_empty());
    assert_eq!(b.discography_url, None);
    assert_eq!(b.last_modified_text, None);
}

#[test]
fn non_band_pages_fail() {
    assert!(parse_band_page(&fixture("challenge.html")).is_err());
    assert!(parse_band_page("").is_err());
    assert!(parse_discography(&fixture("challenge.html")).is_err());
    let err = parse_band_page("<html></html>")
        .unwrap_err()
        .at("https://x/bands/_/1");
    assert!(
        err.to_string().starts_with("https://x/bands/_/1: "),
        "{err}"
    );
}

#[test]
fn discography() {
    let r = parse_discography(&fixture("discography_all.html")).unwrap();
    assert_eq!(r.len(), 3);
    assert_eq!(r[0].id, 3_540_100_001);
    assert_eq!(r[0].title, "Under isen");
    assert_eq!(r[0].kind, "Demo");
    assert_eq!(r[0].year, Some(1995));
    assert_eq!(r[0].reviews, None);
    assert_eq!(r[1].title, "Vinterens tråne");
    assert_eq!(r[1].kind, "Full-length");
    assert_eq!(r[1].reviews.as_deref(), Some("7 (84%)"));
    assert_eq!(r[2].kind, "Split");
    assert!(
        parse_discography(&fixture("discography_empty.html"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn block_pages() {
    assert_eq!(
        block_page(&fixture("challenge.html")),
        Some(BlockKind::Challenge)
    );
    assert_eq!(block_page(&fixture("band_active_tabs.html")), None);
    assert_eq!(block_page(&fixture("country_NO_0_pre.html")), None);
}

#[test]
fn list_parsers_reject_wrong_shapes() {
    let v = serde_json::json!([1, 2]);
    assert!(parse_country_page(&v).is_err());
    assert!(parse_change_page(&serde_json::json!({"iTotalRecords": 3})).is_err());
    let only_rows = serde_json::json!({"aaData": []});
    assert_eq!(parse_country_page(&only_rows).unwrap().total, 0);
}

#[test]
fn recently_modified_list_newest_first() {
    let page = parse_change_page(&unwrap_json(&fixture("changes_modified.json")).unwrap()).unwrap();
    assert_eq!(page.total, 2817);
    assert_eq!(page.skipped, 0);
    let rows: Vec<(i64, &str, Option<&str>, &str)> = page
        .rows
        .iter()
        .map(|r| {
            (
                r.ma_id,
                r.name.as_str(),
                r.country_code.as_deref(),
                r.changed_at_text.as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                3_540_000_101,
                "Fjellgrav",
                Some("NO"),
                "November 21st, 09:03"
            ),
            (
                3_540_000_102,
                "Draug & Dis",
                Some("NO"),
                "November 21st, 00:47"
            ),
            (
                3_540_000_202,
                "Serpent Altar",
                Some("US"),
                "November 20th, 23:59"
            ),
            (
                3_540_000_201,
                "Kalter Nebel",
                Some("DE"),
                "November 3rd, 14:02"
            ),
        ]
    );
    assert_eq!(page.rows[3].user, None);
}
