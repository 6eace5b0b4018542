//! Scans against a real PostgreSQL database: rows per step and place, idempotence,
//! country-only centroids, honest counts with a forced failure, rule 20.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Row, band, count_rows, log_lines, rows, run_record};
use bandmap_db::band_locations::enqueue::{bands_without_rows, insert_locations};
use bandmap_enqueue::plan::{Plan, plan};
use bandmap_enqueue::run_once;
use bandmap_location::countries;
use bandmap_test_support::TestDb;
use sqlx::PgPool;

/// Makes the database refuse every row whose `location_raw` is `Poisonville`.
async fn refuse_poisonville(p: &PgPool) {
    sqlx::raw_sql(
        "CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
             IF NEW.location_raw = 'Poisonville' THEN
                 RAISE EXCEPTION 'poisoned place refused';
             END IF;
             RETURN NEW;
         END $$;
         CREATE TRIGGER refuse_poison BEFORE INSERT ON band_locations
             FOR EACH ROW EXECUTE FUNCTION refuse_poison();",
    )
    .execute(p)
    .await
    .unwrap();
}

/// Reads the bands without rows and plans them, as a scan's page does.
async fn planned_page(p: &PgPool) -> Vec<bandmap_db::band_locations::enqueue::NewLocation> {
    bands_without_rows(p, i64::MIN, 100)
        .await
        .unwrap()
        .iter()
        .flat_map(|b| match plan(b) {
            Plan::Rows(r) => r,
            Plan::Skip(why) => panic!("band {} skipped: {why}", b.ma_id),
        })
        .collect()
}

fn raws(rows: &[Row]) -> Vec<(i32, &str)> {
    rows.iter()
        .map(|r| (r.step_order, r.location_raw.as_str()))
        .collect()
}

fn pending(
    step: i32,
    label: &str,
    raw: &str,
    city: &str,
    regions: &[&str],
    country: &str,
    code: &str,
) -> Row {
    Row {
        step_order: step,
        parsed_step: step,
        step_label: Some(label.to_owned()),
        location_raw: raw.to_owned(),
        city: Some(city.to_owned()),
        regions: regions.iter().map(|r| r.to_string()).collect(),
        country: Some(country.to_owned()),
        country_code: Some(code.to_owned()),
        geocode_status: "pending".to_owned(),
    }
}

#[tokio::test]
async fn multi_step_and_multi_place_bands_give_one_row_per_step_and_place() {
    let db = TestDb::new().await;
    let p = &db.pool;
    band(
        p,
        1,
        Some("Sweden"),
        Some("SE"),
        Some("Sandviken, Gävleborg (early); Stockholm (later)"),
    )
    .await;
    band(p, 2, Some("France"), Some("FR"), Some("Lyon/Paris")).await;
    band(
        p,
        3,
        Some("Norway"),
        Some("NO"),
        Some("Bergen (early), Bø (mid), Limousin, France (later)"),
    )
    .await;

    let report = run_once(p, None).await.unwrap();
    assert_eq!(
        (report.bands, report.created, report.failed, report.skipped),
        (3, 7, 0, 0)
    );

    assert_eq!(
        rows(p, 1).await,
        [
            pending(
                0,
                "early",
                "Sandviken, Gävleborg",
                "Sandviken",
                &["Gävleborg"],
                "Sweden",
                "SE"
            ),
            pending(1, "later", "Stockholm", "Stockholm", &[], "Sweden", "SE"),
        ]
    );
    assert_eq!(
        rows(p, 2).await,
        [
            pending(0, "origin", "Lyon", "Lyon", &[], "France", "FR"),
            pending(0, "origin", "Paris", "Paris", &[], "France", "FR"),
        ]
    );
    // A foreign place takes the country named in the text.
    let norway = rows(p, 3).await;
    assert_eq!(norway.len(), 3);
    assert_eq!(
        norway[2],
        pending(
            2,
            "later",
            "Limousin, France",
            "Limousin",
            &[],
            "France",
            "FR"
        )
    );
    assert_eq!(norway[0].country.as_deref(), Some("Norway"));
}

#[tokio::test]
async fn a_second_scan_creates_nothing_and_the_unique_key_rejects_duplicates() {
    let db = TestDb::new().await;
    let p = &db.pool;
    band(
        p,
        10,
        Some("Finland"),
        Some("FI"),
        Some("Tampere \\ Helsinki"),
    )
    .await;
    band(p, 11, Some("Norway"), Some("NO"), Some("N/A")).await;

    let first = run_once(p, None).await.unwrap();
    assert_eq!((first.created, first.country_only), (3, 1));
    let second = run_once(p, None).await.unwrap();
    assert_eq!((second.bands, second.created, second.failed), (0, 0, 0));
    assert_eq!(count_rows(p).await, 3);
    let (status, stats, _, _) = run_record(p, second.run_id).await;
    assert_eq!(status, "success");
    assert_eq!(stats["created"], 0);

    // The key is the database's, not only the scan's: a plain duplicate INSERT fails.
    let dup = sqlx::query(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw)
         VALUES (10, 0, 0, 'Tampere')",
    )
    .execute(p)
    .await
    .unwrap_err();
    let code = dup
        .as_database_error()
        .and_then(|e| e.code())
        .map(|c| c.into_owned());
    assert_eq!(code.as_deref(), Some("23505"), "{dup}");
    assert_eq!(count_rows(p).await, 3);
}

/// step_order, label, raw, status, country, lat, lon, confidence, provider, granularity, code
type CentroidRow = (
    i32,
    String,
    String,
    String,
    Option<String>,
    f64,
    f64,
    f64,
    String,
    String,
    Option<String>,
);

#[tokio::test]
async fn a_country_only_band_gets_the_centroid_and_its_primary_point() {
    let db = TestDb::new().await;
    let p = &db.pool;
    band(p, 20, Some("Norway"), Some("NO"), Some("Unknown")).await;
    band(p, 21, Some("Sweden"), Some("SE"), None).await;
    band(p, 22, Some("Poland"), Some("PL"), Some("Kraków")).await;

    let report = run_once(p, None).await.unwrap();
    assert_eq!(
        (report.created, report.country_only, report.primary_points),
        (3, 2, 2)
    );

    let no = countries::by_code("NO").unwrap();
    let row: CentroidRow = sqlx::query_as(
        "SELECT step_order, step_label, location_raw, geocode_status, country, lat, lon,
                    confidence, provider, geocode_granularity, country_code
             FROM band_locations WHERE ma_id = 20",
    )
    .fetch_one(p)
    .await
    .unwrap();
    assert_eq!(
        row,
        (
            0,
            "origin".into(),
            "Norway".into(),
            "country_only".into(),
            Some("Norway".into()),
            no.lat,
            no.lon,
            0.1,
            "centroid".into(),
            "country".into(),
            Some("NO".into())
        )
    );
    // Rule 19: the band's primary point is the country-only row's.
    let (lat, lon, status, conf): (Option<f64>, Option<f64>, Option<String>, Option<f64>) =
        sqlx::query_as(
            "SELECT lat, lon, geocode_status, geocode_confidence FROM bands WHERE ma_id = 20",
        )
        .fetch_one(p)
        .await
        .unwrap();
    assert_eq!(
        (lat, lon, status.as_deref(), conf),
        (Some(no.lat), Some(no.lon), Some("country_only"), Some(0.1))
    );
    // A band with a real place stays unlocated until the geocoder runs.
    let lat: Option<f64> = sqlx::query_scalar("SELECT lat FROM bands WHERE ma_id = 22")
        .fetch_one(p)
        .await
        .unwrap();
    assert_eq!(lat, None);
}

#[test]
fn every_european_country_has_a_centroid() {
    let european: Vec<_> = countries::all().iter().filter(|c| c.european).collect();
    assert!(
        european.len() >= 50,
        "only {} European countries",
        european.len()
    );
    for c in european {
        assert!(
            (34.0..=81.0).contains(&c.lat) && (-25.0..=60.0).contains(&c.lon),
            "{} ({}) has no usable centroid: {},{}",
            c.code,
            c.name,
            c.lat,
            c.lon
        );
        // And a country-only band of it is resolved, not skipped.
        let band = bandmap_db::band_locations::enqueue::UnqueuedBand {
            ma_id: 1,
            location_text: Some("N/A".into()),
            country: Some(c.name.into()),
            country_code: Some(c.code.into()),
        };
        assert!(
            matches!(bandmap_enqueue::plan::plan(&band), bandmap_enqueue::plan::Plan::Rows(r) if r.len() == 1),
            "{}",
            c.code
        );
    }
}

#[tokio::test]
async fn the_run_records_honest_counts_including_a_failed_insert() {
    let db = TestDb::new().await;
    let p = &db.pool;
    // The database refuses exactly one place.
    refuse_poisonville(p).await;
    band(p, 30, Some("Norway"), Some("NO"), Some("Oslo")).await;
    band(p, 31, Some("France"), Some("FR"), Some("Lyon/Paris")).await;
    band(p, 32, Some("Norway"), Some("NO"), Some("Poisonville")).await;
    band(p, 33, Some("Norway"), Some("NO"), Some("N/A")).await;
    band(p, 34, Some("Unknown"), Some("ZZ"), Some("N/A")).await;

    let r = run_once(p, None).await.unwrap();
    assert_eq!(
        (r.bands, r.created, r.failed, r.skipped, r.country_only),
        (5, 4, 1, 1, 1),
        "{r:?}"
    );
    assert_eq!(count_rows(p).await, 4);
    // The country-only band's point was synchronised on the row-by-row path too.
    let lat: Option<f64> = sqlx::query_scalar("SELECT lat FROM bands WHERE ma_id = 33")
        .fetch_one(p)
        .await
        .unwrap();
    assert!(lat.is_some());

    let (status, stats, error, kind) = run_record(p, r.run_id).await;
    assert_eq!(
        (status.as_str(), kind.as_str(), error),
        ("success", "geocoder_enqueue", None)
    );
    assert_eq!(
        (
            stats["created"].as_u64(),
            stats["failed"].as_u64(),
            stats["skipped"].as_u64(),
            stats["country_only"].as_u64(),
            stats["bands"].as_u64()
        ),
        (Some(4), Some(1), Some(1), Some(1), Some(5))
    );

    let lines = log_lines(p, r.run_id).await;
    assert!(
        lines[0].1.starts_with("enqueue scan started (automatic)"),
        "{lines:?}"
    );
    let failures: Vec<_> = lines
        .iter()
        .filter(|(_, m)| m.starts_with("insert failed:"))
        .collect();
    assert_eq!(failures.len(), 1, "{lines:?}");
    assert!(
        failures
            .iter()
            .all(|(level, m)| level == "warn" && m.contains("poisoned place refused"))
    );
    assert!(failures.iter().any(|(_, m)| m.contains("ma_id=32")));
    assert!(
        lines
            .iter()
            .any(|(l, m)| l == "warn" && m.contains("retrying band by band"))
    );
    assert!(
        lines.iter().any(|(_, m)| m.starts_with("skipped 1 bands:")
            && m.contains("ZZ")
            && m.contains("34")),
        "{lines:?}"
    );
    let last = &lines.last().unwrap().1;
    assert_eq!(
        last,
        "enqueue scan finished: created=4 skipped=1 failed=1 country_only=1 bands=5"
    );

    // The band with no row is read again by the next scan, and fails again, honestly.
    let again = run_once(p, None).await.unwrap();
    assert_eq!(
        (again.bands, again.created, again.failed, again.skipped),
        (2, 0, 1, 1)
    );
}

#[tokio::test]
async fn a_changed_location_text_removes_the_rows_and_the_next_scan_recreates_them() {
    let db = TestDb::new().await;
    let p = &db.pool;
    band(p, 40, Some("Sweden"), Some("SE"), Some("Göteborg")).await;
    band(p, 41, Some("Sweden"), Some("SE"), Some("Umeå")).await;
    run_once(p, None).await.unwrap();
    assert_eq!(rows(p, 40).await[0].location_raw, "Göteborg");

    sqlx::query("UPDATE bands SET location_text = 'Malmö (early); Lund (later)' WHERE ma_id = 40")
        .execute(p)
        .await
        .unwrap();
    assert!(
        rows(p, 40).await.is_empty(),
        "rule 20: rows removed by the database"
    );
    assert_eq!(rows(p, 41).await.len(), 1, "other bands keep theirs");

    let r = run_once(p, None).await.unwrap();
    assert_eq!((r.bands, r.created), (1, 2));
    let raws: Vec<_> = rows(p, 40)
        .await
        .into_iter()
        .map(|r| (r.step_order, r.step_label.unwrap(), r.location_raw))
        .collect();
    assert_eq!(
        raws,
        [
            (0, "early".to_owned(), "Malmö".to_owned()),
            (1, "later".to_owned(), "Lund".to_owned())
        ]
    );
}

#[tokio::test]
async fn scans_page_through_more_bands_than_one_batch() {
    let db = TestDb::new().await;
    let p = &db.pool;
    let n = bandmap_enqueue::BATCH_SIZE + 7;
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code, location_text)
         SELECT g, 'B' || g, 'Norway', 'NO', 'Town' || g FROM generate_series(1, $1) g",
    )
    .bind(n)
    .execute(p)
    .await
    .unwrap();
    let r = run_once(p, None).await.unwrap();
    assert_eq!((r.bands, r.created), (n as u64, n as u64));
    assert_eq!(count_rows(p).await, n);
}

#[tokio::test]
async fn a_band_with_one_refused_place_keeps_no_row_and_the_next_scan_creates_them_all() {
    let db = TestDb::new().await;
    let p = &db.pool;
    refuse_poisonville(p).await;
    band(
        p,
        50,
        Some("France"),
        Some("FR"),
        Some("Lyon (early); Poisonville/Paris (later)"),
    )
    .await;
    band(p, 51, Some("Norway"), Some("NO"), Some("Oslo")).await;

    let r = run_once(p, None).await.unwrap();
    // The band's three planned rows all count as failed; the other band is created.
    assert_eq!(
        (r.bands, r.created, r.failed, r.existing),
        (2, 1, 3, 0),
        "{r:?}"
    );
    assert!(rows(p, 50).await.is_empty(), "no partial band is kept");
    assert_eq!(rows(p, 51).await.len(), 1);
    let lines = log_lines(p, r.run_id).await;
    let failures: Vec<_> = lines
        .iter()
        .filter(|(_, m)| m.starts_with("insert failed:"))
        .collect();
    assert_eq!(failures.len(), 1, "one line per failed band: {lines:?}");
    let line = &failures[0].1;
    assert!(
        line.contains("ma_id=50")
            && line.contains("rows=3")
            && line.contains("\"Poisonville\"")
            && line.contains("poisoned place refused"),
        "{line}"
    );

    // The cause removed, the next scan reads the band again and creates all its rows.
    sqlx::raw_sql("DROP TRIGGER refuse_poison ON band_locations")
        .execute(p)
        .await
        .unwrap();
    let again = run_once(p, None).await.unwrap();
    assert_eq!(
        (again.bands, again.created, again.failed),
        (1, 3, 0),
        "{again:?}"
    );
    assert_eq!(
        raws(&rows(p, 50).await),
        [(0, "Lyon"), (1, "Poisonville"), (1, "Paris")]
    );
}

#[tokio::test]
async fn rows_planned_from_a_location_changed_before_the_insert_are_not_created() {
    let db = TestDb::new().await;
    let p = &db.pool;
    band(p, 60, Some("Sweden"), Some("SE"), Some("Göteborg")).await;
    band(p, 61, Some("Sweden"), Some("SE"), Some("Umeå")).await;
    band(p, 62, Some("Norway"), Some("NO"), Some("Oslo")).await;
    let planned = planned_page(p).await;
    assert_eq!(planned.len(), 3);

    // Between reading and inserting, one band's text and another's country change.
    sqlx::query("UPDATE bands SET location_text = 'Malmö' WHERE ma_id = 60")
        .execute(p)
        .await
        .unwrap();
    sqlx::query("UPDATE bands SET country = 'Finland', country_code = 'FI' WHERE ma_id = 61")
        .execute(p)
        .await
        .unwrap();
    let mut tx = p.begin().await.unwrap();
    let inserted = insert_locations(&mut tx, &planned).await.unwrap();
    tx.commit().await.unwrap();
    assert_eq!(inserted.stale_bands, [60, 61]);
    assert_eq!(
        inserted.created.iter().map(|c| c.ma_id).collect::<Vec<_>>(),
        [62]
    );
    assert!(rows(p, 60).await.is_empty(), "no row of the old text");
    assert!(rows(p, 61).await.is_empty(), "no row of the old country");

    // The stale bands have no row, so the next scan reads them with their new values.
    let r = run_once(p, None).await.unwrap();
    assert_eq!((r.bands, r.created, r.skipped), (2, 2, 0), "{r:?}");
    assert_eq!(raws(&rows(p, 60).await), [(0, "Malmö")]);
    assert_eq!(rows(p, 61).await[0].country_code.as_deref(), Some("FI"));
}

#[tokio::test]
async fn an_insert_racing_a_location_update_waits_for_it_and_creates_nothing_stale() {
    let db = TestDb::new().await;
    let p = &db.pool;
    band(p, 70, Some("Sweden"), Some("SE"), Some("Göteborg")).await;
    let planned = planned_page(p).await;

    // The update is made but not committed yet when the insert starts.
    let mut editor = p.begin().await.unwrap();
    sqlx::query("UPDATE bands SET location_text = 'Lund' WHERE ma_id = 70")
        .execute(&mut *editor)
        .await
        .unwrap();
    let pool = p.clone();
    let insert = tokio::spawn(async move {
        let mut tx = pool.begin().await.unwrap();
        let inserted = insert_locations(&mut tx, &planned).await.unwrap();
        tx.commit().await.unwrap();
        inserted
    });
    // The insert must wait on the band's row lock (without it, it would insert rows of
    // the old text that the update's rule-20 delete cannot see).
    let mut waited = false;
    for _ in 0..400 {
        let waiting: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity
                            WHERE datname = current_database() AND wait_event_type = 'Lock'
                              AND query LIKE 'WITH r AS (%')",
        )
        .fetch_one(p)
        .await
        .unwrap();
        if waiting {
            waited = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(waited, "the insert did not wait for the band update");
    editor.commit().await.unwrap();
    let inserted = insert.await.unwrap();
    assert_eq!(inserted.stale_bands, [70]);
    assert!(inserted.created.is_empty());
    assert!(rows(p, 70).await.is_empty());

    run_once(p, None).await.unwrap();
    assert_eq!(raws(&rows(p, 70).await), [(0, "Lund")]);
}

#[tokio::test]
async fn a_band_changed_while_the_scan_runs_is_skipped_and_queued_by_the_next_scan() {
    let db = TestDb::new().await;
    let p = &db.pool;
    let n = bandmap_enqueue::BATCH_SIZE + 2;
    let victim = bandmap_enqueue::BATCH_SIZE + 1;
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code, location_text)
         SELECT g, 'B' || g, 'Norway', 'NO', 'Town' || g FROM generate_series(1, $1) g",
    )
    .bind(n)
    .execute(p)
    .await
    .unwrap();
    // The scan reads page 2 while it inserts page 1, then writes its stats, then inserts
    // page 2: changing a page-2 band when the stats are first written puts the change
    // exactly between that band's read and its insert.
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "CREATE FUNCTION edit_during_scan() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
             UPDATE bands SET location_text = 'Moved' || ma_id
             WHERE ma_id = {victim} AND location_text = 'Town' || ma_id;
             RETURN NULL;
         END $$;
         CREATE TRIGGER edit_during_scan AFTER UPDATE OF stats ON crawl_run
             FOR EACH ROW EXECUTE FUNCTION edit_during_scan();"
    )))
    .execute(p)
    .await
    .unwrap();

    let r = run_once(p, None).await.unwrap();
    assert_eq!(
        (r.bands, r.created, r.skipped, r.failed, r.existing),
        (n as u64, n as u64 - 1, 1, 0, 0),
        "{r:?}"
    );
    assert!(rows(p, victim).await.is_empty(), "no row of the old text");
    let lines = log_lines(p, r.run_id).await;
    assert!(
        lines.iter().any(
            |(_, m)| m.starts_with("skipped 1 bands: location or country changed")
                && m.contains(&victim.to_string())
        ),
        "{lines:?}"
    );

    let again = run_once(p, None).await.unwrap();
    assert_eq!((again.bands, again.created), (1, 1));
    assert_eq!(
        rows(p, victim).await[0].location_raw,
        format!("Moved{victim}")
    );
}
